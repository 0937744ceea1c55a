/* SPDX-License-Identifier: MIT */
/* The output end of every sort, merge and -m, either mode's: opens the output named by
 * -o (or standard output), takes sorted records (or lines) as a record_sink, settles
 * the self-check, and commits or aborts the output, reporting errors with the output's
 * name. */
#ifndef GPUSORT_RECORD_OUTPUT_H
#define GPUSORT_RECORD_OUTPUT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../common/report.h"
#include "../../io/output_file.h"
#include "output_check.h"
#include "../common/record_sink.h"
#include "../common/stats.h"
#include "../text/csv_codec.h"

struct sort_verify;
struct record_order;

struct record_output {
	struct output_file *file;
	const char *name;
	struct sort_stats *stats; /* each write and the commit count in the write stage */
	/* a write error was reported (by record_output_write) */
	bool reported;
	/* the sort's self-check, settled before the output is committed; NULL: none */
	struct sort_verify *verify;
	/* bytes written by record_output_write_at (from several threads), counted in the
	 * write stage by record_output_finish */
	_Atomic uint64_t written_at;
	/* The output's first bytes, while they fit, written at the finish: a write that
	 * fails there is the final flush of GNU's stdio buffer (report_output_failure). */
	unsigned char held[REPORT_FLUSH_BYTES];
	size_t held_bytes;
	bool holding;
	bool scratch; /* output_target.scratch */
	/* --debug: the order whose annotate() turns each line into what is written, and
	 * the buffer it writes into; NULL: records are written as they are */
	const struct record_order *annotated;
	char *shown;
	size_t shown_size;
	/* --csv: records are written decoded (csv_codec.h), through the output's filter
	 * (csv_filtered) unless the writer decodes them (record_output_take_csv_decoding) */
	bool csv_filtered;
	struct csv_decoder csv;
};

/* Reports a failed write of the output, in GNU's words for the user's output
 * (report_output_failure) or a temp file's for a scratch target, and notes it reported. */
void record_output_report(struct record_output *output, int error);

/* Opens the output the target names; reports and returns a negative errno on failure.
 * order (NULL for none) says whether records are written as they are or annotated
 * (--debug), which writes them in order, never at offsets. */
int record_output_open(struct record_output *output, const struct record_order *order,
		       const struct output_target *target, struct sort_stats *stats);

/* record_sink: writes the bytes of count records; reports its own errors. */
int record_output_write(void *context, const unsigned char *records, size_t bytes, size_t count);

/* --csv: where the output would decode the records (its filter), leaves that to the
 * caller, which then writes them decoded, and may then write them at their offsets;
 * true when it does. */
bool record_output_take_csv_decoding(struct record_output *output);
/* record_sink_at, when the output is a regular file of our own (else NULL): writes
 * bytes at offset; returns the error for the caller to report once. */
record_sink_at record_output_sink_at(const struct record_output *output);
/* Before the sink_at's writes, for an output of at most bytes: io's output_file_map.
 * Returns 0 or the error, reported ("write failed"). */
int record_output_map(struct record_output *output, uint64_t bytes);
/* Whether the output is a file in memory (a tmpfs): no write-back behind its pages. */
bool record_output_in_memory(const struct record_output *output);
/* After record_output_map: threads fault in the mapped pages for the writes to come,
 * until record_output_prefault_stop (or the finish). */
void record_output_prefault_start(struct record_output *output);
void record_output_prefault_stop(struct record_output *output);

/* Commits the output when error is 0 and the self-check (if any) holds, reporting a
 * failure ("internal error: ..." for the self-check), else aborts it and leaves the old
 * file, if any, as it was. Returns the error, or the check's or the commit's. */
int record_output_finish(struct record_output *output, int error);

/* An input without records: opens and commits an empty output, reporting a failure.
 * Returns 0 or a negative errno. */
int record_output_empty(const struct output_target *target, struct sort_stats *stats);

#endif
