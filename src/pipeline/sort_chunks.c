/* The sort of either mode's chunks (see sort_chunks.h). */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include "range_merge.h"
#include "../../io/file_map.h"
#include "../common/report.h"
#include "record_output.h"
#include "runs.h"
#include "sort_chunks.h"
#include "../common/verify.h"

/* Outputs from this size up are written through a mapping (io/file_map.h). On the H100
 * machine (bench/RESULTS.md) the write stage of 16 GiB of u64 took 4.08 s against
 * 8.96 s by pwrite, and of 2 GiB 1.02-1.09 s against 0.65-1.16 s: the mapping's fixed
 * costs (allocating, unmapping) win back only on large outputs. */
#define OUTPUT_MAP_MIN_BYTES ((uint64_t)4 << 30)

/* The whole input was one chunk, sorted: it goes to the output. The write stage is all
 * of it: opening, putting the records out, writing, commit. A large output of at most a
 * quarter of -S is mapped while its pieces are written (the mapped pages count as the
 * process's, beside the chunk's buffers). */
static int write_chunk(const struct chunk_mode *mode, const struct record_order *order, struct sort_verify *verify,
		       const struct memory_plan *plan, const struct output_target *target, struct sort_stats *stats)
{
	double started = stats_now(), recorded = stats_seconds_recorded(stats);
	struct record_output output;
	int error = record_output_open(&output, order, target, stats);
	if (error)
		return error;
	output.verify = verify;
	record_sink_at sink_at = record_output_sink_at(&output);
	uint64_t bound = mode->output_bound(mode->mode, 0);
	if (sink_at && file_map_wanted(bound, OUTPUT_MAP_MIN_BYTES) && bound <= plan->budget / 4 &&
	    (error = record_output_map(&output, bound)) != 0)
		return record_output_finish(&output, error);
	error = mode->emit(mode->mode, 0, true, record_output_write, sink_at, &output);
	/* an error of the emit itself (not of a write) still needs its message */
	if (error && !output.reported)
		report_file_failure("write failed", output.name, error);
	error = record_output_finish(&output, error);
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
	error = job->mode->emit(job->mode->mode, job->buffer, false, run_sink_write, NULL, &sink);
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
		if (!plan->overlap || last || pthread_create(&spill_thread, NULL, spill_thread_main, &job) != 0) {
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
		current = next;
	}
	if (spilling) {
		pthread_join(spill_thread, NULL);
		if (!error)
			error = job.error;
	}
	return error;
}

/* The last merge, of every run into the output. */
static int merge_into_output(const struct record_order *order, struct sort_verify *verify, struct run_list *list,
			     const struct memory_plan *plan, size_t block_bytes, const struct output_target *target,
			     struct sort_stats *stats)
{
	struct record_output output;
	int error = record_output_open(&output, order, target, stats);
	if (error)
		return error;
	output.verify = verify;
	double started = stats_now(), recorded = stats_seconds_recorded(stats);
	error = -ENOTSUP;
	/* the ranges are written at their offsets: not where lines are annotated */
	/* nor where runs come back through `PROG -d`, from their start only */
	if (plan->threads > 1 && !output.annotated && !run_list_program(list))
		error = range_merge_into(order, verify, list, plan, output.file, output.name, stats);
	if (error == -ENOTSUP) {
		size_t output_bytes = memory_plan_merge_output_bytes(plan);
		error = merge_runs(order, verify, true, list, 0, list->count,
				   output_bytes > block_bytes ? output_bytes : block_bytes, record_output_write, &output, NULL);
	}
	stats->merge_passes++;
	error = record_output_finish(&output, error);
	/* the output's writes counted in the write stage */
	stats_add_enclosing(stats, STAGE_MERGE, started, recorded, run_list_bytes(list));
	return error;
}

int sort_chunks(const struct chunk_mode *mode, const struct record_order *order, struct sort_verify *verify,
		struct sort_engine *engine, const struct memory_plan *plan, size_t block_bytes,
		const struct run_settings *settings, const struct output_target *target, struct sort_stats *stats)
{
	int more = mode->fill(mode->mode, 0), error;
	if (more < 0)
		return 2;
	if (!more) {
		/* in memory, records are checked by their positions (verify.h) */
		verify->by_position = true;
		error = mode->sort(mode->mode, 0);
		/* the one sort is done: the GPU's teardown overlaps the write */
		sort_engine_release_gpu(engine);
		if (!error)
			error = write_chunk(mode, order, verify, plan, target, stats);
		return error ? 2 : 0;
	}
	struct run_list list = {NULL, 0, plan->threads, memory_plan_run_writer_depth(plan, block_bytes), {0}, settings};
	error = form_runs(mode, order, plan, block_bytes, &list, more, stats);
	mode->release(mode->mode); /* the chunks' memory is the merge's now */
	unsigned merges = plan->threads;
	size_t fan_in = run_list_fan_in(&list, memory_plan_merge_fan_in(plan, block_bytes), &merges);
	if (!error)
		error = merge_passes(order, verify, &list, fan_in, block_bytes, merges, stats);
	if (!error)
		error = merge_into_output(order, verify, &list, plan, block_bytes, target, stats);
	run_list_remove_all(&list, stats);
	return error ? 2 : 0;
}
