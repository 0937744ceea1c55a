/* SPDX-License-Identifier: MIT */
/* The sort of either mode's chunks (see sort_chunks.h). */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include "range_merge.h"
#include "../../io/cache_budget.h"
#include "../../io/file_map.h"
#include "../common/environment.h"
#include "../common/report.h"
#include "record_output.h"
#include "runs.h"
#include "sort_chunks.h"
#include "../common/verify.h"
#include "../common/job_context.h"

/* An in-memory sort's output is written by pwrite, which takes the file's lock in turn,
 * or through a mapping (io/file_map.h), whose page faults cost more than the copies into
 * it when taken as the copies go. While the GPU sorts, the cores are free to take those
 * faults ahead: an output of OUTPUT_MAP_MIN_BYTES or more is then mapped and faulted in
 * during the sort by FILE_PREFAULT_THREADS threads. Not beside a sort on the CPU
 * threads, where they compete, nor for outputs larger than the dirty bytes at which the
 * kernel starts writing back in the background (io/cache_budget.h's
 * dirty_background_room), which go at the disk's pace either way. A tmpfs output (a
 * distributed sort's rank writing its sorted share) has no write-back and is mapped at
 * any size, as pwrite into a tmpfs file takes its lock in turn too. Measurements:
 * bench/RESULTS.md. GPUSORT_OUTPUT_MAP=1 maps and faults in at any size. */
#define OUTPUT_MAP_MIN_BYTES ((uint64_t)256 << 20)

/* The output of an input that is one chunk: opened, and where large, allocated and
 * mapped, before the chunk sorts, so that threads (io/file_map.h's) fault its pages in
 * meanwhile; the pool's threads fault in the rest as they copy. */
struct chunk_output {
	struct record_output output;
	record_sink_at sink_at;
	bool csv_decode; /* the emit decodes --csv's records (on the pool), not the output */
};

/* Opens the output (counted in the write stage); one of the size above, beside the GPU,
 * and of at most a quarter of -S (the mapped pages count as the process's, beside the
 * chunk's buffers) is mapped and its pages faulted in by threads until
 * the write stops them. */
static int chunk_output_open(const struct chunk_mode *mode, const struct record_order *order,
			     struct sort_verify *verify, const struct sort_engine *engine,
			     const struct memory_plan *plan, const struct output_target *target,
			     struct sort_stats *stats, struct chunk_output *out)
{
	double started = stats_now();
	*out = (struct chunk_output){0};
	int error = record_output_open(&out->output, order, target, stats);
	if (error)
		return error;
	out->output.verify = verify;
	out->csv_decode = record_output_take_csv_decoding(&out->output);
	out->sink_at = record_output_sink_at(&out->output);
	uint64_t bound = mode->output_bound(mode->mode, 0);
	/* beside the GPU, on a tmpfs or within the kernel's background-writeback room (read
	 * from /proc only for an output large enough to map) */
	bool map_by_default = sort_engine_may_use_gpu(engine) && bound >= OUTPUT_MAP_MIN_BYTES &&
			      (record_output_in_memory(&out->output) || bound <= dirty_background_room());
	if (out->sink_at && file_map_wanted(environment_switch(ENVIRONMENT_OUTPUT_MAP), bound,
					    map_by_default ? OUTPUT_MAP_MIN_BYTES : UINT64_MAX) &&
	    bound <= plan->budget / 4) {
		if ((error = record_output_map(&out->output, bound)) != 0)
			return record_output_finish(&out->output, error);
		record_output_prefault_start(&out->output);
	}
	stats_add(stats, STAGE_WRITE, started, 0);
	return 0;
}

/* The whole input was one chunk, sorted (error: or not): it goes to the output, which
 * is committed, or aborted on an error. The write stage is all of it from here: putting
 * the records out, writing, commit. */
static int chunk_output_write(const struct chunk_mode *mode, struct chunk_output *out, int error,
			      struct sort_stats *stats)
{
	double started = stats_now(), recorded = stats_seconds_recorded(stats);
	record_output_prefault_stop(&out->output);
	if (!error) {
		const struct emit_output output = {record_output_write, out->sink_at, &out->output, true, NULL,
						   out->csv_decode};
		error = mode->emit(mode->mode, 0, &output);
		/* an error of the emit itself (not of a write) still needs its message */
		if (error && !out->output.reported)
			record_output_report(&out->output, error);
	}
	error = record_output_finish(&out->output, error);
	stats_add_enclosing(stats, STAGE_WRITE, started, recorded, 0);
	return error;
}

/* One sorted chunk spilled as a run (on the spill thread, or in line). */
struct spill_job {
	const struct chunk_mode *mode;
	int buffer;
	const struct record_order *order;
	struct run_list *list;
	size_t block_bytes;
	struct sort_stats *stats;
	int error;
};

static int spill(struct spill_job *job)
{
	double started = stats_now();
	struct run_sink sink;
	int error = run_begin(job->list, job->order, job->block_bytes, &sink, job->stats);
	if (error)
		return error;
	const struct emit_output output = {run_sink_write, NULL, &sink, false, NULL, false};
	error = job->mode->emit(job->mode->mode, job->buffer, &output);
	error = run_end(job->list, &sink, error); /* reports, by the run's name */
	stats_add(job->stats, STAGE_SPILL, started, error ? 0 : job->list->runs[job->list->count - 1].bytes);
	return error;
}

static void *spill_thread_main(void *context)
{
	struct spill_job *job = context;
	job->error = spill(job);
	return NULL;
}

