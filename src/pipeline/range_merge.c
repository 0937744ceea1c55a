/* SPDX-License-Identifier: MIT */
/* The parallel merge over key ranges (see range_merge.h): worker threads that merge one
 * range of the runs (run_ranges.h) at a time into its place in the output. */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "merge.h"
#include "ordered_blocks.h"
#include "range_merge.h"
#include "run_ranges.h"
#include "../../io/write_queue.h"
#include "../common/environment.h"
#include "../common/verify.h"
#include "../common/report.h"
#include "../common/job_context.h"

/* Key ranges per merge thread: more ranges than threads even out their sizes. */
#define RANGES_PER_THREAD 4
/* Writes each merge thread keeps in flight to a positional output: its merged blocks go
 * to the file behind it while it merges the next ones. */
#define RANGE_WRITE_DEPTH 3
/* The most -u's moves of ranges into place read at once (compact_unique), the next piece
 * read while one is written: the moves are bound by the disk, which smaller pieces keep
 * busier. */
#define UNIQUE_MOVE_BYTES_MAX ((size_t)8 << 20)
/* How often the main thread looks at the merge threads (and redraws --progress). */
#define MERGE_POLL_NANOSECONDS 20000000L

/* The shared state of the merge threads. */
struct range_merge {
	const struct record_order *order;
	struct sort_verify *verify;
	struct run_list *list;
	struct range_plan *plan;
	struct output_file *file;
	const char *name;
	size_t output_bytes;
	bool unique;
	bool uncached;                       /* the queues write past the page cache */
	/* -u on a positional output: each range is written where it would start without -u
	 * (its offset then depends on no other range's duplicates), kept[j] bytes of it, and
	 * moved down into place once it is written (flushed[j]) and the ranges before it
	 * are in place: by the main thread while the others merge, the rest at the end
	 * (compact_unique). */
	uint64_t *kept;
	atomic_bool *flushed;
	size_t move_bytes;                   /* compact_unique's piece */
	size_t placed_ranges;                /* ranges [0, placed_ranges) are in place */
	uint64_t placed_end;                 /* where they end */
	uint64_t moved;
	/* Ordered mode, for outputs without offsets (stdout, pipes): each range's blocks
	 * queue up and the main thread writes the ranges in order. NULL: positional
	 * writes. */
	struct ordered_blocks *ordered;
	atomic_size_t next_range;
	atomic_bool failed;
	atomic_uint_least64_t written;
	uint64_t written_shown;                  /* of those, counted into --progress */
	atomic_uint_least64_t write_nanoseconds; /* spent in the output's writes, all threads */
	atomic_uint_least64_t uncached_bytes;    /* written past the page cache, all threads */
	atomic_uint finished;
	/* The self-check of the seams: each range's first and last record put out, if
	 * any, compared across ranges once all are done. */
	struct range_edges *edges;
};

/* Times one write of the output into merge->write_nanoseconds. */
static int timed_write(struct range_merge *merge, const void *data, size_t bytes, off_t offset,
		       bool positional)
{
	struct timespec begin, end;
	clock_gettime(CLOCK_MONOTONIC, &begin);
	int error = positional ? output_file_write_at(merge->file, data, bytes, offset)
			       : output_file_write(merge->file, data, bytes);
	clock_gettime(CLOCK_MONOTONIC, &end);
	atomic_fetch_add(&merge->write_nanoseconds,
			 (uint64_t)((end.tv_sec - begin.tv_sec) * 1000000000LL + (end.tv_nsec - begin.tv_nsec)));
	return error;
}

struct range_worker {
	struct range_merge *merge;
	pthread_t thread;
	int error;
};

/* One run's records [at, end) of the range being merged. */
struct slice_source {
	struct range_merge *merge;
	struct run *run;
	const uint64_t *starts;
	size_t block;
	uint64_t at, end;
	size_t prefetched;          /* blocks below this were asked for (run_reader_prefetch) */
	unsigned char *buffer;
	size_t buffer_bytes;
};

/* Only the first failure is reported (what: "read failed", "write failed", or NULL for
 * neither); the others are its echo in other threads. */
