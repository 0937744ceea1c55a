/* SPDX-License-Identifier: MIT */
/* The pthread pool behind thread_pool.h. Workers sleep on a condition variable until a
 * loop is posted (a generation counter tells them a new one arrived), take indices from
 * an atomic counter, and the last one out wakes the caller. Workers start when a loop
 * first has the indices for them, and a worker that cannot start (no process left:
 * RLIMIT_NPROC, or no address space for its stack) lowers the pool's size for good. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include "thread_pool.h"

struct pool_worker {
	pthread_t thread;
	struct thread_pool *pool;
	unsigned long seen; /* the last loop it ran (or that was posted before it started) */
};

struct thread_pool {
	unsigned size;          /* the most threads a loop runs on, the caller included */
	unsigned started;       /* workers running, size - 1 at most */
	struct pool_worker *workers;
	pthread_mutex_t lock;   /* guards the fields below down to `stopping` */
	pthread_cond_t posted;  /* a new loop (or stop) for the workers */
	pthread_cond_t drained; /* the last worker left the current loop */
	unsigned long generation;
	unsigned busy_workers;  /* workers still inside the current loop */
	bool stopping;
	pthread_mutex_t caller_turn; /* one loop at a time from outside threads */
	void (*enter)(void *context); /* run by each worker as it starts (thread_pool_set_enter) */
	void *enter_context;
	bool (*stopped)(void); /* whether the owner's work is to stop (thread_pool_set_stop) */
	_Atomic(atomic_uint_least64_t *) progress; /* where loops count their steps, or NULL */
	/* the current loop */
	void (*fn)(void *ctx, size_t index);
	void *ctx;
	size_t count;
	atomic_size_t next;
};

/* Set while a thread runs loop bodies, so a nested loop runs inline instead of
 * waiting for threads that are all busy with the outer one. */
static _Thread_local bool inside_loop;

static void run_indices(struct thread_pool *pool)
{
	bool was_inside = inside_loop;
	inside_loop = true;
	for (;;) {
		size_t index = atomic_fetch_add_explicit(&pool->next, 1, memory_order_relaxed);
		if (index >= pool->count)
			break;
		pool->fn(pool->ctx, index);
	}
	inside_loop = was_inside;
}

static void *worker_main(void *arg)
{
	struct pool_worker *worker = arg;
	struct thread_pool *pool = worker->pool;
	if (pool->enter)
		pool->enter(pool->enter_context);

	pthread_mutex_lock(&pool->lock);
	for (;;) {
		while (!pool->stopping && pool->generation == worker->seen)
			pthread_cond_wait(&pool->posted, &pool->lock);
		if (pool->stopping)
			break;
		worker->seen = pool->generation;
		pthread_mutex_unlock(&pool->lock);
		run_indices(pool);
		pthread_mutex_lock(&pool->lock);
		if (--pool->busy_workers == 0)
			pthread_cond_signal(&pool->drained);
	}
	pthread_mutex_unlock(&pool->lock);
	return NULL;
}

/* Starts workers until `wanted` run (called with caller_turn held, between loops); where
 * one cannot start, the pool keeps the threads it has, down to the caller alone. */
static void start_workers(struct thread_pool *pool, unsigned wanted)
{
	while (pool->started < wanted) {
		struct pool_worker *worker = &pool->workers[pool->started];
		*worker = (struct pool_worker){.pool = pool, .seen = pool->generation};
		if (pthread_create(&worker->thread, NULL, worker_main, worker) != 0) {
			__atomic_store_n(&pool->size, pool->started + 1, __ATOMIC_RELAXED);
			return;
		}
		__atomic_store_n(&pool->started, pool->started + 1, __ATOMIC_RELAXED);
	}
}

int thread_pool_create(unsigned threads, struct thread_pool **result)
{
	struct thread_pool *pool;

	if (threads == 0) {
		long online = sysconf(_SC_NPROCESSORS_ONLN);
		threads = online > 0 ? (unsigned)online : 1;
	}
	pool = calloc(1, sizeof(*pool));
	if (!pool)
		return -ENOMEM;
	pool->workers = calloc(threads, sizeof(*pool->workers));
	if (!pool->workers) {
		free(pool);
		return -ENOMEM;
	}
	pthread_mutex_init(&pool->lock, NULL);
	pthread_mutex_init(&pool->caller_turn, NULL);
	pthread_cond_init(&pool->posted, NULL);
	pthread_cond_init(&pool->drained, NULL);
	atomic_init(&pool->next, 0);
	pool->size = threads;
	*result = pool;
	return 0;
}

