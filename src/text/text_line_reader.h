/* Reading an input one line at a time (for -c, -m and merging runs), through a buffer
 * that grows to hold the longest line. */
#ifndef GPUSORT_TEXT_LINE_READER_H
#define GPUSORT_TEXT_LINE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct input_file;

struct text_line_reader {
	struct input_file *file;
	char *buffer;
	size_t begin, end, capacity; /* unread bytes are buffer[begin, end) */
	bool at_end;
	unsigned char eol;
	uint64_t bytes_read;  /* from the file so far, and the time it took (--stats) */
	double read_seconds;
};

/* Takes ownership of file. Returns 0 or -ENOMEM. */
int text_line_reader_init(struct text_line_reader *reader, struct input_file *file,
			  unsigned char eol);
/* Returns 1 with the next line (terminator excluded) in *line, valid until the next
 * call; 0 at the end; or a negative errno. A last line without terminator counts. */
int text_line_reader_next(struct text_line_reader *reader, const char **line, size_t *len);
void text_line_reader_close(struct text_line_reader *reader);

#endif