/* Run formation: chunk after chunk sorted and spilled; more: whether the input goes on
 * past the chunk already read into buffer 0. */
static int form_runs(const struct chunk_mode *mode, const struct record_order *order, const struct memory_plan *plan,
		     size_t block_bytes, struct run_list *list, int more, struct sort_stats *stats)
{
	struct spill_job job = {mode, 0, order, list, block_bytes, stats, 0};
	pthread_t spill_thread;
	bool spilling = false, last = false;
	int current = 0, error = 0;
	while (!last && !error) {
		last = !more;
		if ((error = mode->sort(mode->mode, current)) != 0)
			break;
		if (spilling) {
			pthread_join(spill_thread, NULL);
			spilling = false;
			if ((error = job.error) != 0)
				break;
		}
		int next = plan->overlap ? 1 - current : current;
		job.buffer = current;
		if (!plan->overlap || last || job_thread_create(&spill_thread, spill_thread_main, &job) != 0) {
			if ((error = spill(&job)) != 0)
				break;
		} else {
			spilling = true;
		}
		if (last)
			break;
		/* with one buffer, its read-past records move to its start once it has spilled */
		if ((error = mode->carry(mode->mode, current, next)) != 0)
			break;
		more = mode->fill(mode->mode, next);
		if (more < 0)
			error = more;
		else if (!more)
			stats_progress_read_all(stats);
		current = next;
	}
	if (spilling) {
		pthread_join(spill_thread, NULL);
		if (!error)
			error = job.error;
	}
	return error;
}

/* The last merge, of every run into the output. The runs are opened first (and their
 * `PROG -d`s started): what the output opens beside what it needs (its ring) takes
 * only the descriptors they leave. */
static int merge_into_output(const struct record_order *order, struct sort_verify *verify, struct run_list *list,
			     const struct memory_plan *plan, size_t block_bytes, const struct output_target *target,
			     struct sort_stats *stats)
{
	/* the ranges are written at their offsets: not where lines are annotated */
	/* nor where runs come back through `PROG -d`, from their start only */
	bool ranges = plan->threads > 1 && !order->annotate && !run_list_program(list);
	struct run_merge *merge = NULL;
	int error = ranges ? run_list_attach(list, 0, list->count) : merge_runs_begin(list, 0, list->count, &merge, NULL);
	if (error)
		return error;
	struct record_output output;
	if ((error = record_output_open(&output, order, target, stats)) != 0) {
		merge_runs_end(merge);
		run_list_detach(list, 0, list->count);
		return error;
	}
	output.verify = verify;
	double started = stats_now(), recorded = stats_seconds_recorded(stats);
	error = ranges ? range_merge_into(order, verify, list, plan, output.file, output.name, stats) : -ENOTSUP;
	if (error == -ENOTSUP) { /* in one merge: no threads for the ranges, or none wanted */
		error = merge ? 0 : merge_runs_begin(list, 0, list->count, &merge, NULL);
		size_t output_bytes = memory_plan_merge_output_bytes(plan);
		if (!error)
			error = merge_runs_into(merge, order, verify, true,
						output_bytes > block_bytes ? output_bytes : block_bytes, record_output_write,
						&output, NULL);
	}
	stats->merge_passes++;
	merge_runs_end(merge);
	run_list_detach(list, 0, list->count);
	error = record_output_finish(&output, error);
	/* the output's writes counted in the write stage */
	stats_add_enclosing(stats, STAGE_MERGE, started, recorded, run_list_bytes(list));
	return error;
}

int sort_chunks(const struct chunk_mode *mode, const struct record_order *order, struct sort_verify *verify,
		struct sort_engine *engine, const struct memory_plan *plan, const struct run_settings *settings,
		const struct output_target *target, struct sort_stats *stats)
{
	int more = mode->fill(mode->mode, 0), error;
	if (more < 0)
		return 2;
	if (!more)
		stats_progress_read_all(stats);
	if (!more) {
		/* in memory, records are checked by their positions (verify.h) */
		verify->by_position = true;
		struct chunk_output out;
		if ((error = chunk_output_open(mode, order, verify, engine, plan, target, stats, &out)) != 0)
			return 2;
		error = mode->sort(mode->mode, 0);
		/* the one sort is done: the GPU's teardown overlaps the write */
		sort_engine_release_gpu(engine);
		error = chunk_output_write(mode, &out, error, stats);
		return error ? 2 : 0;
	}
	stats_progress_spills(stats);
	size_t block_bytes = memory_plan_run_block_bytes(plan, mode->expected_runs(mode->mode));
	struct run_list list = {NULL, 0, plan->threads, memory_plan_run_writer_depth(plan, block_bytes), {0}, settings, 0};
	error = form_runs(mode, order, plan, block_bytes, &list, more, stats);
	mode->release(mode->mode); /* the chunks' memory is the merge's now */
	/* as many runs at once as memory and the descriptors free allow (-o: the file and
	 * its temp twin, made at once beside the runs) */
	unsigned merges = plan->threads;
	size_t last, output_descriptors =
		target->name && strcmp(target->name, "-") != 0 && !target->to_fd ? 2 : 0;
	size_t fan_in = run_list_fan_in(&list, memory_plan_merge_fan_in(plan, block_bytes), output_descriptors,
					&merges, &last);
	if (!error)
		error = merge_passes(order, verify, &list, fan_in, last, block_bytes, merges, stats);
	if (!error)
		error = merge_into_output(order, verify, &list, plan, block_bytes, target, stats);
	run_list_remove_all(&list, stats);
	return error ? 2 : 0;
}
