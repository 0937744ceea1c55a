/* SPDX-License-Identifier: MIT */
/* Where the final merge's key ranges start in each spilled run: splitters drawn from
 * the runs' block index entries, located in each run by a binary search over its index
 * and then inside one block. */
#ifndef GPUSORT_RUN_RANGES_H
#define GPUSORT_RUN_RANGES_H

#include <stddef.h>
#include <stdint.h>
#include "record_order.h"
#include "runs.h"

/* Where every range starts in every run: bounds[j * k + r] is the byte position (in
 * the run's records, uncompressed) of range j's first record in run r; row `ranges`
 * holds the runs' lengths. */
struct range_plan {
	size_t k;
	size_t ranges;
	uint64_t *bounds;
	uint64_t **block_starts;  /* per run: the byte position of each block, and the
				     run's length after the last */
};

/* Cuts the runs of list into at most wanted_ranges ranges at equal distances of their
 * index entries, locating the splitters on up to `threads` threads. Equal splitters
 * collapse, so all records that compare equal land in one range. A run that cannot be
 * read is reported, by its name. Free the plan with range_plan_free, also on error. */
int range_plan_build(const struct record_order *order, struct run_list *list, size_t wanted_ranges,
		     unsigned threads, struct range_plan *plan);
void range_plan_free(struct range_plan *plan);

#endif
