/* SPDX-License-Identifier: MIT */
/* GNU sort's rules for combining global options and keys: a key with no option letters
 * takes all global ones (b on both ends, and -r); with no -k, global options other
 * than -r make one key of the whole line. */
#include "text_order.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static struct key_ordering global_ordering(const struct text_keys *given)
{
	struct key_ordering global = given->global_ordering;
	if (global.skip_start_blanks || global.skip_end_blanks)
		global.skip_start_blanks = global.skip_end_blanks = true;
	global.reverse = global.reverse || given->reverse;
	return global;
}

int text_order_init(struct text_order *order, const struct text_keys *given, bool unique, bool debug,
		    char *letters, size_t letters_size)
{
	memset(order, 0, sizeof *order);
	struct key_ordering global = global_ordering(given);
	struct key_ordering global_without_reverse = global;
	global_without_reverse.reverse = false;

	size_t count = given->count;
	if (count == 0 && key_ordering_any(&global_without_reverse))
		count = 1;
	if (count) {
		order->keys = calloc(count, sizeof *order->keys);
		if (!order->keys)
			return -ENOMEM;
	}
	order->key_count = count;
	if (given->count == 0 && count == 1) {
		order->keys[0].start_field = 1;
		order->keys[0].start_char = 1;
		order->keys[0].ordering = global;
		order->whole_key = true;
	}
	for (size_t i = 0; i < given->count; i++) {
		order->keys[i] = given->keys[i];
		if (!key_ordering_any(&order->keys[i].ordering))
			order->keys[i].ordering = global;
	}
	for (size_t i = 0; i < count; i++) {
		order->keys[i].has_ordering = key_ordering_any(&order->keys[i].ordering);
		if (key_ordering_conflict(&order->keys[i].ordering, letters, letters_size)) {
			text_order_free(order);
			return -EINVAL;
		}
	}
	order->separator = given->field_separator;
	order->reverse = global.reverse;
	order->unique = unique;
	order->last_resort = count == 0 || !(given->stable || unique);
	order->eol = given->zero_terminated ? '\0' : '\n';
	order->csv = given->csv;
	order->csv_lenient = given->csv_lenient;
	order->debug = debug;
	text_locale_init(&order->locale);
	return 0;
}

void text_order_free(struct text_order *order)
{
	free(order->keys);
	order->keys = NULL;
	order->key_count = 0;
}

bool text_order_is_random(const struct text_order *order)
{
	for (size_t i = 0; i < order->key_count; i++)
		if (order->keys[i].ordering.random)
			return true;
	return false;
}

void text_order_salt(struct text_order *order, const unsigned char salt[TEXT_RANDOM_SALT_BYTES])
{
	text_random_init(&order->random, salt);
}
