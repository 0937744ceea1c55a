/* SPDX-License-Identifier: MIT */
/* Binary record mode's driver: the driver both modes share (sort_driver.h), given
 * binary's chunks: records read in chunks that fit the memory budget, each chunk's items
 * sorted on the engine and its records put out in order, or spilled as a run. */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "binary_sort.h"
#include "sort_job.h"
#include "sort_chunks.h"
#include "sort_driver.h"
#include "memory_plan.h"
#include "../binary/record_items.h"
#include "record_order.h"
#include "../binary/record_reader.h"
#include "../common/report.h"
#include "../common/stats.h"
#include "../../kernels/huge_memory.h"

/* The records are read in pieces that --progress counts as they arrive: a piece takes
 * about READ_PIECE_SECONDS, from READ_PIECE_FIRST bytes doubled or halved by the pace
 * seen. A file's first is above io's parallel-read minimum: a smaller second read
 * would hand the file to the read-ahead ring, which copies out on one thread; a pipe,
 * read on one thread in any case, starts at READ_PIECE_MIN. */
#define READ_PIECE_FIRST ((size_t)64 << 20)
#define READ_PIECE_MIN ((size_t)1 << 20)
#define READ_PIECE_SECONDS 0.1

/* Sorts one chunk of n records in place of its item array; returns the form used. */
int binary_sort_chunk(struct sort_engine *engine, const struct record_layout *layout,
		      unsigned char *records, size_t n, void *items_buffer, enum record_form *form,
		      struct sort_stats *stats)
{
	double started = stats_now();
	stats_progress_chunk_begin(stats, n * layout->record_size, n);
	*form = record_form_choose(layout, n);
	void *items = record_form_in_place(*form) ? (void *)records : items_buffer;
	record_items_build(layout, *form, records, n, items);
	started = stats_add(stats, STAGE_PREPARE, started, n * layout->record_size);
	int error = sort_engine_sort(engine, record_form_width(*form), items, n);
	if (error)
		return error;
	sort_verify_plant_test_bug(items, n, record_form_width(*form));
	record_items_finish_ties(layout, *form, records, items, n);
	stats_add(stats, STAGE_SORT, started, n * (size_t)record_form_width(*form));
	stats_progress_chunk_end(stats);
	return 0;
}

bool binary_record_fits(const struct memory_limits *limits, const char *record_size_option,
			const struct record_layout *layout)
{
	size_t budget, limit = memory_plan_record_limit(limits, &budget);
	if (layout->record_size <= limit)
		return true;
	report("%s: records of %zu bytes do not fit the memory budget of %zu bytes (-S)",
	       record_size_option, layout->record_size, budget);
	return false;
}

/* Binary chunks (sort_chunks.h): records read chunk + 1 at a time, one read past the
 * chunk telling without a second read whether the input goes on. An input of unknown
 * size (a pipe) holds only what has arrived: its first buffer starts at
 * BINARY_FIRST_BYTES and doubles as records arrive, up to the chunk, and the arrays a
 * spill needs (the items beside both chunks, the second buffer) are made once the input
 * turns out larger than one chunk; a chunk's items are made when it sorts. Such records
 * are on mappings of their own (huge_memory), which grow without a copy, where the
 * engine's host memory may be page-locked. */
struct binary_chunks {
	const struct record_layout *layout;
	struct sort_engine *engine;
	struct record_reader *reader;
	struct memory_plan *plan; /* overlap cleared by the first fill if a second buffer fails */
	bool unique;
	bool records_grow;        /* the size unknown: records in huge_memory, grown */
	bool spill_ready;         /* the spill's arrays are made */
	int64_t total;            /* the input's bytes; -1: unknown */
	struct sort_stats *stats;
	size_t read_piece;        /* bytes a read asks for */
	struct emit_scratch emit_scratch; /* the gather's blocks, chunk after chunk */
	struct binary_chunk {
		unsigned char *records; /* capacity records, at most chunk + 1 */
		void *items;
		size_t capacity;        /* records the buffer holds */
		size_t items_bytes;     /* of items */
		size_t have, n;         /* records read, and in the chunk */
		enum record_form form;
	} buffers[2];
};

/* The first buffer of an input of unknown size, before it grows. */
#define BINARY_FIRST_BYTES ((size_t)1 << 20)

static void report_no_memory(const struct memory_plan *plan)
{
	report_error(-ENOMEM, "%s (memory budget %zu bytes)", strerror(ENOMEM), plan->budget);
}

