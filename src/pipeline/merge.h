/* SPDX-License-Identifier: MIT */
/* The k-way merge of sorted record streams with a loser tree, for either mode's records
 * (record_order.h). Equal records come out in source order (sources are given in input
 * order), so merging keeps the sort stable; under -u only the first of each run of
 * records that compare equal is kept. */
#ifndef GPUSORT_MERGE_H
#define GPUSORT_MERGE_H

#include "../common/record_sink.h"
#include <stdbool.h>
#include <stddef.h>
#include "record_order.h"

struct sort_verify;

/* A sorted stream of records handed over a block at a time. */
struct merge_source {
	/* Sets *bytes and *len to the next block of whole records (lines with their
	 * terminators; len 0 at the end); returns 0 or a negative errno, after reporting it
	 * with the file's name where the source knows one. */
	int (*next_block)(void *context, const unsigned char **bytes, size_t *len);
	void *context;
};


/* A sink that takes a full output block itself instead of a copy: handed *block (bytes
 * of count records at its start, *capacity bytes in all), it gives back in *block and
 * *capacity a free malloc'ed block of at least as many bytes. */
typedef int (*record_block_sink)(void *context, unsigned char **block, size_t *capacity, size_t bytes,
				 size_t count);

/* Where a merge puts its records: write takes output blocks of about block_bytes, or
 * write_block, where set, takes them whole (records too large for a block still go to
 * write, from where they lie). to_output: this is the sort's output (or a range of it),
 * so what goes to it is checked for order and counted too. */
struct merge_sink {
	record_sink write;
	record_block_sink write_block;
	void *context;
	size_t block_bytes;
	bool to_output;
};

/* Merges k sources into sink. Returns 0 or the first negative errno, with *failed (when
 * not NULL) set to the source that failed, or k when it was the sink or memory. Records
 * dropped by -u count as put out for the self-check (verify, NULL for none). */
int merge_records(const struct record_order *order, struct sort_verify *verify, struct merge_source *sources,
		  size_t k, const struct merge_sink *sink, size_t *failed);

#endif
