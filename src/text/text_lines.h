/* SPDX-License-Identifier: MIT */
/* Text held in memory as one buffer of terminated lines plus a table of line starts:
 * the unit that run formation sorts. Every line ends with the terminator, including
 * the last line of an input that lacked one (GNU sort adds it on output too). */
#ifndef GPUSORT_TEXT_LINES_H
#define GPUSORT_TEXT_LINES_H

#include <stddef.h>
#include <stdint.h>
#include "text_count.h"
#include <sys/types.h>
#include "../../kernels/thread_pool.h"

struct input_file;
struct sort_verify;

/* A point of the count: `lines` lines end before data[offset]. */
struct text_mark {
	size_t offset, lines;
};

struct text_lines {
	char *data;
	size_t size, capacity;
	uint64_t *starts;  /* count + 1 entries once indexed: line i is [starts[i], starts[i+1]-1) */
	size_t count, starts_capacity;
	unsigned char eol;
	/* What text_lines_count has counted: counted_lines lines end in data[0, counted).
	 * Its marks, one every few MiB, are where text_lines_index's slices start, each
	 * slice's first line number known without counting again. */
	size_t counted, counted_lines;
	struct text_mark *marks;
	size_t mark_count, mark_capacity;
	/* For the self-check's words (verify.h): where data[0] lies in the inputs' stream,
	 * and how much of data the count has taken as read: data[0, summed), which may run
	 * past the lines kept, into the bytes to carry. */
	uint64_t origin;
	size_t summed;
	/* --csv: the reads' bytes are encoded as they come (csv_codec.h); NULL: as read */
	struct csv_encoder *csv;
};

void text_lines_init(struct text_lines *lines, unsigned char eol);
void text_lines_free(struct text_lines *lines);

/* Appends up to `limit` more bytes from file (whole input when it is SIZE_MAX); returns
 * the bytes read (0 at the end of the input) or a negative errno. When the input ends
 * without a terminator, one is added. With a pool, a buffer made anew for the read is
 * faulted in on it first. Each piece read is added to *read_bytes (unless NULL) as it
 * arrives, for a progress display. */
ssize_t text_lines_append(struct text_lines *lines, struct input_file *file, size_t limit, struct thread_pool *pool,
			  atomic_uint_least64_t *read_bytes);
/* Reserves room for `bytes` more; returns 0 or -ENOMEM. */
int text_lines_reserve(struct text_lines *lines, size_t bytes);

/* Called by text_lines_index on lines [first, end), whose starts are in the table, while
 * their bytes are in cache; on the pool's threads, each line once. */
typedef void (*text_lines_visit)(void *context, const struct text_lines *lines, size_t first, size_t end);

/* Builds the table of line starts for everything appended (in parallel on pool), counting
 * first what text_lines_count has not. Each line's bytes are added to the self-check's
 * fingerprint of the sort's input (verify.h) while the slice's scan has them in cache;
 * under verify->by_position its index is, in closed form; and the words of the lines'
 * bytes as scanned, which must add up to those taken as read; with verify NULL or
 * disabled, nothing. Each line is given to visit (when not NULL) the same way. Returns
 * 0 or -ENOMEM. */
int text_lines_index(struct text_lines *lines, struct thread_pool *pool, struct sort_verify *verify,
		     text_lines_visit visit, void *context);


/* Counts the lines that end in data[counted, size) (in parallel on pool where that is
 * long), leaving marks; returns 0 or -ENOMEM. It takes the words of the bytes not seen
 * before as read (data[summed, size)) for verify (verify.h; NULL or disabled: not), which
 * text_lines_index's scan takes again: a sort's calls of both give the same verify. */
int text_lines_count(struct text_lines *lines, struct thread_pool *pool, struct sort_verify *verify);

/* Keeps data[0, size) as the lines, count of them (a cut found by text_lines_cut within
 * what was counted); the bytes after it stay in data for the caller to carry. */
void text_lines_keep(struct text_lines *lines, size_t size, size_t count);
/* Moves the bytes kept after from's lines, from->data[from->size, end), to the start of
 * to, which held nothing to keep (to may be from: one buffer taken in turns), its lines
 * to be counted again; their words were taken as read in from. Returns 0 or -ENOMEM. */
int text_lines_carry(struct text_lines *to, const struct text_lines *from, size_t end);

/* The longest run of whole lines data[0, p) whose bytes, plus line_cost for each line,
 * stay within limit: 0 when not even the first line does; *count: its lines.
 * begin_lines lines end in data[0, begin), whose cost is within the limit; the scan
 * starts there. */
size_t text_lines_cut(const struct text_lines *lines, size_t begin, size_t begin_lines, size_t limit,
		      size_t line_cost, size_t *count);

static inline const char *text_line(const struct text_lines *lines, size_t i, size_t *len)
{
	*len = (size_t)(lines->starts[i + 1] - lines->starts[i] - 1);
	return lines->data + lines->starts[i];
}

#endif