/* Makes buffer's records room for capacity records, its records kept: grown where the
 * size is unknown, else made once, whole, from the engine. Returns 0 or -ENOMEM (the
 * buffer as it was). */
static int binary_records_reserve(struct binary_chunks *chunks, struct binary_chunk *buffer, size_t capacity)
{
	size_t size = chunks->layout->record_size;
	if (buffer->records && buffer->capacity >= capacity)
		return 0;
	unsigned char *records = chunks->records_grow
				 ? huge_memory_grow(buffer->records, buffer->capacity * size, capacity * size)
				 : sort_engine_host_alloc(chunks->engine, capacity * size);
	if (!records)
		return -ENOMEM;
	buffer->records = records;
	buffer->capacity = capacity;
	return 0;
}

static void binary_records_free(struct binary_chunks *chunks, struct binary_chunk *buffer)
{
	if (chunks->records_grow)
		huge_memory_free(buffer->records);
	else
		sort_engine_host_free(chunks->engine, buffer->records, buffer->capacity * chunks->layout->record_size);
	buffer->records = NULL;
	buffer->capacity = 0;
}

/* Makes buffer's item array at least bytes long (0: none needed). Returns 0 or -ENOMEM. */
static int binary_items_reserve(struct binary_chunks *chunks, struct binary_chunk *buffer, size_t bytes)
{
	if (bytes == 0 || buffer->items_bytes >= bytes)
		return 0;
	void *items = sort_engine_host_alloc(chunks->engine, bytes);
	if (!items)
		return -ENOMEM;
	sort_engine_host_free(chunks->engine, buffer->items, buffer->items_bytes);
	buffer->items = items;
	buffer->items_bytes = bytes;
	return 0;
}

/* The arrays of an input larger than one chunk: the items beside the first buffer, and
 * the second buffer when the plan overlaps spilling with sorting and memory allows
 * (else the chunks take turns in one), faulted in now, not beside the first spill's
 * threads, and with them the first buffer's records when they are fresh (first_fresh).
 * Returns false after reporting. */
static bool binary_spill_buffers(struct binary_chunks *chunks, bool first_fresh)
{
	struct memory_plan *plan = chunks->plan;
	struct binary_chunk *first = &chunks->buffers[0], *second = &chunks->buffers[1];
	if (binary_items_reserve(chunks, first, plan->items_bytes) != 0) {
		report_no_memory(plan);
		return false;
	}
	chunks->spill_ready = true;
	if (plan->overlap && (binary_records_reserve(chunks, second, plan->chunk_records + 1) != 0 ||
			      binary_items_reserve(chunks, second, plan->items_bytes) != 0)) {
		binary_records_free(chunks, second);
		plan->overlap = false;
	}
	if (plan->overlap) {
		size_t record_bytes = (plan->chunk_records + 1) * chunks->layout->record_size;
		void *arrays[4] = {first_fresh ? first->records : NULL, first->items, second->records, second->items};
		size_t bytes[4] = {record_bytes, first->items_bytes, record_bytes, second->items_bytes};
		sort_engine_host_populate(chunks->engine, arrays, bytes, 4);
	}
	return true;
}

/* The next piece's size from the time a full piece took. */
static void read_piece_adapt(struct binary_chunks *chunks, uint64_t bytes, double seconds)
{
	if (bytes + chunks->layout->record_size < chunks->read_piece)
		return; /* a short piece: the end of the chunk or the input */
	if (seconds < READ_PIECE_SECONDS / 2 && chunks->read_piece <= SIZE_MAX / 4)
		chunks->read_piece *= 2;
	else if (seconds > READ_PIECE_SECONDS * 2 && chunks->read_piece / 2 >= READ_PIECE_MIN)
		chunks->read_piece /= 2;
}

