/* Text held in memory as one buffer of terminated lines plus a table of line starts:
 * the unit that run formation sorts. Every line ends with the terminator, including
 * the last line of an input that lacked one (GNU sort adds it on output too). */
#ifndef GPUSORT_TEXT_LINES_H
#define GPUSORT_TEXT_LINES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "../../kernels/thread_pool.h"

struct input_file;

struct text_lines {
	char *data;
	size_t size, capacity;
	uint64_t *starts;  /* count + 1 entries once indexed: line i is [starts[i], starts[i+1]-1) */
	size_t count;
	unsigned char eol;
};

void text_lines_init(struct text_lines *lines, unsigned char eol);
void text_lines_free(struct text_lines *lines);

/* Appends up to `limit` more bytes from file (whole input when it is SIZE_MAX); returns
 * the bytes read (0 at the end of the input) or a negative errno. When the input ends
 * without a terminator, one is added. */
ssize_t text_lines_append(struct text_lines *lines, struct input_file *file, size_t limit);
/* Reserves room for `bytes` more; returns 0 or -ENOMEM. */
int text_lines_reserve(struct text_lines *lines, size_t bytes);

/* Builds the table of line starts for everything appended (in parallel on pool). */
int text_lines_index(struct text_lines *lines, struct thread_pool *pool);

/* How many bytes of data[0, len) are eol (64 bytes per step where SSE2 is there). */
size_t text_count_terminators(const char *data, size_t len, unsigned char eol);

/* The lines that end in data[begin, end) (in parallel on pool where that is long). */
size_t text_lines_count(const struct text_lines *lines, size_t begin, size_t end, struct thread_pool *pool);

/* The longest run of whole lines data[0, p) whose bytes, plus line_cost for each line,
 * stay within limit: 0 when not even the first line does; *count: its lines.
 * begin_lines lines end in data[0, begin), whose cost is within the limit; the scan
 * starts there. */
size_t text_lines_cut(const struct text_lines *lines, size_t begin, size_t begin_lines, size_t limit,
		      size_t line_cost, size_t *count);

struct sort_verify;
/* Adds every indexed line to the self-check's fingerprint of the sort's input
 * (verify.h): its index when verify->by_position (in closed form), else its bytes
 * without the terminator, on pool. */
void text_lines_fingerprint(const struct text_lines *lines, struct thread_pool *pool, struct sort_verify *verify);

static inline const char *text_line(const struct text_lines *lines, size_t i, size_t *len)
{
	*len = (size_t)(lines->starts[i + 1] - lines->starts[i] - 1);
	return lines->data + lines->starts[i];
}

#endif
