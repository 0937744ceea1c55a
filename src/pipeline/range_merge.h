/* SPDX-License-Identifier: MIT */
/* The parallel final merge: all runs cut into key ranges (the bucket sort's splitters
 * one level up) that threads merge at once, each writing at its own offset of a
 * positional output, or, for stdout and pipes, handing its blocks to the main thread,
 * which writes the ranges in order. Under -u a range's length is known only once it is
 * merged: each goes where it would start without -u, and moves down into place, where a
 * range before it dropped records, once it is written and those before it are in place
 * (while the threads merge on). */
#ifndef GPUSORT_RANGE_MERGE_H
#define GPUSORT_RANGE_MERGE_H

#include <stdbool.h>
#include "../../io/output_file.h"
#include "runs.h"
#include "memory_plan.h"
#include "record_order.h"
#include "../common/stats.h"

/* Merges every run of list (records of either mode, record_order.h) into the output
 * file (named name in messages) over key ranges in plan->threads threads, keeping the
 * first of equal records under -u; verify: the sort's self-check, or NULL. -ENOTSUP
 * (nothing written, nothing reported) when no thread can be started. The runs' files
 * are the caller's to open (run_list_attach): the threads share one descriptor per run
 * (their reads are positional), and each thread writing at offsets holds a write queue,
 * with an io_uring ring where a descriptor is left for one. */
int range_merge_into(const struct record_order *order, struct sort_verify *verify, struct run_list *list,
		     const struct memory_plan *plan, struct output_file *file, const char *name,
		     struct sort_stats *stats);

#endif