static int range_merge_fail(struct range_merge *merge, const char *what, const char *name, int error)
{
	if (!atomic_exchange(&merge->failed, true)) {
		if (what && strcmp(what, "write failed") == 0)
			report_output_failure(name, error, false);
		else if (what)
			report_file_failure(what, name, error);
		else
			report_file_error(name, error);
	}
	if (merge->ordered)
		ordered_blocks_cancel(merge->ordered);
	return error;
}

static int slice_next(void *context, const unsigned char **records, size_t *len)
{
	struct slice_source *slice = context;
	*len = 0;
	if (slice->at >= slice->end)
		return 0;
	if (atomic_load(&slice->merge->failed) || job_cancelled())
		return -ECANCELED;
	while (slice->starts[slice->block + 1] <= slice->at)
		slice->block++;
	/* the next blocks of the slice start coming from the disk while this one merges */
	size_t ahead = slice->block + RUN_PREFETCH_BLOCKS + 1;
	if (slice->prefetched < slice->block + 1)
		slice->prefetched = slice->block + 1;
	while (slice->prefetched < ahead && slice->starts[slice->prefetched] < slice->end) {
		run_reader_prefetch(slice->run->reader, slice->prefetched, 1);
		slice->prefetched++;
	}
	ssize_t bytes = run_reader_read_block(slice->run->reader, slice->block, slice->buffer,
					      slice->buffer_bytes);
	if (bytes < 0)
		return range_merge_fail(slice->merge, "read failed", slice->run->path, (int)bytes);
	uint64_t base = slice->starts[slice->block], stop = slice->starts[slice->block + 1];
	if (stop > slice->end)
		stop = slice->end;
	if ((uint64_t)bytes < stop - base)
		return range_merge_fail(slice->merge, "read failed", slice->run->path, -EBADMSG);
	*records = slice->buffer + (slice->at - base);
	*len = (size_t)(stop - slice->at);
	slice->at = stop;
	return 0;
}

/* A copy of a record, for the seams. */
struct record_copy {
	unsigned char *bytes;
	size_t len;
};

struct range_edges {
	struct record_copy first, last;
	bool set;
};

static void record_copy_set(struct record_copy *copy, const unsigned char *record, size_t len)
{
	unsigned char *bytes = realloc(copy->bytes, len ? len : 1);
	if (!bytes)
		return; /* the seam check is then weaker, never wrong: see seams_out_of_order */
	memcpy(bytes, record, len);
	copy->bytes = bytes;
	copy->len = len;
}

/* The last record of a block of whole records: its offset, and its length. */
static size_t last_record(const struct record_order *order, const unsigned char *bytes, size_t len,
			  size_t *record_len)
{
	if (order->record_size) {
		*record_len = order->record_size;
		return len - order->record_size;
	}
	size_t start = len - 1; /* the last line's terminator */
	while (start > 0 && bytes[start - 1] != order->eol)
		start--;
	*record_len = len - 1 - start;
	return start;
}

/* Keeps range j's first and last record put out, for the check of the seams. */
static void note_edges(struct range_merge *merge, size_t range, const unsigned char *records, size_t bytes)
{
	if (!merge->edges || bytes == 0)
		return;
	struct range_edges *edges = &merge->edges[range];
	size_t len, step;
	if (!edges->set) {
		len = record_length(merge->order, records, bytes, &step);
		record_copy_set(&edges->first, records, len);
	}
	size_t at = last_record(merge->order, records, bytes, &len);
	record_copy_set(&edges->last, records + at, len);
	edges->set = true;
}

/* Ranges are cut at splitters, so the last record of each range must not sort after
 * the first of the next (nor tie with it under -u); returns the seams that fail. */
static uint64_t seams_out_of_order(const struct range_merge *merge)
{
	const struct record_copy *last = NULL;
	uint64_t disorder = 0;
	for (size_t j = 0; merge->edges && j < merge->plan->ranges; j++) {
		const struct range_edges *edges = &merge->edges[j];
		if (!edges->set || !edges->first.bytes || !edges->last.bytes)
			continue;
		if (last) {
			int order = record_compare(merge->order, last->bytes, last->len, edges->first.bytes,
						   edges->first.len);
			disorder += merge->unique ? order >= 0 : order > 0;
		}
		last = &edges->last;
	}
	return disorder;
}

