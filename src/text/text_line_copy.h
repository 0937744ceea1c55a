/* SPDX-License-Identifier: MIT */
/* A copy of one line that outlives the buffer it was read from: the previous line of
 * -c, the last line written under -u. */
#ifndef GPUSORT_TEXT_LINE_COPY_H
#define GPUSORT_TEXT_LINE_COPY_H

#include <stddef.h>

struct text_line_copy {
	char *data; /* never NULL once a line was set, even an empty one */
	size_t len, capacity;
};

/* Replaces the copy with line[0, len). Returns 0 or -ENOMEM (the old copy is kept). */
int text_line_copy_set(struct text_line_copy *copy, const char *line, size_t len);
void text_line_copy_free(struct text_line_copy *copy);

#endif