static int binary_fill(void *context, int b)
{
	struct binary_chunks *chunks = context;
	struct binary_chunk *buffer = &chunks->buffers[b];
	size_t size = chunks->layout->record_size, chunk = chunks->plan->chunk_records;
	double started = stats_now();
	uint64_t records_read = 0;
	for (;;) {
		/* full short of the chunk: twice the room, the records kept */
		if (buffer->have == buffer->capacity) {
			size_t grown = buffer->capacity < (chunk + 1) / 2 ? 2 * buffer->capacity : chunk + 1;
			if (binary_records_reserve(chunks, buffer, grown) != 0) {
				report_no_memory(chunks->plan);
				return -ENOMEM;
			}
		}
		size_t want = buffer->capacity - buffer->have, piece = chunks->read_piece / size + 1;
		if (want > piece)
			want = piece;
		double asked = stats_now();
		int64_t got = record_reader_read(chunks->reader, buffer->records + buffer->have * size, want);
		if (got < 0)
			return (int)got;
		records_read += (uint64_t)got;
		stats_progress_add(chunks->stats, PROGRESS_READ, (uint64_t)got * size);
		read_piece_adapt(chunks, (uint64_t)got * size, stats_now() - asked);
		buffer->have += (size_t)got;
		/* fewer than asked: the input ended */
		if ((size_t)got < want || buffer->have > chunk)
			break;
	}
	stats_add(chunks->stats, STAGE_READ, started, records_read * size);
	chunks->stats->records += records_read;
	buffer->n = buffer->have < chunk ? buffer->have : chunk;
	if (buffer->have > chunk && !chunks->spill_ready && !binary_spill_buffers(chunks, false))
		return -ENOMEM;
	return buffer->have > chunk;
}

static int binary_carry(void *context, int from, int to)
{
	struct binary_chunks *chunks = context;
	struct binary_chunk *a = &chunks->buffers[from], *b = &chunks->buffers[to];
	size_t size = chunks->layout->record_size, extra = a->have - a->n;
	/* a may be spilling: only b changes */
	memmove(b->records, a->records + a->n * size, extra * size);
	b->have = extra;
	b->n = 0;
	return 0;
}

static int binary_sort(void *context, int b)
{
	struct binary_chunks *chunks = context;
	struct binary_chunk *buffer = &chunks->buffers[b];
	/* a chunk of an input that fits one has its items made now, for what it holds */
	enum record_form form = record_form_choose(chunks->layout, buffer->n);
	size_t items_bytes = record_form_in_place(form) ? 0 : buffer->n * (size_t)record_form_width(form);
	if (binary_items_reserve(chunks, buffer, items_bytes) != 0) {
		report_no_memory(chunks->plan);
		return -ENOMEM;
	}
	int error = binary_sort_chunk(chunks->engine, chunks->layout, buffer->records, buffer->n, buffer->items,
				      &buffer->form, chunks->stats);
	if (error)
		report_error(error, "sort engine (%s): %s", sort_engine_describe(chunks->engine), strerror(-error));
	return error;
}

static int binary_emit(void *context, int b, const struct emit_output *output)
{
	struct binary_chunks *chunks = context;
	struct binary_chunk *buffer = &chunks->buffers[b];
	void *items = record_form_in_place(buffer->form) ? (void *)buffer->records : buffer->items;
	struct emit_output kept = *output;
	kept.scratch = &chunks->emit_scratch;
	return record_items_emit(chunks->layout, buffer->form, buffer->records, items, buffer->n, chunks->unique,
				 &kept);
}

static uint64_t binary_output_bound(void *context, int b)
{
	struct binary_chunks *chunks = context;
	return (uint64_t)chunks->buffers[b].n * chunks->layout->record_size;
}

static size_t binary_expected_runs(void *context)
{
	struct binary_chunks *chunks = context;
	return chunks->total > 0 ? (size_t)chunks->total / chunks->layout->record_size / chunks->plan->chunk_records + 1
				 : 0;
}

static void binary_release(void *context)
{
	struct binary_chunks *chunks = context;
	record_reader_close(chunks->reader);
	chunks->reader = NULL;
	for (int i = 0; i < 2; i++) {
		struct binary_chunk *buffer = &chunks->buffers[i];
		binary_records_free(chunks, buffer);
		sort_engine_host_free(chunks->engine, buffer->items, buffer->items_bytes);
		buffer->items = NULL;
		buffer->items_bytes = 0;
	}
	sort_engine_host_trim(chunks->engine);
	emit_scratch_free(&chunks->emit_scratch);
}

/* The first buffer: the whole chunk and, for an input known to take more than one,
 * the spill's arrays; for an input of unknown size, BINARY_FIRST_BYTES of records (the
 * chunk at most), the rest as the input shows it is needed. Returns false after
 * reporting. */
