/* SPDX-License-Identifier: MIT */
/* The full text comparator. Numeric, month and version keys go through their parsers
 * (on a translated copy when -f, -d or -i also apply, as in GNU sort); other keys
 * compare bytes, skipping ignored ones and folding case as asked, or in a collating
 * locale are translated the same way and then collated, as GNU sort does. */
#include "text_compare.h"
#include "csv_codec.h"

#include <stdlib.h>
#include <string.h>
#include "text_collate.h"
#include "text_fields.h"
#include "text_general.h"
#include "text_ignore.h"
#include "text_month.h"
#include "text_numeric.h"
#include "text_random.h"
#include "text_version.h"

static bool is_special(const struct key_ordering *o)
{
	return o->numeric || o->general_numeric || o->human_numeric || o->month || o->version;
}

/* A key with ignored bytes dropped and case folded, in `stack` when it fits. */
static char *translate_key(const char *key, size_t len, const bool *ignore, bool fold,
			   char *stack, size_t stack_size, size_t *out_len)
{
	char *copy = len < stack_size ? stack : malloc(len + 1);
	if (!copy)
		return NULL;
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)key[i];
		if (ignore && ignore[c])
			continue;
		copy[n++] = (char)(fold ? text_fold(c) : c);
	}
	*out_len = n;
	return copy;
}

static int compare_special(const struct key_ordering *o, const struct text_locale *locale,
			   const char *a, size_t alen, const char *b, size_t blen)
{
	if (o->numeric)
		return text_numeric_compare(&locale->numbers, a, alen, b, blen);
	if (o->general_numeric)
		return text_general_compare(a, alen, b, blen);
	if (o->human_numeric)
		return text_human_compare(&locale->numbers, a, alen, b, blen);
	if (o->month)
		return text_month(locale->months, a, alen) - text_month(locale->months, b, blen);
	return text_version_compare(a, alen, b, blen);
}

static int compare_special_or_collated(const struct key_ordering *o, const struct text_locale *locale,
				       bool collate, const char *a, size_t alen, const char *b, size_t blen)
{
	if (collate)
		return text_collate_compare(a, alen, b, blen);
	return compare_special(o, locale, a, alen, b, blen);
}

/* Special keys, or collated ones, on copies with ignored bytes dropped and case folded. */
static int compare_translated(const struct key_ordering *o, const struct text_locale *locale,
			      bool collate, const bool *ignore, const char *a, size_t alen,
			      const char *b, size_t blen)
{
	char stack_a[256], stack_b[256];
	size_t ta_len, tb_len;
	char *ta = translate_key(a, alen, ignore, o->fold_case, stack_a, sizeof stack_a, &ta_len);
	char *tb = translate_key(b, blen, ignore, o->fold_case, stack_b, sizeof stack_b, &tb_len);
	int diff = 0;
	if (ta && tb)
		diff = compare_special_or_collated(o, locale, collate, ta, ta_len, tb, tb_len);
	if (ta != stack_a)
		free(ta);
	if (tb != stack_b)
		free(tb);
	return diff;
}

static int compare_ignoring(const bool *ignore, bool fold, const char *a, size_t alen,
			    const char *b, size_t blen)
{
	size_t i = 0, j = 0;
	for (;;) {
		while (i < alen && ignore[(unsigned char)a[i]])
			i++;
		while (j < blen && ignore[(unsigned char)b[j]])
			j++;
		if (!(i < alen && j < blen))
			break;
		unsigned char ca = (unsigned char)a[i], cb = (unsigned char)b[j];
		if (fold)
			ca = text_fold(ca), cb = text_fold(cb);
		if (ca != cb)
			return ca - cb;
		i++;
		j++;
	}
	return (i < alen) - (j < blen);
}

static int compare_bytes(bool fold, const char *a, size_t alen, const char *b, size_t blen)
{
	size_t common = alen < blen ? alen : blen;
	if (fold) {
		for (size_t i = 0; i < common; i++) {
			int diff = text_fold((unsigned char)a[i]) - text_fold((unsigned char)b[i]);
			if (diff)
				return diff;
		}
	} else if (common) {
		int diff = memcmp(a, b, common);
		if (diff)
			return diff;
	}
	return alen < blen ? -1 : alen != blen;
}

int text_compare_key(const struct key_ordering *o, const struct text_locale *locale,
		     const char *a, size_t alen, const char *b, size_t blen)
{
	const bool *ignore = text_ignored_bytes(o);
	int diff;
	bool collate = locale->collate && !is_special(o);
	if (is_special(o) || collate) {
		if (ignore || o->fold_case)
			diff = compare_translated(o, locale, collate, ignore, a, alen, b, blen);
		else
			diff = compare_special_or_collated(o, locale, collate, a, alen, b, blen);
	} else if (ignore) {
		diff = compare_ignoring(ignore, o->fold_case, a, alen, b, blen);
	} else {
		diff = compare_bytes(o->fold_case, a, alen, b, blen);
	}
	if (diff)
		diff = diff < 0 ? -1 : 1;
	return o->reverse ? -diff : diff;
}

void text_order_key_bounds(const struct text_order *order, const struct keydef *key, const char *line, size_t len,
			   int side, const char **begin, const char **end)
{
	if (order->csv && order->whole_key) {
		/* the record as read, whatever the options */
		size_t decoded;
		*begin = csv_record_decoded(line, len, side, &decoded);
		*end = *begin + decoded;
	} else if (order->csv) {
		csv_key_bounds(key, (unsigned char)order->separator, line, len, side, begin, end);
	} else {
		text_key_bounds(key, order->separator, line, len, begin, end);
	}
}

int text_compare_lines(const struct text_order *order, const char *a, size_t alen,
		       const char *b, size_t blen)
{
	for (size_t k = 0; k < order->key_count; k++) {
		const struct keydef *key = &order->keys[k];
		const char *ka, *ea, *kb, *eb;
		text_order_key_bounds(order, key, a, alen, 0, &ka, &ea);
		text_order_key_bounds(order, key, b, blen, 1, &kb, &eb);
		int diff = key->ordering.random
			   ? text_random_compare(&order->random, &key->ordering, &order->locale, ka,
						 (size_t)(ea - ka), kb, (size_t)(eb - kb))
			   : text_compare_key(&key->ordering, &order->locale, ka, (size_t)(ea - ka),
					      kb, (size_t)(eb - kb));
		if (diff)
			return diff;
	}
	if (!order->last_resort)
		return 0;
	if (order->csv && order->locale.collate) {
		/* the collation sees the records as read; bytes compare as encoded */
		a = csv_record_decoded(a, alen, 0, &alen);
		b = csv_record_decoded(b, blen, 1, &blen);
	}
	int diff = order->locale.collate ? text_collate_compare(a, alen, b, blen)
				  : compare_bytes(false, a, alen, b, blen);
	if (diff)
		diff = diff < 0 ? -1 : 1;
	return order->reverse ? -diff : diff;
}
