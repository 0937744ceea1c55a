/* SPDX-License-Identifier: MIT */
/* How the memory budget (-S) is spent: chunk sizes for run formation (one chunk when the
 * input fits, else two that take turns being sorted and spilled), item buffers, the
 * input's read-ahead, and the merge's buffers and fan-in. */
#ifndef GPUSORT_MEMORY_PLAN_H
#define GPUSORT_MEMORY_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../../kernels/sort_engine.h"
#include "../binary/record_items.h"

/* What a text chunk holds for each line beside its bytes while it sorts: the line's
 * start (8 bytes), its item (12) and the engine's scratch copy of the item (12); once
 * sorted, its place in the order (8) replaces the two. (A chunk of 2^32 lines or more,
 * whose tables alone pass 128 GiB, has 16-byte items.) */
#define TEXT_LINE_COST 32

/* What a job says of memory: the plan's limits. */
struct memory_limits {
	size_t budget;        /* -S in bytes; 0: memory_budget_default() */
	size_t batch_size;    /* --batch-size: the most runs or inputs one merge takes;
	                         0: as many as the memory plan allows */
};

struct memory_plan {
	size_t budget;        /* bytes: -S, or the default */
	size_t chunk_records; /* binary records sorted at once */
	size_t chunk_bytes;   /* text: a chunk's bytes of lines plus TEXT_LINE_COST a line */
	size_t items_bytes;   /* the item array beside a chunk (0 when items are in place) */
	bool overlap;         /* two chunk buffers fit: sort one while the other spills */
	unsigned threads;     /* merge threads (--parallel, else the online cores) */
	size_t read_ahead;    /* the input's read-ahead window (set on io/ by the plan) */
	size_t batch_size;    /* --batch-size: the most runs one merge takes; 0: no limit */
};

/* The default budget, as GNU sort's default takes it: half of the memory there is
 * (physical memory, or the memory cgroup's limit where that is less), no more than
 * 15/16 of RLIMIT_RSS, and as memory_budget_fit lets it. */
size_t memory_budget_default(void);
/* A budget the process can have: no more than half of what RLIMIT_AS and RLIMIT_DATA
 * leave (the other half for what no budget counts), halved while a mapping of it fails
 * (1 MiB at least). An explicit -S is taken through it, as GNU sort's buffer is halved
 * until it can be had. */
size_t memory_budget_fit(size_t budget);
/* The threads a sort of this budget uses: asked (--parallel), else one per online core
 * but no more than 2 MiB of -S each (two at least): each thread's blocks come from it;
 * and, asked or not, no more than a bounded address space holds (RLIMIT_AS or
 * RLIMIT_DATA: one for each eight threads' stacks of it, one at least). */
unsigned memory_plan_threads(const struct memory_limits *limits, unsigned asked);

/* Sizes the input read-ahead (kept in flight per input file) to 1/16 of the budget and
 * returns it. */
size_t memory_plan_read_ahead(size_t budget);

/* The largest record the budget holds (sets *budget to the budget): binary mode checks
 * the record size against it before it plans or allocates anything. */
size_t memory_plan_record_limit(const struct memory_limits *limits, size_t *budget);

/* Plans run formation for total_bytes of input (-1 when unknown) within the limits, on
 * the engine opened with the config asked (its --parallel and --gpu-memory), and sets
 * the input read-ahead for inputs read from now on. For an unknown size the plan is
 * the most the chunks may take (two, overlapping): their buffers grow to it only as
 * records arrive (binary_sort.c). */
void memory_plan_binary(const struct memory_limits *limits, const struct sort_engine_config *asked,
			const struct record_layout *layout, const struct sort_engine *engine, int64_t total_bytes,
			struct memory_plan *plan);

/* Plans run formation for total_bytes of text (-1 when unknown) within the limits, with
 * the threads the engine config asked (--parallel). */
void memory_plan_text(const struct memory_limits *limits, const struct sort_engine_config *asked, int64_t total_bytes,
		      struct memory_plan *plan);

/* The merge: run blocks small enough that threads x fan-in blocks fit half the budget
 * (expected_runs 0 when unknown), and the fan-in those blocks allow, at most
 * --batch-size. */
size_t memory_plan_run_block_bytes(const struct memory_plan *plan, size_t expected_runs);
size_t memory_plan_merge_fan_in(const struct memory_plan *plan, size_t block_bytes);
/* The output buffer of each merge thread. */
/* Blocks a run writer holds at once (each a block handed over and its compressed
 * copy): two per compressor thread and two more, within a sixteenth of the budget, and
 * at least four (a few MiB, within the 64 MiB -S leaves to spare). */
unsigned memory_plan_run_writer_depth(const struct memory_plan *plan, size_t block_bytes);
size_t memory_plan_merge_output_bytes(const struct memory_plan *plan);

#endif
