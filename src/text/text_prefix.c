/* SPDX-License-Identifier: MIT */
/* Prefix images per key type. Version keys (-V) get a coarse image (text_version_image:
 * special names, first byte, leading number); the comparator orders what it ties.
 * Collated keys take the start of their strxfrm image, after -d -i -f as in GNU sort;
 * random keys (-R) their keyed hash (text_random). */
#include "text_prefix.h"
#include "csv_codec.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "text_collate.h"
#include "text_compare.h"
#include "text_fields.h"
#include "text_general.h"
#include "text_month.h"
#include "text_numeric.h"
#include "text_random.h"
#include "text_version.h"

/* The first 8 kept bytes, big-endian, zero-padded: memcmp order with shorter-is-less.
 * Ignored bytes never include 0, so the padding cannot be confused with a kept byte. */
static uint64_t byte_image(const char *key, size_t len, const bool *ignore, bool fold)
{
	if (!ignore && !fold && len >= 8) {
		uint64_t word;
		memcpy(&word, key, 8);
		return __builtin_bswap64(word);
	}
	uint64_t image = 0;
	unsigned taken = 0;
	for (size_t i = 0; i < len && taken < 8; i++) {
		unsigned char c = (unsigned char)key[i];
		if (ignore && ignore[c])
			continue;
		image = image << 8 | (fold ? text_fold(c) : c);
		taken++;
	}
	return taken ? image << (8 * (8 - taken)) : 0;
}

static uint64_t special_image(const struct key_ordering *o, const struct text_locale *locale,
			      const char *key, size_t len)
{
	if (o->numeric)
		return text_numeric_image(&locale->numbers, key, len);
	if (o->human_numeric)
		return text_human_image(&locale->numbers, key, len);
	if (o->general_numeric)
		return text_general_image(key, len);
	if (o->month)
		return (uint64_t)text_month(locale->months, key, len) << 56;
	if (o->version)
		return text_version_image(key, len);
	return 0;
}

static bool is_special(const struct key_ordering *o)
{
	return o->numeric || o->human_numeric || o->general_numeric || o->month || o->version;
}

/* The collated image, and where next is given the next 8 bytes of its first level. */
static uint64_t collated_image(const char *key, size_t len, uint64_t *next)
{
	return next ? text_collate_image_pair(key, len, next) : text_collate_image(key, len);
}

static uint64_t translated_image(const struct key_ordering *o, const struct text_locale *locale,
				 bool collate, const char *key, size_t len, uint64_t *next)
{
	if (collate)
		return collated_image(key, len, next);
	return special_image(o, locale, key, len);
}

static uint64_t key_image(const struct key_ordering *o, const struct text_locale *locale,
			  const char *key, size_t len, uint64_t *next)
{
	const bool *ignore = text_ignored_bytes(o);
	bool collate = locale->collate && !is_special(o);
	if (!is_special(o) && !collate)
		return byte_image(key, len, ignore, o->fold_case);
	if (!ignore && !o->fold_case)
		return translated_image(o, locale, collate, key, len, next);
	char stack[256];
	char *copy = len < sizeof stack ? stack : malloc(len);
	if (!copy)
		return 0;
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)key[i];
		if (!(ignore && ignore[c]))
			copy[n++] = (char)(o->fold_case ? text_fold(c) : c);
	}
	uint64_t image = translated_image(o, locale, collate, copy, n, next);
	if (copy != stack)
		free(copy);
	return image;
}

uint64_t text_prefix_pair(const struct text_order *order, const char *line, size_t len, uint64_t *next)
{
	if (next)
		*next = 0;
	uint64_t image;
	bool reverse;
	if (order->key_count == 0) {
		if (order->csv && order->locale.collate)
			line = csv_record_decoded(line, len, 0, &len);
		image = order->locale.collate ? collated_image(line, len, next) : byte_image(line, len, NULL, false);
		reverse = order->reverse;
	} else {
		const struct keydef *key = &order->keys[0];
		const char *begin, *end;
		text_order_key_bounds(order, key, line, len, 0, &begin, &end);
		image = key->ordering.random
			? text_random_prefix(&order->random, &key->ordering, &order->locale, begin,
					     (size_t)(end - begin))
			: key_image(&key->ordering, &order->locale, begin, (size_t)(end - begin), next);
		reverse = key->ordering.reverse;
	}
	if (reverse && next)
		*next = ~*next;
	return reverse ? ~image : image;
}

uint64_t text_prefix(const struct text_order *order, const char *line, size_t len)
{
	return text_prefix_pair(order, line, len, NULL);
}

bool text_prefix_keeps_next(const struct text_order *order)
{
	return text_prefix_collates(order) && text_prefix_deepens(order);
}

bool text_prefix_collates(const struct text_order *order)
{
	if (!order->locale.collate)
		return false;
	if (order->key_count == 0)
		return true;
	const struct key_ordering *o = &order->keys[0].ordering;
	return !is_special(o) && !o->random;
}

bool text_prefix_deepens(const struct text_order *order)
{
	if (order->key_count == 0) /* a CSV record collates decoded: not in place */
		return !(order->locale.collate && order->csv);
	const struct key_ordering *o = &order->keys[0].ordering;
	return !is_special(o) && !o->random && !o->fold_case && !text_ignored_bytes(o);
}

size_t text_prefix_deeper_start(const struct text_order *order)
{
	return order->locale.collate ? 0 : 1;
}

bool text_prefix_exact(const struct text_order *order)
{
	return !order->locale.collate;
}

bool text_prefix_line_deepens(const struct text_order *order)
{
	return order->key_count == 1 && order->last_resort && !order->locale.collate;
}

uint64_t text_prefix_at(const struct text_order *order, const char *line, size_t len, size_t depth, bool whole_line,
			size_t *key_size)
{
	const char *begin = line, *end = line + len;
	if (!whole_line && order->key_count)
		text_order_key_bounds(order, &order->keys[0], line, len, 0, &begin, &end);
	size_t size = (size_t)(end - begin), at = 8 * depth;
	uint64_t image;
	if (order->locale.collate) {
		image = text_collate_level_at(begin, size, at, key_size);
	} else {
		*key_size = size;
		image = at < size ? byte_image(begin + at, size - at, NULL, false) : 0;
	}
	bool reverse = order->key_count == 0 || whole_line ? order->reverse : order->keys[0].ordering.reverse;
	return reverse ? ~image : image;
}
