/* SPDX-License-Identifier: MIT */
/* Binary record mode: the sort of fixed-size records by a binary key. */
#ifndef GPUSORT_BINARY_SORT_H
#define GPUSORT_BINARY_SORT_H

#include <stdbool.h>
#include "../../kernels/sort_engine.h"
#include "../binary/record_items.h"
#include "../common/stats.h"
#include "memory_plan.h"

struct sort_job;

/* Runs the job's whole binary sort (or -c check, or -m merge); returns the exit
 * status. The entry's (sort_job.h). */
int binary_sort_run(const struct sort_job *job);

/* Whether a record fits the memory budget at all (checked once the input is known to
 * hold one); if not, reports which option made it that big (record_size_option). */
bool binary_record_fits(const struct memory_limits *limits, const char *record_size_option,
			const struct record_layout *layout);

/* Sorts one chunk: builds items (in records for in-place forms, else in items_buffer),
 * sorts them on the engine and finishes prefix ties. Returns 0 or a negative errno. */
int binary_sort_chunk(struct sort_engine *engine, const struct record_layout *layout,
		      unsigned char *records, size_t n, void *items_buffer, enum record_form *form,
		      struct sort_stats *stats);

#endif
