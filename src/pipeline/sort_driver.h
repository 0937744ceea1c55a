/* SPDX-License-Identifier: MIT */
/* The driver both modes run, in one order: the output checked and the inputs resolved;
 * then -c, or the engine opened (its thread pool the mode's too) for -m or the sort; then
 * the teardown. A mode gives its order, how it opens its inputs and how it sorts them. */
#ifndef GPUSORT_SORT_DRIVER_H
#define GPUSORT_SORT_DRIVER_H

#include <stdbool.h>
#include <stdint.h>
#include "../common/stats.h"
#include "../common/verify.h"
#include "../../kernels/sort_engine.h"
#include "input_list.h"
#include "memory_plan.h"
#include "record_order.h"

struct sort_job;

/* What the driver holds while a mode opens and sorts its inputs. */
struct sort_drive {
	const struct sort_job *job;
	const struct input_list *inputs;
	int64_t total;            /* the inputs' bytes; -1: unknown */
	int64_t work;             /* the bytes the engine would sort (--device=auto); -1: unknown */
	bool empty;               /* no record in the inputs: the output is made empty */
	struct memory_limits memory;     /* the job's, the default budget worked out once */
	struct sort_engine_config asked; /* the job's, its threads as the memory limits allow */
	struct sort_engine *engine;
	struct thread_pool *pool; /* the engine's, which the mode's work runs on too */
	struct sort_verify verify;
	struct sort_stats stats;
};

/* What a mode's open reads of an input of unknown size (a pipe) before the engine is
 * chosen: a pipe's default capacity, one read, which holds the whole of the smallest
 * inputs. One that ends within it has a size, and a small one is not sent to a GPU
 * that would take longer to start than the sort takes. */
#define SORT_AHEAD_BYTES ((size_t)64 << 10)

/* A mode's part. */
struct sort_driver_mode {
	void *mode;
	const struct record_order *order;
	/* When not NULL: whether the records fit -S, asked by -c and -m once an input holds
	 * a record (false: reported). */
	bool (*fits)(const void *mode);
	/* With --device=auto, work below gpu_min_bytes is sorted on the CPU threads, and
	 * --verbose says small_reason. */
	int64_t gpu_min_bytes;
	const char *small_reason;
	/* Opens the inputs to sort and sets drive->total, ->work and ->empty. Returns 0, or
	 * the exit status 2 after reporting. */
	int (*open)(void *mode, struct sort_drive *drive);
	/* Sorts the inputs into the output, the engine open; returns the exit status. */
	int (*sort)(void *mode, struct sort_drive *drive);
	/* When not NULL: frees what open left. */
	void (*close)(void *mode);
};

/* Runs the job (a sort, -c or -m) through the mode. Returns the exit status. */
int sort_driver_run(const struct sort_job *job, const struct sort_driver_mode *mode);

#endif
