/* How the memory budget (-S) is spent: chunk sizes for run formation, item buffers,
 * and the merge's buffers. */
#ifndef GPUSORT_MEMORY_PLAN_H
#define GPUSORT_MEMORY_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include "../kernels/sort_engine.h"
#include "options.h"
#include "record_items.h"

struct memory_plan {
	size_t budget;        /* bytes: -S, or the default */
	size_t chunk_records; /* records sorted at once */
	size_t items_bytes;   /* the item array beside a chunk (0 when items are in place) */
};

/* The default budget: half of physical memory, as a generous GNU sort would take. */
size_t memory_budget_default(void);

/* Plans run formation for total_bytes of input (-1 when unknown). */
void memory_plan_binary(const struct options *options, const struct record_layout *layout,
			const struct sort_engine *engine, int64_t total_bytes, struct memory_plan *plan);

#endif
