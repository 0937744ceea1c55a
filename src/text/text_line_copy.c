/* SPDX-License-Identifier: MIT */
/* The copy grows to the longest line seen. It is allocated even for an empty line, so
 * that it never hands memcpy or the comparators a null pointer. */
#include "text_line_copy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LINE_COPY_MIN 64

int text_line_copy_set(struct text_line_copy *copy, const char *line, size_t len)
{
	if (!copy->data || len > copy->capacity) {
		size_t capacity = len > LINE_COPY_MIN ? len : LINE_COPY_MIN;
		if (capacity < copy->capacity * 2)
			capacity = copy->capacity * 2;
		char *grown = realloc(copy->data, capacity);
		if (!grown)
			return -ENOMEM;
		copy->data = grown;
		copy->capacity = capacity;
	}
	if (len)
		memcpy(copy->data, line, len);
	copy->len = len;
	return 0;
}

void text_line_copy_free(struct text_line_copy *copy)
{
	free(copy->data);
	memset(copy, 0, sizeof *copy);
}
