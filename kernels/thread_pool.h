/* SPDX-License-Identifier: MIT */
/* A small pthread pool for data-parallel loops: parallel_for hands the indices of a
 * range to the pool's threads (the caller works too) and returns when all are done.
 * The CPU sort backend runs every step of its algorithms through it. */
#ifndef GPUSORT_THREAD_POOL_H
#define GPUSORT_THREAD_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct thread_pool;

/* Makes a pool of up to `threads` threads, the caller counted as one (0: the online
 * cores). Its workers start as loops first have indices for them, and where one cannot
 * start (no process left) the pool goes on with those it has, down to the caller alone.
 * Returns 0 or -ENOMEM. */
int thread_pool_create(unsigned threads, struct thread_pool **pool);
void thread_pool_destroy(struct thread_pool *pool);
/* Each worker started from now on first calls enter(context) on its own thread (to
 * take on its owner's per-thread state). NULL pool: nothing. */
void thread_pool_set_enter(struct thread_pool *pool, void (*enter)(void *context), void *context);
/* stopped() says, on any of the pool's threads, whether its owner's work is to stop
 * (a cancelled job); loops that can end early ask thread_pool_stopped. */
void thread_pool_set_stop(struct thread_pool *pool, bool (*stopped)(void));
/* Whether the pool's owner asked to stop; false for a NULL pool or without a hook. */
bool thread_pool_stopped(const struct thread_pool *pool);
/* Where the sorts run on the pool count their steps as they go (a sort of n items makes
 * n in all), for a progress display; NULL: nowhere. thread_pool_progress adds to it from
 * any thread. */
#ifndef __cplusplus /* C's atomics; the CUDA module reports no steps of its own */
#include <stdatomic.h>
void thread_pool_set_progress(struct thread_pool *pool, atomic_uint_least64_t *steps);
#endif
void thread_pool_progress(struct thread_pool *pool, uint64_t steps);

/* The most threads that run a loop, the caller included; 1 for a NULL pool. Work split
 * into this many pieces keeps every thread busy; it drops when a worker cannot start. */
unsigned thread_pool_size(const struct thread_pool *pool);
/* The threads that have run a loop so far, the caller included. */
unsigned thread_pool_started(const struct thread_pool *pool);

/* Runs fn(ctx, i) for every i in [0, count) on the pool's threads and waits for all.
 * Indices are handed out one at a time in increasing order, so uneven work balances.
 * A NULL pool, or a call made from inside a running loop, runs the loop on the calling
 * thread. Calls from several outside threads take turns. */
void thread_pool_parallel_for(struct thread_pool *pool, size_t count,
			      void (*fn)(void *ctx, size_t index), void *ctx);

/* The two calls for code that is handed them instead of linked with them (the CUDA
 * module, kernels/gpu_module.h), so that its loops run on this very pool. */
struct thread_pool_calls {
	void (*parallel_for)(struct thread_pool *pool, size_t count, void (*fn)(void *ctx, size_t index),
			     void *ctx);
	bool (*stopped)(const struct thread_pool *pool);
};
extern const struct thread_pool_calls thread_pool_calls;

#endif
