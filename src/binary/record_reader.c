/* SPDX-License-Identifier: MIT */
/* The record stream over all inputs (see record_reader.h). */
#include "config.h"
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "../../io/input_file.h"
#include "record_reader.h"
#include "../common/report.h"
#include "../common/job_context.h"

struct record_reader {
	size_t record_size;
	size_t count;
	size_t current;
	const char *const *names;
	struct input_file **files;
	uint64_t bytes_of_current; /* read so far from the current input */
	int64_t *sizes;            /* each input's bytes: a file's size, a pipe's once it ended; else -1 */
};

static const char *const standard_input[] = {"-"};

int record_reader_open(const char *const *names, const struct input_range *ranges, size_t count, size_t record_size,
		       struct record_reader **reader_out)
{
	struct record_reader *reader = calloc(1, sizeof *reader);
	if (!names || count == 0) {
		names = standard_input;
		count = 1;
		ranges = NULL;
	}
	if (!reader || !(reader->files = calloc(count, sizeof *reader->files)) ||
	    !(reader->sizes = calloc(count, sizeof *reader->sizes))) {
		if (reader)
			free(reader->files);
		free(reader);
		report_errno(-ENOMEM);
		return -ENOMEM;
	}
	reader->record_size = record_size;
	reader->count = count;
	reader->names = names;
	for (size_t i = 0; i < count; i++) {
		int error = ranges ? input_file_open_range(names[i], (off_t)ranges[i].offset, (off_t)ranges[i].length,
							   &reader->files[i])
				   : input_file_open(names[i], &reader->files[i]);
		if (error < 0) {
			report_input_open_error(names[i], error, false);
			record_reader_close(reader);
			return error;
		}
		off_t size = input_file_size(reader->files[i]);
		reader->sizes[i] = size >= 0 ? size : -1;
		if (size >= 0 && (uint64_t)size % record_size != 0) {
			report_partial_record(names[i], (uint64_t)size, record_size);
			record_reader_close(reader);
			return -EINVAL;
		}
	}
	*reader_out = reader;
	return 0;
}

int64_t record_reader_total_bytes(const struct record_reader *reader)
{
	int64_t total = 0;
	for (size_t i = 0; i < reader->count; i++) {
		if (reader->sizes[i] < 0)
			return -1;
		total += reader->sizes[i];
	}
	return total;
}

/* Reads up to want bytes from the inputs in order, past the ones that end (whose size
 * is known from then on); returns the bytes read or a negative errno (reported). */
static int64_t reader_fill(struct record_reader *reader, unsigned char *buffer, size_t want)
{
	size_t have = 0;
	while (have < want && reader->current < reader->count) {
		ssize_t got = job_cancelled() ? -ECANCELED
			       : input_file_read(reader->files[reader->current], buffer + have, want - have);
		if (got < 0) {
			report_file_failure("read failed", reader->names[reader->current], (int)got);
			return got;
		}
		have += (size_t)got;
		reader->bytes_of_current += (uint64_t)got;
		if (got == 0) {
			/* This input ended: a pipe's size is only known now. */
			if (reader->bytes_of_current % reader->record_size != 0) {
				report_partial_record(reader->names[reader->current],
						      reader->bytes_of_current, reader->record_size);
				return -EINVAL;
			}
			reader->sizes[reader->current] = (int64_t)reader->bytes_of_current;
			reader->current++;
			reader->bytes_of_current = 0;
		}
	}
	return (int64_t)have;
}

int record_reader_empty(struct record_reader *reader, size_t ahead)
{
	bool holds = false;
	for (size_t i = reader->current; i < reader->count; i++) {
		if (reader->sizes[i] >= 0) {
			holds = holds || reader->sizes[i] > 0;
			continue;
		}
		if (holds && ahead == 0)
			break;
		/* A pipe says whether it holds anything only by a read; what it gives is kept
		 * for the next reads, and when it ends within that, its size is known. */
		ssize_t got = input_file_read_ahead(reader->files[i], ahead ? ahead : 1);
		if (got < 0) {
			report_file_failure("read failed", reader->names[i], (int)got);
			return (int)got;
		}
		holds = holds || got > 0;
		if (!input_file_ended(reader->files[i]))
			break;
		if ((size_t)got % reader->record_size != 0) {
			report_partial_record(reader->names[i], (uint64_t)got, reader->record_size);
			return -EINVAL;
		}
		reader->sizes[i] = got;
		ahead = ahead > (size_t)got ? ahead - (size_t)got : 0;
	}
	return !holds;
}

int64_t record_reader_read(struct record_reader *reader, unsigned char *buffer, size_t max_records)
{
	int64_t got = reader_fill(reader, buffer, max_records * reader->record_size);
	if (got < 0)
		return got;
	/* Inputs are whole records, so a chunk only ends mid-record at an input's end,
	 * which reader_fill reports. */
	return got / (int64_t)reader->record_size;
}

void record_reader_close(struct record_reader *reader)
{
	if (!reader)
		return;
	for (size_t i = 0; i < reader->count; i++)
		if (reader->files[i])
			input_file_close(reader->files[i]);
	free(reader->files);
	free(reader->sizes);
	free(reader);
}