static bool binary_buffers(struct binary_chunks *chunks)
{
	struct memory_plan *plan = chunks->plan;
	bool size_known = !chunks->records_grow;
	size_t capacity = plan->chunk_records + 1, first = BINARY_FIRST_BYTES / chunks->layout->record_size;
	if (!size_known && capacity > first)
		capacity = first > 0 ? first : 1;
	if (binary_records_reserve(chunks, &chunks->buffers[0], capacity) != 0 ||
	    (size_known && binary_items_reserve(chunks, &chunks->buffers[0], plan->items_bytes) != 0)) {
		report_no_memory(plan);
		return false;
	}
	return !size_known || !plan->overlap || binary_spill_buffers(chunks, true);
}

/* With --device=auto, an input whose items (the keys as the engine sorts them) come to
 * less than this is sorted on the CPU threads: the GPU's fixed costs, creating the CUDA
 * context and tearing it down at exit, exceed what the CPU threads take for that many
 * items. --device=N still asks for the GPU. */
#define BINARY_GPU_MIN_ITEM_BYTES ((int64_t)256 << 20)

/* Binary mode's part of the driver (sort_driver.h). */
struct binary_mode {
	const struct sort_job *job;
	struct record_layout layout;
	struct record_order order;
	struct record_reader *reader; /* until the chunks take it */
};

/* The record size against -S, judged by the sort, -c and -m alike: when an input holds
 * a record. */
static bool binary_fits(const void *context)
{
	const struct binary_mode *binary = context;
	return binary_record_fits(&binary->job->memory, binary->job->binary.record_size_option, &binary->layout);
}

static int binary_open(void *context, struct sort_drive *drive)
{
	struct binary_mode *binary = context;
	const struct input_list *inputs = drive->inputs;
	if (record_reader_open(inputs->names, inputs->ranges, inputs->count, binary->layout.record_size,
			       &binary->reader) < 0)
		return 2;
	/* Sizes are judged against the input before anything is planned, and no input
	 * costs nothing whatever the sizes. A pipe's first bytes are read now: one that
	 * ends within them has a size, by which --device=auto chooses as for a file. */
	int empty = record_reader_empty(binary->reader, SORT_AHEAD_BYTES);
	if (empty < 0 || (!empty && !binary_fits(binary)))
		return 2;
	drive->empty = empty;
	drive->total = record_reader_total_bytes(binary->reader);
	if (drive->total >= 0) {
		size_t n = (size_t)drive->total / binary->layout.record_size;
		drive->work = (int64_t)n * record_form_width(record_form_choose(&binary->layout, n));
	}
	return 0;
}

static int binary_sort_inputs(void *context, struct sort_drive *drive)
{
	struct binary_mode *binary = context;
	const struct sort_job *job = drive->job;
	struct record_layout *layout = &binary->layout;
	layout->pool = drive->pool;
	layout->verify = &drive->verify;
	drive->verify.expected = drive->total >= 0 ? drive->total / (int64_t)layout->record_size : -1;
	struct memory_plan plan = {0};
	memory_plan_binary(&drive->memory, &drive->asked, layout, drive->engine, drive->total, &plan);
	struct binary_chunks chunks = {.layout = layout, .engine = drive->engine, .reader = binary->reader,
				       .plan = &plan, .unique = job->unique, .records_grow = drive->total < 0,
				       .total = drive->total, .stats = &drive->stats, .read_piece = drive->total < 0 ? READ_PIECE_MIN : READ_PIECE_FIRST};
	binary->reader = NULL; /* the chunks' now: closed with them, its descriptors the merge's */
	int status = 2;
	if (binary_buffers(&chunks)) {
		const struct chunk_mode mode = {&chunks, binary_fill, binary_carry, binary_sort, binary_emit,
						binary_release, binary_output_bound, binary_expected_runs};
		status = sort_chunks(&mode, &binary->order, &drive->verify, drive->engine, &plan, &job->runs,
				     &job->output, &drive->stats);
	}
	binary_release(&chunks);
	return status;
}

static void binary_close(void *context)
{
	struct binary_mode *binary = context;
	record_reader_close(binary->reader);
	binary->reader = NULL;
}

int binary_sort_run(const struct sort_job *job)
{
	struct binary_mode binary = {.job = job};
	record_layout_from_key(&job->binary, &binary.layout);
	record_order_binary(&binary.order, &binary.layout, job->unique);
	const struct sort_driver_mode mode = {&binary, &binary.order, binary_fits, BINARY_GPU_MIN_ITEM_BYTES,
					      "items below 256 MiB: the CPU threads finish before a GPU would start",
					      binary_open, binary_sort_inputs, binary_close};
	return sort_driver_run(job, &mode);
}
