/* SPDX-License-Identifier: MIT */
/* Reading one input as a stream of records of either mode (for -c, -m and merging
 * runs): fixed-size records, or lines ended by a terminator, through a buffer that
 * grows to hold the longest record. Records are returned in place in the buffer. */
#ifndef GPUSORT_RECORD_STREAM_H
#define GPUSORT_RECORD_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct input_file;

/* What the stream returns when the input ends inside a fixed-size record (below every
 * negative errno): report it with record_stream_report_partial. */
#define RECORD_STREAM_PARTIAL (-4096)

struct record_stream {
	struct input_file *file;
	char *buffer;
	size_t begin, end, capacity; /* unread bytes are buffer[begin, end) */
	bool at_end;
	bool partial;         /* a regular file whose size is not whole records */
	size_t record_size;   /* records of this many bytes, or 0: lines */
	unsigned char eol;    /* lines: their terminator */
	int lookahead;        /* the byte record_stream_empty took from a pipe, or -1 */
	uint64_t bytes_read;  /* from the file so far, and the time it took (--stats) */
	double read_seconds;
	struct csv_encoder *csv; /* --csv: the reads encoded (csv_codec.h); NULL: as read */
	int error;            /* --csv: a malformed record's -EILSEQ, after the records before it */
};

/* Records of record_size bytes, or with record_size 0 lines ended by eol. Takes
 * ownership of file when it returns 0, else a negative errno. The buffer is made at
 * the first read. */
int record_stream_init(struct record_stream *stream, struct input_file *file, size_t record_size,
		       unsigned char eol);
/* Fixed-size records: reads about bytes at a time (a whole number of records, at least
 * one) instead of 4 MiB; before the first read. Lines keep their own blocks. */
void record_stream_set_block(struct record_stream *stream, size_t bytes);
/* --csv: the input's bytes go through encoder (the caller's) as they are read; before
 * the first read. A malformed record is -EILSEQ, the encoder saying what. */
struct csv_encoder;
void record_stream_set_csv(struct record_stream *stream, struct csv_encoder *encoder);
/* Returns 1 with the next records in place, [*bytes, *bytes + *size): whole fixed-size
 * records, or lines each followed by its terminator (a last line that has none is given
 * one); valid until the next call. 0 at the end, or a negative errno. */
int record_stream_block(struct record_stream *stream, const char **bytes, size_t *size);
/* 1 when the input holds no byte, 0 when it holds some, or a negative errno. Costs no
 * memory (a regular file tells by its size, a pipe by a read of one byte). */
int record_stream_empty(struct record_stream *stream);
/* "gpusort: NAME: size N bytes is not a multiple of the record size R" ("-" is shown as
 * "standard input"), after RECORD_STREAM_PARTIAL. */
void record_stream_report_partial(const struct record_stream *stream, const char *name);
void record_stream_close(struct record_stream *stream);

#endif
