/* SPDX-License-Identifier: MIT */
/* The sort of either mode, once its records are in hand: each chunk of records that
 * fits the memory budget is sorted on the engine; when the whole input fits one chunk it
 * goes straight to the output, else every chunk is spilled as a run (by a spill thread
 * while the next chunk is read and sorted), the runs are merged pass by pass while they
 * exceed the fan-in, and the last merge writes the output (over key ranges in threads,
 * or one loser tree in order). A mode says how to read, sort and put out its chunks. */
#ifndef GPUSORT_SORT_CHUNKS_H
#define GPUSORT_SORT_CHUNKS_H

#include <stdbool.h>
#include <stdint.h>
#include "../common/emit_rounds.h"
#include "../common/stats.h"
#include "output_check.h"
#include "runs.h"
#include "../../kernels/sort_engine.h"
#include "memory_plan.h"
#include "record_order.h"

struct sort_verify;

/* A mode's chunks, in one buffer or two (plan->overlap) numbered 0 and 1. */
struct chunk_mode {
	void *mode;
	/* Reads records into buffer b after those carried into it, up to a chunk; returns 1
	 * when the input goes on past the chunk, 0 when it ended within it, or a negative
	 * errno, reported. Counts the read stage and the records. */
	int (*fill)(void *mode, int b);
	/* Moves what buffer from read past its chunk to the start of buffer to (or of
	 * itself); buffer from may be spilling meanwhile. Returns 0 or a negative errno,
	 * reported. */
	int (*carry)(void *mode, int from, int to);
	/* Sorts buffer b's chunk (counting the prepare and sort stages); returns 0 or a
	 * negative errno, reported. */
	int (*sort)(void *mode, int b);
	/* Puts buffer b's sorted chunk out as output says (emit_rounds.h), -u applied.
	 * Returns 0 or the sink's error. */
	int (*emit)(void *mode, int b, const struct emit_output *output);
	/* Frees both buffers (their memory goes to the merge). */
	void (*release)(void *mode);
	/* The most bytes emit puts out for buffer b's chunk. */
	uint64_t (*output_bound)(void *mode, int b);
	/* The runs the input makes, as its first chunk shows (0: unknown), which size the
	 * run blocks. */
	size_t (*expected_runs)(void *mode);
};

/* Sorts the mode's records into the output the target names; runs, when the input
 * takes more than one chunk, are written as settings say. Returns the exit status. */
int sort_chunks(const struct chunk_mode *mode, const struct record_order *order, struct sort_verify *verify,
		struct sort_engine *engine, const struct memory_plan *plan, const struct run_settings *settings,
		const struct output_target *target, struct sort_stats *stats);

#endif
