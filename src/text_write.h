/* Writing sorted lines to the output: each with its terminator, and under -u only the
 * first of each run of lines that compare equal. */
#ifndef GPUSORT_TEXT_WRITE_H
#define GPUSORT_TEXT_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include "text_lines.h"
#include "text_order.h"

struct output_file;

/* A buffered writer; the last written line is kept for -u's comparison. */
struct text_writer {
	struct output_file *output;
	const struct text_order *order;
	char *buffer;
	size_t used, capacity;
	char *last;          /* copy of the last line written (for -u across calls) */
	size_t last_len, last_capacity;
	bool have_last;
};

int text_writer_init(struct text_writer *writer, struct output_file *output,
		     const struct text_order *order);
/* Writes the line unless -u and it equals the last one written. Returns 0 or a
 * negative errno. */
int text_writer_line(struct text_writer *writer, const char *line, size_t len);
/* Writes lines in the order of sorted[0, n) (lines in one buffer need no copying for
 * -u: each is compared with the previous one written). */
int text_writer_sorted(struct text_writer *writer, const struct text_lines *lines,
		       const uint64_t *sorted, size_t n);
int text_writer_flush(struct text_writer *writer);
void text_writer_free(struct text_writer *writer);

#endif
