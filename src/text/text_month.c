/* SPDX-License-Identifier: MIT */
/* -M: GNU's getmonth, a binary search of the sorted names by the key's folded bytes;
 * the name decides and what follows it in the key does not matter. The key's end reads
 * as the NUL byte that ends GNU's copy of it. */
#include "text_month.h"

#include "text_fields.h"
#include "text_ignore.h"

int text_month(const struct text_month_name months[12], const char *key, size_t len)
{
	return text_month_match(months, key, len, NULL);
}

int text_month_match(const struct text_month_name months[12], const char *key, size_t len, size_t *matched)
{
	const char *start = key, *end = key + len;
	while (key < end && text_is_blank((unsigned char)*key))
		key++;
	size_t left = (size_t)(end - key);
	size_t low = 0, high = 12;
	do {
		size_t middle = (low + high) / 2;
		const unsigned char *name = (const unsigned char *)months[middle].name;
		for (size_t i = 0;; i++) {
			if (!name[i]) {
				if (matched)
					*matched = (size_t)(key - start) + i;
				return months[middle].month;
			}
			unsigned char byte = i < left ? text_fold((unsigned char)key[i]) : 0;
			if (byte < name[i]) {
				high = middle;
				break;
			}
			if (byte > name[i]) {
				low = middle + 1;
				break;
			}
		}
	} while (low < high);
	return 0;
}
