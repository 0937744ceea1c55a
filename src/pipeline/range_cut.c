/* SPDX-License-Identifier: MIT */
/* Cutting sorted inputs into key ranges at splitters (see range_cut.h). */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "range_cut.h"
#include "../common/job_context.h"

/* The (splitter, input) pairs, taken in turn by the threads. */
struct cut_jobs {
	const struct range_locator *locator;
	size_t k;
	uint64_t *bounds;
	size_t count;             /* pairs: (ranges - 1) * k */
	atomic_size_t next;
	atomic_int error;         /* the first failure, */
	atomic_size_t failed;     /* in this input */
};

/* The first failure wins. */
static void cut_jobs_fail(struct cut_jobs *jobs, int error, size_t input)
{
	int none = 0;
	if (atomic_compare_exchange_strong(&jobs->error, &none, error))
		atomic_store(&jobs->failed, input);
}

static void *cut_worker(void *context)
{
	struct cut_jobs *jobs = context;
	const struct range_locator *locator = jobs->locator;
	size_t k = jobs->k;
	void *scratch = locator->scratch_bytes ? malloc(locator->scratch_bytes) : NULL;
	if (locator->scratch_bytes && !scratch) {
		cut_jobs_fail(jobs, -ENOMEM, k);
		return NULL;
	}
	for (;;) {
		size_t at = atomic_fetch_add(&jobs->next, 1);
		if (at >= jobs->count || atomic_load(&jobs->error))
			break;
		size_t j = 1 + at / k, i = at % k;
		int error = locator->locate(locator->context, scratch, j, i, &jobs->bounds[j * k + i]);
		if (error)
			cut_jobs_fail(jobs, error, i);
	}
	free(scratch);
	return NULL;
}

int range_cut(const struct range_locator *locator, size_t k, size_t ranges, const uint64_t *ends, uint64_t *bounds,
	      size_t *failed)
{
	struct cut_jobs jobs = {.locator = locator, .k = k, .bounds = bounds, .count = (ranges - 1) * k};
	atomic_init(&jobs.next, 0);
	atomic_init(&jobs.error, 0);
	atomic_init(&jobs.failed, k);
	for (size_t i = 0; i < k; i++) {
		bounds[i] = 0;
		bounds[ranges * k + i] = ends[i];
	}
	size_t count = locator->threads > 1 ? locator->threads : 1;
	if (count > jobs.count)
		count = jobs.count;
	pthread_t *ids = count > 1 ? calloc(count, sizeof *ids) : NULL;
	size_t started = 0;
	while (ids && started + 1 < count && job_thread_create(&ids[started], cut_worker, &jobs) == 0)
		started++;
	if (jobs.count)
		cut_worker(&jobs); /* this thread too, and alone where none could start */
	for (size_t t = 0; t < started; t++)
		pthread_join(ids[t], NULL);
	free(ids);
	int error = atomic_load(&jobs.error);
	if (failed)
		*failed = error ? atomic_load(&jobs.failed) : k;
	/* kept from going down: a range never starts before the one before it */
	for (size_t j = 1; !error && j <= ranges; j++)
		for (size_t i = 0; i < k; i++)
			if (bounds[j * k + i] < bounds[(j - 1) * k + i])
				bounds[j * k + i] = bounds[(j - 1) * k + i];
	return error;
}