static void range_edges_free(struct range_edges *edges, size_t ranges)
{
	for (size_t j = 0; edges && j < ranges; j++) {
		free(edges[j].first.bytes);
		free(edges[j].last.bytes);
	}
	free(edges);
}

/* Writes a range's merged records at its own place in the output: through the thread's
 * write queue (placed at the range's start), or straight where it has none. */
struct positional_sink {
	struct range_merge *merge;
	off_t offset;
	size_t range;
	struct write_queue *queue;
};

static int queued_write(struct write_queue *queue, const unsigned char *records, size_t bytes)
{
	void *buffer;
	int error = write_queue_buffer(queue, bytes, &buffer);
	if (error)
		return error;
	memcpy(buffer, records, bytes);
	return write_queue_submit(queue, bytes);
}


/* A merged block handed to the thread's write queue whole: the queue writes it and
 * gives back a free one, so the block is not copied on its way to the kernel. */
static int positional_write_block(void *context, unsigned char **block, size_t *capacity, size_t bytes,
				  size_t count)
{
	(void)count;
	struct positional_sink *sink = context;
	struct range_merge *merge = sink->merge;
	if (atomic_load(&merge->failed))
		return -ECANCELED;
	note_edges(merge, sink->range, *block, bytes);
	void *buffer = *block;
	int error = write_queue_submit_exchange(sink->queue, &buffer, capacity, bytes);
	*block = buffer;
	if (error)
		return range_merge_fail(merge, "write failed", merge->name, error);
	sink->offset += (off_t)bytes;
	atomic_fetch_add(&merge->written, bytes);
	return 0;
}

static int positional_write(void *context, const unsigned char *records, size_t bytes, size_t count)
{
	(void)count;
	struct positional_sink *sink = context;
	struct range_merge *merge = sink->merge;
	if (atomic_load(&merge->failed))
		return -ECANCELED;
	int error = sink->queue ? queued_write(sink->queue, records, bytes)
				: timed_write(merge, records, bytes, sink->offset, true);
	if (error)
		return range_merge_fail(merge, "write failed", merge->name, error);
	note_edges(merge, sink->range, records, bytes);
	sink->offset += (off_t)bytes;
	atomic_fetch_add(&merge->written, bytes);
	return 0;
}

/* Queues a range's merged records for the main thread to write in range order. */
struct ordered_sink {
	struct range_merge *merge;
	size_t range;
};

static int ordered_write(void *context, const unsigned char *records, size_t bytes, size_t count)
{
	(void)count;
	struct ordered_sink *sink = context;
	note_edges(sink->merge, sink->range, records, bytes);
	int error = ordered_blocks_put_copy(sink->merge->ordered, sink->range, records, bytes);
	return error == -ENOMEM ? range_merge_fail(sink->merge, NULL, "merge", error) : error;
}

/* A merged block queued whole: the thread merges on into a spare one. */
static int ordered_write_block(void *context, unsigned char **block, size_t *capacity, size_t bytes,
			       size_t count)
{
	(void)count;
	struct ordered_sink *sink = context;
	note_edges(sink->merge, sink->range, *block, bytes);
	int error = ordered_blocks_put(sink->merge->ordered, sink->range, block, capacity, bytes);
	return error == -ENOMEM ? range_merge_fail(sink->merge, NULL, "merge", error) : error;
}

/* The output's bytes written since the last call, into --progress (the main thread's). */
static void progress_note(struct range_merge *merge, struct sort_stats *stats)
{
	uint64_t written = atomic_load(&merge->written);
	stats_progress_add(stats, PROGRESS_WRITE, written - merge->written_shown);
	merge->written_shown = written;
}

/* The main thread's part in ordered mode: writes every range's blocks in range order,
 * updating --progress as it goes. */
static int ordered_write_all(struct range_merge *merge, struct sort_stats *stats)
{
	unsigned char *block;
	size_t capacity, bytes;
	int error = 0;
	while (!error && ordered_blocks_take(merge->ordered, &block, &capacity, &bytes)) {
		error = timed_write(merge, block, bytes, 0, false);
		ordered_blocks_give_back(merge->ordered, block, capacity);
		if (error)
			range_merge_fail(merge, "write failed", merge->name, error);
		else
			atomic_fetch_add(&merge->written, bytes);
		progress_note(merge, stats);
	}
	if (atomic_load(&merge->failed) && !error)
		error = -ECANCELED;
	return error;
}

