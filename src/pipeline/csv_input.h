/* SPDX-License-Identifier: MIT */
/* The --csv side of reading an input: its encoder started where its records start
 * (past a header), and a malformed record reported by the input's name and line. */
#ifndef GPUSORT_CSV_INPUT_H
#define GPUSORT_CSV_INPUT_H

#include "../text/csv_codec.h"
#include "../text/text_order.h"

struct input_header;

/* Starts encoder for an input just opened (its header, if any, read off): returns
 * encoder, or NULL when the order is not --csv's. */
struct csv_encoder *csv_input_start(struct csv_encoder *encoder, const struct text_order *order,
				    const struct input_header *header);
/* Reports error, a read's, by the input's name: a malformed record as
 * "NAME:LINE: malformed CSV record: WHAT", anything else as "read failed". */
void csv_input_report(const char *name, const struct csv_encoder *encoder, int error);
/* "NAME:LINE: malformed CSV record: WHAT", for a record that starts on line. */
void csv_input_report_malformed(const char *name, uint64_t line, enum csv_malformation what);

#endif
