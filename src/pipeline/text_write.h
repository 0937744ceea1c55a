/* Writing sorted lines to the output: each with its terminator, and under -u only the
 * first of each run of lines that compare equal. */
#ifndef GPUSORT_TEXT_WRITE_H
#define GPUSORT_TEXT_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../text/text_line_copy.h"
#include "../text/text_lines.h"
#include "../text/text_order.h"
#include "../../kernels/thread_pool.h"

struct output_file;
struct sort_stats;

/* A buffered writer; the last written line is kept for -u's comparison. */
struct text_writer {
	struct output_file *output; /* NULL for a writer into memory */
	const struct text_order *order;
	char *buffer;
	size_t used, capacity;
	struct text_line_copy last; /* the last line written (for -u across calls) */
	bool have_last;
	uint64_t queued;           /* bytes handed to output_file_write */
	uint64_t positional_bytes; /* bytes written at offsets (text_writer_sorted) */
	/* The sort's self-check (verify.h), NULL for none: lines dropped by -u count as put
	 * out; to_output: this writer's lines are the sort's output (or a range of it), so
	 * they are counted and checked for order too. Set after init. */
	struct sort_verify *verify;
	bool to_output;
	double output_seconds;     /* spent in output_file_write, for --stats */
	struct sort_stats *progress; /* when set, each write moves --progress on */
};

int text_writer_init(struct text_writer *writer, struct output_file *output,
		     const struct text_order *order);
/* A writer into memory only: its buffer (buffer[0, used)) grows to hold all it is
 * given; nothing is flushed. */
int text_writer_init_memory(struct text_writer *writer, const struct text_order *order,
			    size_t capacity);
/* Empties a memory writer for reuse (it forgets the last line too). */
void text_writer_clear(struct text_writer *writer);
/* Writes bytes of whole lines as they are (no -u), after what is buffered: the lines of
 * another writer, which verified them; this one checks the seam to what it holds. */
int text_writer_bytes(struct text_writer *writer, const char *data, size_t len);
/* Appends bytes of whole lines as they are: no -u, no self-check (the caller's). */
int text_writer_append(struct text_writer *writer, const char *data, size_t len);
/* Writes lines in the order of sorted[0, n), gathered in parallel on pool (NULL: this
 * thread). Into a file of our own with nothing written yet it writes at offsets, and
 * then must be the writer's last call before text_writer_flush. */
int text_writer_sorted(struct text_writer *writer, const struct text_lines *lines,
		       const uint64_t *sorted, size_t n, struct thread_pool *pool);
int text_writer_flush(struct text_writer *writer);
/* The bytes given to the writer so far, written or still buffered. */
uint64_t text_writer_total(const struct text_writer *writer);
void text_writer_free(struct text_writer *writer);

#endif