void thread_pool_set_enter(struct thread_pool *pool, void (*enter)(void *context), void *context)
{
	if (!pool)
		return;
	pthread_mutex_lock(&pool->caller_turn);
	pool->enter = enter;
	pool->enter_context = context;
	pthread_mutex_unlock(&pool->caller_turn);
}

void thread_pool_set_stop(struct thread_pool *pool, bool (*stopped)(void))
{
	if (!pool)
		return;
	pthread_mutex_lock(&pool->caller_turn);
	pool->stopped = stopped;
	pthread_mutex_unlock(&pool->caller_turn);
}

void thread_pool_set_progress(struct thread_pool *pool, atomic_uint_least64_t *steps)
{
	if (pool)
		atomic_store(&pool->progress, steps);
}

void thread_pool_progress(struct thread_pool *pool, uint64_t steps)
{
	atomic_uint_least64_t *counter = pool ? atomic_load_explicit(&pool->progress, memory_order_relaxed) : NULL;
	if (counter)
		atomic_fetch_add_explicit(counter, steps, memory_order_relaxed);
}

bool thread_pool_stopped(const struct thread_pool *pool)
{
	return pool && pool->stopped && pool->stopped();
}

void thread_pool_destroy(struct thread_pool *pool)
{
	if (!pool)
		return;
	pthread_mutex_lock(&pool->lock);
	pool->stopping = true;
	pthread_cond_broadcast(&pool->posted);
	pthread_mutex_unlock(&pool->lock);
	for (unsigned i = 0; i < pool->started; i++)
		pthread_join(pool->workers[i].thread, NULL);
	pthread_cond_destroy(&pool->drained);
	pthread_cond_destroy(&pool->posted);
	pthread_mutex_destroy(&pool->caller_turn);
	pthread_mutex_destroy(&pool->lock);
	free(pool->workers);
	free(pool);
}

unsigned thread_pool_size(const struct thread_pool *pool)
{
	return pool ? __atomic_load_n(&pool->size, __ATOMIC_RELAXED) : 1;
}

unsigned thread_pool_started(const struct thread_pool *pool)
{
	return pool ? __atomic_load_n(&pool->started, __ATOMIC_RELAXED) + 1 : 1;
}

static void run_inline(size_t count, void (*fn)(void *ctx, size_t index), void *ctx)
{
	bool was_inside = inside_loop;
	inside_loop = true;
	for (size_t i = 0; i < count; i++)
		fn(ctx, i);
	inside_loop = was_inside;
}

void thread_pool_parallel_for(struct thread_pool *pool, size_t count,
			      void (*fn)(void *ctx, size_t index), void *ctx)
{
	if (count == 0)
		return;
	if (!pool || thread_pool_size(pool) == 1 || count == 1 || inside_loop) {
		run_inline(count, fn, ctx);
		return;
	}
	pthread_mutex_lock(&pool->caller_turn);
	/* a worker for each index beyond the caller's, as far as the pool goes */
	unsigned wanted = count < pool->size ? (unsigned)count - 1 : pool->size - 1;
	if (pool->started < wanted)
		start_workers(pool, wanted);
	if (pool->started == 0) {
		pthread_mutex_unlock(&pool->caller_turn);
		run_inline(count, fn, ctx);
		return;
	}
	pthread_mutex_lock(&pool->lock);
	pool->fn = fn;
	pool->ctx = ctx;
	pool->count = count;
	atomic_store_explicit(&pool->next, 0, memory_order_relaxed);
	pool->busy_workers = pool->started;
	pool->generation++;
	pthread_cond_broadcast(&pool->posted);
	pthread_mutex_unlock(&pool->lock);

	run_indices(pool);

	pthread_mutex_lock(&pool->lock);
	while (pool->busy_workers > 0)
		pthread_cond_wait(&pool->drained, &pool->lock);
	pthread_mutex_unlock(&pool->lock);
	pthread_mutex_unlock(&pool->caller_turn);
}

const struct thread_pool_calls thread_pool_calls = {thread_pool_parallel_for, thread_pool_stopped};
