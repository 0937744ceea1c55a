/* The k-way merge of sorted record streams with a loser tree. Equal keys come out in
 * source order (sources are given in input order), so merging keeps the sort stable;
 * with unique only the first record of each run of equal keys is kept. */
#ifndef GPUSORT_MERGE_H
#define GPUSORT_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include "../binary/record_items.h"

/* A sorted stream of records handed over a block at a time. */
struct merge_source {
	/* Sets *records and *count to the next block (count 0 at the end); returns 0 or a
	 * negative errno, after reporting it with the file's name. */
	int (*next_block)(void *context, const unsigned char **records, size_t *count);
	void *context;
};

/* Merges k sources into sink, in output blocks of about block_bytes. Returns 0 or the
 * first negative errno of a source or the sink. Records dropped by unique count as put
 * out for the self-check (layout->verify); to_output: the sink is the sort's output, so
 * what goes to it is checked for order and counted too. */
int merge_records(const struct record_layout *layout, struct merge_source *sources, size_t k,
		  bool unique, bool to_output, size_t block_bytes, record_sink sink, void *sink_context);

/* Compares two records' keys in output order (-r applied): <0, 0, >0. */
int merge_compare_records(const struct record_layout *layout, const unsigned char *a,
			  const unsigned char *b);

#endif