/* A merge thread's own: a slice of every run, which are the merge's sources, and its
 * write queue to a positional output (NULL: the thread writes each block itself). */
struct worker_state {
	struct slice_source *slices;
	struct merge_source *sources;
	struct write_queue *queue;
	size_t unflushed; /* -u: the range whose writes the queue may still hold, or SIZE_MAX */
};

static int worker_open(struct range_merge *merge, struct worker_state *w)
{
	size_t k = merge->plan->k;
	*w = (struct worker_state){calloc(k, sizeof *w->slices), calloc(k, sizeof *w->sources), NULL, SIZE_MAX};
	int error = w->slices && w->sources ? 0 : -ENOMEM;
	for (size_t r = 0; r < k && !error; r++) {
		struct slice_source *slice = &w->slices[r];
		slice->merge = merge;
		slice->run = &merge->list->runs[r];
		slice->starts = merge->plan->block_starts[r];
		slice->buffer_bytes = run_reader_max_block_bytes(slice->run->reader);
		slice->buffer = malloc(slice->buffer_bytes ? slice->buffer_bytes : 1);
		if (!slice->buffer)
			error = -ENOMEM;
		w->sources[r] = (struct merge_source){slice_next, slice};
	}
	if (error)
		return range_merge_fail(merge, NULL, "merge", error);
	/* without a queue (no memory for one) the thread writes each block itself */
	if (!merge->ordered && output_file_write_queue(merge->file, RANGE_WRITE_DEPTH, merge->output_bytes, &w->queue) != 0)
		w->queue = NULL;
	if (w->queue && merge->uncached)
		output_file_uncached(merge->file, w->queue);
	return 0;
}

/* Waits for the queue's last writes (an error in them is the output's) and frees. */
static int worker_close(struct range_merge *merge, struct worker_state *w, int error)
{
	if (w->queue) {
		int last = write_queue_wait(w->queue);
		if (last && !error)
			error = range_merge_fail(merge, "write failed", merge->name, last);
		if (!last && !error && w->unflushed != SIZE_MAX)
			atomic_store(&merge->flushed[w->unflushed], true);
		atomic_fetch_add(&merge->write_nanoseconds, (uint64_t)(write_queue_wait_seconds(w->queue) * 1e9));
		atomic_fetch_add(&merge->uncached_bytes, (uint64_t)write_queue_direct_bytes(w->queue));
		write_queue_close(w->queue);
	}
	for (size_t r = 0; w->slices && r < merge->plan->k; r++)
		free(w->slices[r].buffer);
	free(w->slices);
	free(w->sources);
	return error;
}

/* Merges range j: into the ordered queues, or at its place in the output. */
static int worker_merge_range(struct range_merge *merge, struct worker_state *w, size_t j)
{
	size_t k = merge->plan->k;
	const uint64_t *begin = &merge->plan->bounds[j * k], *end = begin + k;
	struct positional_sink sink = {merge, 0, j, w->queue};
	for (size_t r = 0; r < k; r++) {
		w->slices[r].block = 0;
		w->slices[r].prefetched = 0;
		w->slices[r].at = begin[r];
		w->slices[r].end = end[r];
		sink.offset += (off_t)begin[r];
	}
	int error = w->queue ? write_queue_seek(w->queue, sink.offset) : 0;
	if (error)
		return range_merge_fail(merge, "write failed", merge->name, error);
	/* the seek waited for every write before it */
	if (w->unflushed != SIZE_MAX)
		atomic_store(&merge->flushed[w->unflushed], true);
	w->unflushed = SIZE_MAX;
	if (merge->ordered) {
		/* Equal keys never straddle ranges, so -u within a range is -u overall. */
		struct ordered_sink ordered = {merge, j};
		const struct merge_sink into = {ordered_write, ordered_write_block, &ordered, merge->output_bytes, true};
		error = merge_records(merge->order, merge->verify, w->sources, k, &into, NULL);
		if (!error) {
			ordered_blocks_done(merge->ordered, j);
		} else {
			/* reported where it arose: the writer must not wait for this range */
			atomic_store(&merge->failed, true);
			ordered_blocks_cancel(merge->ordered);
		}
		return error;
	}
	off_t placed = sink.offset;
	const struct merge_sink into = {positional_write, w->queue ? positional_write_block : NULL, &sink,
					merge->output_bytes, true};
	error = merge_records(merge->order, merge->verify, w->sources, k, &into, NULL);
	if (merge->kept && !error) {
		merge->kept[j] = (uint64_t)(sink.offset - placed);
		if (w->queue)
			w->unflushed = j;
		else
			atomic_store(&merge->flushed[j], true); /* written in place, in turn */
	}
	return error;
}

