/* SPDX-License-Identifier: MIT */
/* --csv's reading of an input (see csv_input.h). */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include "csv_input.h"
#include "input_header.h"
#include "../common/report.h"

struct csv_encoder *csv_input_start(struct csv_encoder *encoder, const struct text_order *order,
				    const struct input_header *header)
{
	if (!order || !order->csv)
		return NULL;
	csv_encoder_free(encoder);
	csv_encoder_init(encoder, (unsigned char)order->separator, 1 + (header ? header->last_newlines : 0),
			 order->csv_lenient);
	encoder->encoding = order->csv_encoding;
	return encoder;
}

void csv_input_report_malformed(const char *name, uint64_t line, enum csv_malformation what)
{
	char quoted[4096 + 64];
	report("%s:%" PRIu64 ": malformed CSV record: %s", report_input_name(name, quoted, sizeof quoted), line,
	       csv_malformation_text(what));
}

void csv_input_report(const char *name, const struct csv_encoder *encoder, int error)
{
	if (error == -EILSEQ && encoder && encoder->malformation != CSV_OK)
		csv_input_report_malformed(name, encoder->record_line, encoder->malformation);
	else
		report_file_failure("read failed", name, error);
}
