/* SPDX-License-Identifier: MIT */
/* Reads fixed-size records from the inputs in order, as one stream: opens every input
 * first (so a missing file is reported before any work), checks that each input's
 * size is a whole number of records, and fills caller buffers with whole records. */
#ifndef GPUSORT_RECORD_READER_H
#define GPUSORT_RECORD_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../settings/input_range.h"

struct record_reader;

/* Opens the inputs (none means "-"), each whole, or the part ranges[i] of input i when
 * ranges is not NULL. On failure reports "gpusort: NAME: reason" itself
 * (it knows the name) and returns a negative errno. */
int record_reader_open(const char *const *names, const struct input_range *ranges, size_t count, size_t record_size,
		       struct record_reader **reader);
/* Total bytes of all inputs when every one is a regular file or has been read to its
 * end (by record_reader_empty's read-ahead), else -1. */
int64_t record_reader_total_bytes(const struct record_reader *reader);
/* 1 when the inputs hold no byte at all, 0 when they hold some, or a negative errno
 * (reported). An input of unknown size (a pipe) is read ahead by up to ahead bytes (at
 * least one), which the next reads return first; when the inputs end within them, their
 * size is known from then on. */
int record_reader_empty(struct record_reader *reader, size_t ahead);
/* Reads up to max_records whole records; returns the count (0 at the end) or a negative
 * errno, after reporting it with the file's name. */
int64_t record_reader_read(struct record_reader *reader, unsigned char *buffer, size_t max_records);
void record_reader_close(struct record_reader *reader);

#endif