static int range_worker_run(struct range_merge *merge)
{
	struct worker_state state;
	int error = worker_open(merge, &state);
	while (!error && !atomic_load(&merge->failed)) {
		size_t j = atomic_fetch_add(&merge->next_range, 1);
		if (j >= merge->plan->ranges)
			break;
		error = worker_merge_range(merge, &state, j);
	}
	return worker_close(merge, &state, error);
}

static void *range_worker_main(void *context)
{
	struct range_worker *worker = context;
	worker->error = range_worker_run(worker->merge);
	atomic_fetch_add(&worker->merge->finished, 1);
	return NULL;
}

/* -u on a positional output, each range written at the offset it would have without -u:
 * moves the ranges that are written (all of them, once the threads are done), in order,
 * down to follow the ones before (a range's new place lies below its old one, and ends
 * at or below where the next range's old place begins, so the threads still writing
 * later ranges are not in the way). Where nothing was dropped nothing moves. Reports. */
static int compact_unique(struct range_merge *merge, bool all)
{
	const struct range_plan *plan = merge->plan;
	int error = 0;
	while (!error && merge->placed_ranges < plan->ranges
	       && (all || atomic_load(&merge->flushed[merge->placed_ranges]))) {
		size_t j = merge->placed_ranges;
		uint64_t placed = 0;
		for (size_t r = 0; r < plan->k; r++)
			placed += plan->bounds[j * plan->k + r];
		if (placed != merge->placed_end && merge->kept[j]) {
			error = output_file_move(merge->file, placed, merge->placed_end, merge->kept[j], merge->move_bytes);
			if (error)
				break;
			merge->moved += merge->kept[j];
		}
		merge->placed_end += merge->kept[j];
		merge->placed_ranges++;
	}
	if (!error && all)
		error = output_file_cut(merge->file, merge->placed_end);
	return error ? range_merge_fail(merge, "write failed", merge->name, error) : 0;
}

/* Merges every range on up to threads threads (*started of them), the main thread
 * writing (ordered mode) or watching, for --progress and -u's moves. -ENOTSUP when no
 * thread starts. */
static int range_merge_run(struct range_merge *merge, unsigned threads, struct sort_stats *stats, size_t *started)
{
	size_t count = threads < merge->plan->ranges ? threads : merge->plan->ranges;
	struct range_worker *workers = calloc(count, sizeof *workers);
	int error = 0;
	for (*started = 0; workers && *started < count; ++*started) {
		workers[*started].merge = merge;
		if (job_thread_create(&workers[*started].thread, range_worker_main, &workers[*started]) != 0)
			break;
	}
	if (*started == 0) {
		/* no thread to be had: the in-order merge does it, from an empty file (not one
		 * extended for direct writes, which -u would leave too long) */
		int cut = merge->uncached ? output_file_cut(merge->file, 0) : 0;
		free(workers);
		return cut ? range_merge_fail(merge, "write failed", merge->name, cut) : -ENOTSUP;
	}
	if (merge->ordered)
		error = ordered_write_all(merge, stats);
	while (!merge->ordered && atomic_load(&merge->finished) < *started) {
		struct timespec pause = {0, MERGE_POLL_NANOSECONDS};
		nanosleep(&pause, NULL);
		progress_note(merge, stats);
		if (merge->kept && !atomic_load(&merge->failed) && !error)
			error = compact_unique(merge, false);
	}
	for (size_t i = 0; i < *started; i++) {
		pthread_join(workers[i].thread, NULL);
		/* the first real error, not another thread's -ECANCELED echo */
		if (workers[i].error && (!error || error == -ECANCELED))
			error = workers[i].error;
	}
	free(workers);
	return error;
}

