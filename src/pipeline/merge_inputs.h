/* SPDX-License-Identifier: MIT */
/* -m of either mode: merges inputs that are each already sorted into the output. */
#ifndef GPUSORT_MERGE_INPUTS_H
#define GPUSORT_MERGE_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include "memory_plan.h"
#include "output_check.h"
#include "runs.h"
#include "record_order.h"
#include "../common/stats.h"

/* Merges the inputs named (each read as records of the order's kind, earlier inputs
 * first among equals; -u keeps the first of equal records) into the output the target
 * names, the inputs' blocks within the limits' budget. Inputs without a record cost
 * nothing; once one holds a record, admit(arg), where given, is asked whether to go on
 * (false: it reported why). Reports every failure by the file's name. More inputs than
 * limits->batch_size (--batch-size) are merged in passes through temporary runs
 * (written as settings say), as GNU sort does, with the same output. Returns the exit
 * status: 0, or 2. */
int merge_inputs(const struct record_order *order, const struct memory_limits *limits,
		 const struct run_settings *settings, const struct output_target *target, const char *const *names,
		 size_t count, bool (*admit)(const void *arg), const void *arg, struct sort_stats *stats);

#endif
