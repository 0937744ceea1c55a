/* SPDX-License-Identifier: MIT */
/* Record reading over input_file (see record_stream.h): records are returned in place
 * in the buffer; unread bytes move to the front before each refill, and the buffer
 * doubles when one record does not fit. */
#include "config.h"
#include "record_stream.h"
#include "../text/csv_codec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "../common/report.h"
#include "../common/stats.h"
#include "../../io/input_file.h"
#include "../common/job_context.h"

#define READER_BLOCK (1u << 20)
/* Fixed-size records are read this much at a time (whole records, at least one), so
 * a pipe that ends inside a record is found to within the same records as the binary
 * mode's reader finds it. */
#define RECORDS_BLOCK ((size_t)4 << 20)

int record_stream_init(struct record_stream *stream, struct input_file *file, size_t record_size,
		       unsigned char eol)
{
	memset(stream, 0, sizeof *stream);
	stream->file = file;
	stream->record_size = record_size;
	stream->eol = eol;
	/* A regular file's size tells before any read whether it is whole records. */
	off_t size = input_file_size(file);
	stream->partial = record_size && size >= 0 && (uint64_t)size % record_size != 0;
	if (record_size) {
		size_t per_block = RECORDS_BLOCK / record_size ? RECORDS_BLOCK / record_size : 1;
		stream->capacity = per_block * record_size;
	} else {
		stream->capacity = 2 * READER_BLOCK;
	}
	stream->lookahead = -1;
	return 0;
}

void record_stream_set_csv(struct record_stream *stream, struct csv_encoder *encoder)
{
	stream->csv = encoder;
}

void record_stream_set_block(struct record_stream *stream, size_t bytes)
{
	if (stream->record_size && !stream->buffer)
		stream->capacity = (bytes / stream->record_size ? bytes / stream->record_size : 1) * stream->record_size;
}

static int refill(struct record_stream *stream)
{
	size_t unread = stream->end - stream->begin;
	if (stream->begin)
		memmove(stream->buffer, stream->buffer + stream->begin, unread);
	stream->begin = 0;
	stream->end = unread;
	/* made at the first read: a check of an empty input costs no memory */
	if (!stream->buffer && !(stream->buffer = malloc(stream->capacity)))
		return -ENOMEM;
	/* lines grow the buffer to the longest one; a fixed-size record fits it always */
	if (!stream->record_size && stream->capacity - stream->end < READER_BLOCK) {
		char *grown = realloc(stream->buffer, 2 * stream->capacity);
		if (!grown)
			return -ENOMEM;
		stream->buffer = grown;
		stream->capacity *= 2;
	}
	size_t from = stream->end; /* --csv: what is encoded after the read */
	if (stream->lookahead >= 0) {
		stream->buffer[stream->end++] = (char)stream->lookahead;
		stream->lookahead = -1;
	}
	size_t want = stream->capacity - stream->end;
	if (stream->csv) /* room for the encoding, which may double the bytes */
		want = (stream->capacity - from) / 2 - (stream->end - from);
	double started = stats_now();
	ssize_t got = job_cancelled() ? -ECANCELED
				       : input_file_read(stream->file, stream->buffer + stream->end, want);
	stream->read_seconds += stats_now() - started;
	if (got < 0)
		return (int)got;
	stream->bytes_read += (uint64_t)got;
	stream->end += (size_t)got;
	if (stream->csv) {
		ssize_t encoded = csv_encode(stream->csv, stream->buffer + from, stream->end - from);
		size_t kept = encoded == -EILSEQ ? stream->csv->valid : (size_t)encoded;
		if (encoded >= 0 && (size_t)got < want && csv_encode_end(stream->csv) != 0)
			encoded = -EILSEQ; /* a quoted field open at the end */
		if (encoded == -EILSEQ) {
			/* the records before the malformed one are read first, as they come: the
			 * bytes after the last record's end go */
			const char *start = stream->buffer + stream->begin;
			const char *lf = memrchr(start, '\n', from + kept - stream->begin);
			stream->end = lf ? (size_t)(lf + 1 - stream->buffer) : stream->begin;
			stream->error = -EILSEQ;
			stream->at_end = true;
			return 0;
		}
		if (encoded < 0)
			return (int)encoded;
		stream->end = from + kept;
	}
	if ((size_t)got < want) {
		stream->at_end = true;
		/* records come whole out of every read but the last */
		stream->partial = stream->record_size && stream->end % stream->record_size != 0;
	}
	return 0;
}

/* The bytes of whole records at the front of the unread ones: of fixed-size records, or
 * of lines up to the last terminator; 0 when not one record is there. */
static size_t whole_records(const struct record_stream *stream)
{
	size_t unread = stream->end - stream->begin;
	if (unread == 0)
		return 0;
	if (stream->record_size)
		return unread - unread % stream->record_size;
	const char *start = stream->buffer + stream->begin;
	const char *last = memrchr(start, stream->eol, unread);
	return last ? (size_t)(last - start) + 1 : 0;
}

/* Makes at least one whole record unread (a last line without terminator is given
 * one): 1, 0 at the end of the input, or a negative errno. scanned: the unread bytes
 * known to hold no terminator. */
static int fill(struct record_stream *stream, size_t scanned)
{
	for (;;) {
		if (stream->partial)
			return RECORD_STREAM_PARTIAL;
		size_t unread = stream->end - stream->begin;
		if (stream->record_size ? unread >= stream->record_size
					: unread > scanned && memchr(stream->buffer + stream->begin + scanned,
								     stream->eol, unread - scanned))
			return 1;
		if (stream->at_end) {
			if (stream->error) /* --csv: a malformed record after those read */
				return stream->error;
			/* (fixed-size records: anything left would have been partial) */
			if (unread == 0)
				return 0;
			/* a read that ends the input stops short of the buffer's end */
			stream->buffer[stream->end++] = (char)stream->eol;
			return 1;
		}
		scanned = unread;
		int err = refill(stream);
		if (err)
			return err;
	}
}

int record_stream_block(struct record_stream *stream, const char **bytes, size_t *size)
{
	size_t whole = stream->partial ? 0 : whole_records(stream);
	if (!whole) {
		int got = fill(stream, stream->end - stream->begin);
		if (got <= 0)
			return got;
		whole = whole_records(stream);
	}
	*bytes = stream->buffer + stream->begin;
	*size = whole;
	stream->begin += whole;
	return 1;
}

int record_stream_empty(struct record_stream *stream)
{
	if (stream->partial)
		return RECORD_STREAM_PARTIAL;
	if (stream->begin < stream->end || stream->lookahead >= 0)
		return 0;
	if (stream->at_end)
		return 1;
	off_t size = input_file_size(stream->file);
	if (size >= 0)
		return (uint64_t)size == stream->bytes_read;
	/* A pipe says whether it holds anything only by a read: of one byte, which the next
	 * read puts first. */
	unsigned char byte;
	ssize_t got = input_file_read(stream->file, &byte, 1);
	if (got < 0)
		return (int)got;
	if (got == 0) {
		stream->at_end = true;
		return 1;
	}
	stream->lookahead = byte;
	stream->bytes_read++;
	return 0;
}

void record_stream_report_partial(const struct record_stream *stream, const char *name)
{
	off_t size = input_file_size(stream->file);
	report_partial_record(name, size >= 0 ? (uint64_t)size : stream->bytes_read,
			      stream->record_size);
}

void record_stream_close(struct record_stream *stream)
{
	if (stream->file)
		input_file_close(stream->file);
	free(stream->buffer);
	memset(stream, 0, sizeof *stream);
}
