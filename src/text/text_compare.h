/* SPDX-License-Identifier: MIT */
/* The full text comparator: GNU sort's keycompare and compare, key by key and then,
 * unless -s or -u, the whole line; in bytes, or by the locale's collation where the
 * order says so. Thread-safe; lines are not modified. */
#ifndef GPUSORT_TEXT_COMPARE_H
#define GPUSORT_TEXT_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include "../settings/keydef.h"
#include "text_ignore.h" /* text_fold and text_ignored_bytes, for its users */
#include "text_order.h"

/* [*begin, *end) of key in line[0, len) as order reads it: -t's or the blanks' fields,
 * or (--csv) the CSV fields' content or the record as read, the latter two perhaps in a
 * buffer of the thread's own for side (0 or 1), valid until its next use. */
void text_order_key_bounds(const struct text_order *order, const struct keydef *key, const char *line, size_t len,
			   int side, const char **begin, const char **end);
/* <0, 0 or >0 as line a sorts before, with or after line b (lines without their
 * terminator). */
int text_compare_lines(const struct text_order *order, const char *a, size_t alen,
		       const char *b, size_t blen);

/* One key's comparison of already extracted key bytes, -r of the key applied, by the
 * rules of `locale` (keys without n g h M V collate where locale->collate says so).
 * Not for random keys, which need the order's salt (text_random_compare). */
int text_compare_key(const struct key_ordering *ordering, const struct text_locale *locale,
		     const char *a, size_t alen, const char *b, size_t blen);

#endif
