/* SPDX-License-Identifier: MIT */
/* The check streams the input in blocks of whole records, compares each record with
 * the one before (the first of a block with a copy of the last of the block before),
 * and stops at the first that sorts before it (or equal to it under -u). */
#include "config.h"
#include "order_check.h"
#include "input_header.h"
#include "csv_input.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "record_stream.h"
#include "../common/report.h"
#include "../text/text_line_copy.h"
#include "../../io/input_file.h"

/* Scans the records of bytes[0, size) after *previous (NULL: none); returns the offset
 * of the first out of order, or size. *previous is left at the last record in order,
 * and *count at the number of records in order. */
static size_t first_disorder(const struct record_order *order, const unsigned char *bytes, size_t size,
			     const unsigned char **previous, size_t *previous_len, uint64_t *count)
{
	const unsigned char *last = *previous;
	size_t last_len = *previous_len, at = 0;
	uint64_t n = 0;
	while (at < size) {
		size_t step, len = record_length(order, bytes + at, size - at, &step);
		if (last) {
			int diff = record_compare(order, last, last_len, bytes + at, len);
			if (diff > 0 || (diff == 0 && order->unique))
				break;
		}
		last = bytes + at;
		last_len = len;
		at += step;
		n++;
	}
	*previous = last;
	*previous_len = last_len;
	*count = n;
	return at;
}

/* Under -c, in the mode's words; number counts from 1. */
static void report_disorder(const struct record_order *order, const char *name, uint64_t number,
			    const unsigned char *record, size_t len)
{
	if (order->record_size) {
		char quoted[4 * 4096 + 64];
		report("%s: disorder at record %" PRIu64, report_input_name(name, quoted, sizeof quoted), number);
		return;
	}
	fprintf(stderr, "gpusort: %s:%" PRIu64 ": disorder: ", name, number);
	if (order->text && order->text->csv) /* --csv: the record as read */
		record = (const unsigned char *)csv_record_decoded((const char *)record, len, 0, &len);
	fwrite(record, 1, len, stderr);
	fputc(order->eol, stderr);
}

static void report_trouble(const struct record_stream *stream, const char *name, int err)
{
	if (err == RECORD_STREAM_PARTIAL)
		record_stream_report_partial(stream, name);
	else if (err == -ENOMEM && stream->record_size)
		report_errno(-ENOMEM); /* the binary mode's words */
	else
		csv_input_report(name, stream->csv, err);
}

static int check_stream(const struct record_order *order, struct record_stream *stream, const char *name,
			int mode, uint64_t skipped)
{
	struct text_line_copy copy = {0};
	const unsigned char *previous = NULL;
	size_t previous_len = 0;
	uint64_t number = skipped;
	int status = 0, err;
	const char *block;
	size_t size;
	while ((err = record_stream_block(stream, &block, &size)) == 1) {
		const unsigned char *bytes = (const unsigned char *)block;
		uint64_t count;
		size_t at = first_disorder(order, bytes, size, &previous, &previous_len, &count);
		number += count;
		if (at < size) {
			if (mode == 'c') {
				size_t step, len = record_length(order, bytes + at, size - at, &step);
				report_disorder(order, name, number + 1, bytes + at, len);
			}
			status = 1;
			break;
		}
		/* the block's bytes go with the next read */
		if ((err = text_line_copy_set(&copy, (const char *)previous, previous_len)) != 0)
			break;
		previous = (const unsigned char *)copy.data;
	}
	if (err < 0) {
		report_trouble(stream, name, err);
		status = 2;
	}
	text_line_copy_free(&copy);
	return status;
}

int order_check(const struct record_order *order, const char *name, int mode, struct input_header *header,
		bool (*admit)(const void *arg), const void *arg)
{
	struct input_file *file;
	int err = input_file_open(name, &file);
	if (err) {
		report_input_open_error(name, err, true);
		return 2;
	}
	if (input_header_skip(header, file, name) != 0) {
		input_file_close(file);
		return 2;
	}
	struct record_stream stream;
	if ((err = record_stream_init(&stream, file, order->record_size, order->eol)) != 0) {
		input_file_close(file);
		report_trouble(&stream, name, err);
		return 2;
	}
	struct csv_encoder csv = {0};
	record_stream_set_csv(&stream, csv_input_start(&csv, order->text, header));
	int status = 0;
	int empty = record_stream_empty(&stream);
	if (empty < 0) {
		report_trouble(&stream, name, empty);
		status = 2;
	} else if (!empty) {
		status = admit && !admit(arg) ? 2 : check_stream(order, &stream, name, mode, header ? header->lines : 0);
	}
	record_stream_close(&stream);
	csv_encoder_free(&csv);
	return status;
}
