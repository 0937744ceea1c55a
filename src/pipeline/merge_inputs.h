/* SPDX-License-Identifier: MIT */
/* -m of either mode: merges inputs that are each already sorted into the output. */
#ifndef GPUSORT_MERGE_INPUTS_H
#define GPUSORT_MERGE_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include "input_list.h"
#include "memory_plan.h"
#include "output_check.h"
#include "runs.h"
#include "record_order.h"
#include "../common/stats.h"

/* Whether the records fit the limits, asked once an input holds one: fits(arg), where
 * fits is given (false: it reported why). */
struct record_admit {
	bool (*fits)(const void *arg);
	const void *arg;
};

/* Merges the inputs listed (each read as records of the order's kind, earlier inputs
 * first among equals; -u keeps the first of equal records) into the output the target
 * names, the inputs' blocks within the limits' budget. Inputs without a record cost
 * nothing; once one holds a record, admit is asked whether to go on. Reports every failure by the file's name. More inputs than
 * limits->batch_size (--batch-size) are merged in passes through temporary runs
 * (written as settings say), as GNU sort does, with the same output. Returns the exit
 * status: 0, or 2. */
int merge_inputs(const struct record_order *order, const struct memory_limits *limits,
		 const struct run_settings *settings, const struct output_target *target,
		 const struct input_list *list, struct record_admit admit, struct sort_stats *stats);

#endif
