/* SPDX-License-Identifier: MIT */
/* Merge passes (see runs.h, merge_passes): groups of runs merged into fewer, longer
 * runs, several groups at once on threads of their own, until few enough are left for
 * the last merge. */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "runs.h"
#include "../common/report.h"
#include "../common/job_context.h"

/* One merge pass: groups of fan_in runs of list merged into the runs of merged, one
 * group per thread at a time; merged holds a slot per group, in group order, so equal
 * records keep the order of the runs they came from (stability). */
struct merge_pass {
	const struct record_order *order;
	struct sort_verify *verify;
	struct run_list *list, *merged;
	size_t fan_in, block_bytes;
	struct sort_stats *stats;
	pthread_mutex_t lock;       /* a group's start, the run files' finishing: merged, stats, error */
	size_t next_group;
	int error;
};

static int merge_pass_group(struct merge_pass *pass, size_t group)
{
	size_t first = group * pass->fan_in, count = pass->list->count;
	size_t k = count - first < pass->fan_in ? count - first : pass->fan_in;
	/* The runs read are opened (their `PROG -d`s started) before the run written is
	 * made: what its writer opens beside its file (a ring, or PROG's pipe, without
	 * which it is stored as it is) takes only the descriptors they leave. */
	/* Under the lock, once another group failed (its failure reported) none starts: a
	 * limit that fails one (descriptors, processes) would fail the others alike. */
	struct run_merge *merge = NULL;
	struct run_sink sink;
	size_t failed;
	pthread_mutex_lock(&pass->lock);
	int error = pass->error ? -ECANCELED : merge_runs_begin(pass->list, first, k, &merge, &failed);
	if (!error && (error = run_begin_at(pass->merged, group, pass->order, pass->block_bytes, &sink, pass->stats)))
		merge_runs_end(merge);
	if (error && !pass->error)
		pass->error = error;
	pthread_mutex_unlock(&pass->lock);
	if (error)
		return error;
	error = merge_runs_into(merge, pass->order, pass->verify, false, pass->block_bytes, run_sink_write, &sink,
				&failed);
	merge_runs_end(merge);
	if (error && failed < k) {
		run_abandon(&sink); /* the run that failed has said why */
		return error;
	}
	pthread_mutex_lock(&pass->lock);
	error = run_end(pass->merged, &sink, error);
	pthread_mutex_unlock(&pass->lock);
	return error;
}

static void *merge_pass_main(void *context)
{
	struct merge_pass *pass = context;
	pthread_mutex_lock(&pass->lock);
	while (!pass->error && pass->next_group < pass->merged->count) {
		size_t group = pass->next_group++;
		pthread_mutex_unlock(&pass->lock);
		int error = merge_pass_group(pass, group);
		pthread_mutex_lock(&pass->lock);
		if (error && !pass->error)
			pass->error = error;
	}
	pthread_mutex_unlock(&pass->lock);
	return NULL;
}

/* One pass over list into merged, on up to threads threads (the caller is one). */
static int merge_pass_run(struct merge_pass *pass, unsigned threads)
{
	size_t groups = pass->merged->count;
	if (threads > groups)
		threads = (unsigned)groups;
	if (threads < 1)
		threads = 1;
	pthread_t *helpers = calloc(threads, sizeof *helpers);
	size_t started = 0;
	for (unsigned i = 1; helpers && i < threads; i++) {
		if (job_thread_create(&helpers[started], merge_pass_main, pass) != 0)
			break;
		started++;
	}
	merge_pass_main(pass);
	for (size_t i = 0; i < started; i++)
		pthread_join(helpers[i], NULL);
	free(helpers);
	return pass->error;
}

int merge_passes(const struct record_order *order, struct sort_verify *verify, struct run_list *list,
		 size_t fan_in, size_t last, size_t block_bytes, unsigned threads, struct sort_stats *stats)
{
	if (fan_in < 2)
		fan_in = 2;
	if (last > fan_in)
		last = fan_in;
	while (list->count > last) {
		double started = stats_now();
		uint64_t pass_bytes = run_list_bytes(list);
		size_t groups = (list->count + fan_in - 1) / fan_in;
		unsigned parallel = threads < groups ? threads : (unsigned)groups;
		if (parallel < 1)
			parallel = 1;
		/* the threads share the compressors and the writers' memory */
		unsigned writer_threads = list->writer_threads / parallel, writer_depth = list->writer_depth / parallel;
		struct run_list merged = {calloc(groups, sizeof *merged.runs), groups,
					  list->writer_threads, list->writer_depth, list->level, list->settings,
					  list->cached_bytes};
		merged.writer_threads = writer_threads ? writer_threads : 1;
		merged.writer_depth = writer_depth;
		int error = merged.runs ? 0 : -ENOMEM;
		for (size_t g = 0; g < groups && !error; g++)
			merged.runs[g] = (struct run){.fd = -1, .child = {0, -1}};
		if (!error) {
			struct merge_pass pass = {order, verify, list, &merged, fan_in, block_bytes, stats,
						  PTHREAD_MUTEX_INITIALIZER, 0, 0};
			error = merge_pass_run(&pass, parallel);
			pthread_mutex_destroy(&pass.lock);
		} else {
			merged.count = 0;
			report_errno(-ENOMEM);
		}
		merged.writer_threads = list->writer_threads;
		merged.writer_depth = list->writer_depth;
		run_list_remove_all(list, stats);
		*list = merged;
		stats->merge_passes++;
		stats_add(stats, STAGE_MERGE, started, pass_bytes);
		if (error)
			return error;
	}
	return 0;
}