int range_merge_into(const struct record_order *order, struct sort_verify *verify, struct run_list *list,
		     const struct memory_plan *plan, struct output_file *file, const char *name,
		     struct sort_stats *stats)
{
	bool unique = order->unique;
	struct range_plan ranges;
	int error = range_plan_build(order, list, (size_t)plan->threads * RANGES_PER_THREAD, plan->threads, &ranges);
	if (error) {
		range_plan_free(&ranges);
		if (error == -ENOMEM)
			report_errno(-ENOMEM);
		return error;
	}
	if (verify && !verify->enabled)
		verify = NULL;
	/* -u goes the ordered way (its offsets depend on the duplicates before) */
	struct range_merge merge = {
		.order = order, .verify = verify, .list = list, .plan = &ranges, .file = file, .name = name,
		.output_bytes = memory_plan_merge_output_bytes(plan), .unique = unique,
		/* the merge's blocks are free by then: two pieces of an eighth of -S each */
		.move_bytes = plan->budget / 8 < UNIQUE_MOVE_BYTES_MAX ? plan->budget / 8 + 1 : UNIQUE_MOVE_BYTES_MAX,
	};
	struct ordered_blocks queues;
	if (!output_file_positional(file)) {
		error = ordered_blocks_init(&queues, ranges.ranges, plan->budget / 4);
		if (error) {
			range_plan_free(&ranges);
			report_errno(-ENOMEM);
			return error;
		}
		merge.ordered = &queues;
	}
	atomic_init(&merge.next_range, 0);
	atomic_init(&merge.failed, false);
	atomic_init(&merge.written, 0);
	atomic_init(&merge.write_nanoseconds, 0);
	atomic_init(&merge.uncached_bytes, 0);
	atomic_init(&merge.finished, 0);
	uint64_t total = 0;
	for (size_t r = 0; r < ranges.k; r++)
		total += ranges.bounds[ranges.ranges * ranges.k + r];
	/* -u's output is at most total: the file is cut to what was kept at the end */
	merge.uncached = output_file_uncached_wanted(file, total, environment_switch(ENVIRONMENT_OUTPUT_DIRECT));
	if (unique && !merge.ordered) {
		merge.kept = calloc(ranges.ranges, sizeof *merge.kept);
		merge.flushed = calloc(ranges.ranges, sizeof *merge.flushed);
		if (!merge.kept || !merge.flushed) {
			free(merge.kept);
			free(merge.flushed);
			range_plan_free(&ranges);
			report_errno(-ENOMEM);
			return -ENOMEM;
		}
		for (size_t j = 0; j < ranges.ranges; j++)
			atomic_init(&merge.flushed[j], false);
	}
	if (verify)
		merge.edges = calloc(ranges.ranges, sizeof *merge.edges);
	size_t started = 0;
	error = range_merge_run(&merge, plan->threads, stats, &started);
	double compact_started = stats_now();
	if (!error && merge.kept)
		error = compact_unique(&merge, true);
	double compact_seconds = stats_now() - compact_started;
	stats->output_moved_bytes += merge.moved;
	if (!error && !unique && atomic_load(&merge.written) != total) {
		report_internal("the merge wrote %llu bytes instead of %llu",
		       (unsigned long long)atomic_load(&merge.written), (unsigned long long)total);
		error = -EBADMSG;
	}
	if (!error && merge.edges) {
		struct fingerprint none = {0, 0};
		sort_verify_output(verify, &none, seams_out_of_order(&merge));
	}
	range_edges_free(merge.edges, ranges.ranges);
	stats->bytes[STAGE_WRITE] += atomic_load(&merge.written);
	stats->output_uncached_bytes += atomic_load(&merge.uncached_bytes);
	/* The write stage's share of the merge's wall time: the main thread's writes in
	 * ordered mode; with positional writes, the threads' time in writes over the
	 * threads (each thread takes turns merging and writing). */
	double write_seconds = (double)atomic_load(&merge.write_nanoseconds) * 1e-9;
	if (!merge.ordered && started > 0)
		write_seconds /= (double)started;
	stats->seconds[STAGE_WRITE] += write_seconds + compact_seconds;
	free(merge.kept);
	free(merge.flushed);
	if (merge.ordered)
		ordered_blocks_free(&queues);
	range_plan_free(&ranges);
	return error;
}
