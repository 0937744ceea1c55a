/* SPDX-License-Identifier: MIT */
/* --header=N: the first N lines of each text input are a header, not records. The first
 * input's header is kept, to be written first and unchanged (output_target.header);
 * each later input's is dropped. */
#ifndef GPUSORT_INPUT_HEADER_H
#define GPUSORT_INPUT_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../settings/keydef.h"

struct input_file;

struct input_header {
	size_t lines;          /* N; 0: no header */
	unsigned char eol;     /* the line terminator ('\n', or NUL with -z) */
	int csv_separator;     /* --csv: N records, which may span lines; -1: N lines */
	bool csv_lenient;      /* --csv=lenient: malformed ones read as best they can be */
	uint64_t last_newlines; /* the newlines of the header last read off an input */
	int malformation;       /* --csv: a malformed header record's csv_malformation */
	uint64_t malformed_line; /* and the line it starts on */
	/* --csv: keys whose fields name columns ([NAME]), resolved by the first input's
	 * header's first record */
	struct keydef *keys;
	size_t key_count;
	unsigned char *bytes;  /* the first input's header lines, each with its terminator */
	size_t length;
	bool kept;             /* the first input's header has been read */
};

/* Reads the header lines off the start of file (named name), which has just been
 * opened: the first input's are kept in header, a later input's dropped; the first
 * input's names the keys' columns. An input that ends within them is all header (its
 * last line given a terminator when it lacks one). Returns 0, or a negative errno
 * reported by the input's name (a read's, or -ENOENT for a key naming no column). */
int input_header_take(struct input_header *header, struct input_file *file, const char *name);
/* Drops the header lines off the start of file, keeping nothing (-c, -C). */
int input_header_skip(struct input_header *header, struct input_file *file, const char *name);
void input_header_free(struct input_header *header);

#endif
