/* SPDX-License-Identifier: MIT */
/* The thread pool: every index of a loop runs exactly once, on more than one thread
 * when the pool has several, nested loops run inline, and loops from several outside
 * threads take turns without losing indices; workers start only as loops have indices for
 * them. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "kernels/thread_pool.h"
#include "tests/tap.h"

struct count_job {
	atomic_uint *hits;
	atomic_ulong sum;
};

static void count_index(void *context, size_t index)
{
	struct count_job *job = context;
	atomic_fetch_add(&job->hits[index], 1);
	atomic_fetch_add(&job->sum, index);
}

/* Runs a loop of `count` and checks each index ran once. */
static bool loop_runs_each_index_once(struct thread_pool *pool, size_t count)
{
	struct count_job job;
	bool once = true;
	job.hits = calloc(count + 1, sizeof(*job.hits));
	atomic_init(&job.sum, 0);
	thread_pool_parallel_for(pool, count, count_index, &job);
	for (size_t i = 0; i < count; i++)
		once = once && atomic_load(&job.hits[i]) == 1;
	once = once && atomic_load(&job.sum) == (count > 0 ? count * (count - 1) / 2 : 0);
	free(job.hits);
	return once;
}

/* Records which threads ran a loop; slow bodies give each thread time to join. */
struct thread_job {
	pthread_mutex_t lock;
	pthread_t seen[8];
	unsigned distinct;
};

static void note_thread(void *context, size_t index)
{
	struct thread_job *job = context;
	struct timespec pause = { 0, 2000000 };
	(void)index;
	nanosleep(&pause, NULL);
	pthread_mutex_lock(&job->lock);
	bool known = false;
	for (unsigned i = 0; i < job->distinct; i++)
		known = known || pthread_equal(job->seen[i], pthread_self());
	if (!known && job->distinct < 8)
		job->seen[job->distinct++] = pthread_self();
	pthread_mutex_unlock(&job->lock);
}

struct nested_job {
	struct thread_pool *pool;
	atomic_uint inner_runs;
};

static void inner_body(void *context, size_t index)
{
	struct nested_job *job = context;
	(void)index;
	atomic_fetch_add(&job->inner_runs, 1);
}

static void outer_body(void *context, size_t index)
{
	struct nested_job *job = context;
	(void)index;
	thread_pool_parallel_for(job->pool, 10, inner_body, job);
}

struct caller_job {
	struct thread_pool *pool;
	bool ok;
};

static void *caller_main(void *arg)
{
	struct caller_job *job = arg;
	job->ok = true;
	for (int round = 0; round < 50; round++)
		job->ok = job->ok && loop_runs_each_index_once(job->pool, 1000);
	return NULL;
}

int main(void)
{
	struct thread_pool *pool = NULL;
	tap_plan(15);

	tap_ok(thread_pool_create(4, &pool) == 0 && pool, "create a pool of 4 threads");
	tap_ok(thread_pool_size(pool) == 4, "its size is 4");
	tap_ok(loop_runs_each_index_once(pool, 0), "an empty loop runs nothing");
	tap_ok(loop_runs_each_index_once(pool, 1), "a loop of 1 runs its index once");
	tap_ok(loop_runs_each_index_once(pool, 100003), "a loop of 100003 runs each index once");

	bool repeated = true;
	for (int round = 0; round < 200; round++)
		repeated = repeated && loop_runs_each_index_once(pool, 37);
	tap_ok(repeated, "200 loops in a row each run every index once");

	struct thread_job threads = { .lock = PTHREAD_MUTEX_INITIALIZER };
	thread_pool_parallel_for(pool, 64, note_thread, &threads);
	tap_ok(threads.distinct >= 2, "a loop of slow bodies runs on %u threads (>= 2)",
	       threads.distinct);

	struct nested_job nested = { .pool = pool };
	atomic_init(&nested.inner_runs, 0);
	thread_pool_parallel_for(pool, 20, outer_body, &nested);
	tap_ok(atomic_load(&nested.inner_runs) == 200, "nested loops run inline: 20 x 10 bodies");

	struct caller_job callers[3];
	pthread_t ids[3];
	for (int i = 0; i < 3; i++) {
		callers[i].pool = pool;
		pthread_create(&ids[i], NULL, caller_main, &callers[i]);
	}
	bool all = true;
	for (int i = 0; i < 3; i++) {
		pthread_join(ids[i], NULL);
		all = all && callers[i].ok;
	}
	tap_ok(all, "loops from 3 outside threads take turns and run every index once");
	thread_pool_destroy(pool);

	pool = NULL;
	int created = thread_pool_create(0, &pool);
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	tap_ok(created == 0 && pool && (long)thread_pool_size(pool) == (online > 0 ? online : 1),
	       "a pool of 0 threads takes the %ld online cores", online);
	tap_ok(loop_runs_each_index_once(pool, 5000), "and runs a loop");
	thread_pool_destroy(pool);

	pool = NULL;
	tap_ok(thread_pool_create(1000, &pool) == 0 && thread_pool_size(pool) == 1000 &&
	       thread_pool_started(pool) == 1, "a pool of 1000 threads starts none before a loop");
	bool small = loop_runs_each_index_once(pool, 1) && loop_runs_each_index_once(pool, 2);
	tap_ok(small && thread_pool_started(pool) <= 2, "loops of 1 and 2 run on %u threads (<= 2)",
	       thread_pool_started(pool));
	tap_ok(loop_runs_each_index_once(pool, 5) && thread_pool_started(pool) <= 5,
	       "a loop of 5 then runs on %u threads (<= 5)", thread_pool_started(pool));
	thread_pool_destroy(pool);

	tap_ok(loop_runs_each_index_once(NULL, 777) && thread_pool_size(NULL) == 1,
	       "a NULL pool runs the loop on the caller");
	return tap_done();
}
