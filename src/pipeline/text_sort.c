/* SPDX-License-Identifier: MIT */
/* Text mode's driver: builds the order, then runs the driver both modes share
 * (sort_driver.h), giving it text's chunks: lines read input after input, sorted in
 * memory when they fit the -S budget, else in chunks spilled as runs and merged. */
#include "config.h"
#include "sort_job.h"
#include "text_sort.h"
#include "input_header.h"
#include "csv_input.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "input_list.h"
#include "memory_plan.h"
#include "record_order.h"
#include "../common/report.h"
#include "../common/stats.h"
#include "../text/text_line_sort.h"
#include "../text/text_lines.h"
#include "../text/text_order.h"
#include "sort_chunks.h"
#include "sort_driver.h"
#include "../text/text_emit.h"
#include "../text/text_debug.h"
#include "../../io/input_file.h"
#include "../../io/output_file.h"
#include "../../io/random_source.h"
#include "../../kernels/huge_memory.h"

/* Text chunks (sort_chunks.h): lines read input after input into a buffer until the
 * chunk is full, sorted by their complete lines; the partial line at the end, and any
 * lines read past a full chunk, start the next chunk. A chunk is full when its bytes
 * plus line_cost for each line reach chunk_bytes, so that short lines, whose tables
 * outweigh their text, are held to the budget too (the plan in memory_plan.c). */
struct text_chunks {
	const struct text_order *order;
	struct sort_engine *engine;
	struct thread_pool *pool;
	struct sort_verify *verify;
	struct sort_stats *stats;
	const struct input_list *inputs;
	struct input_header *header; /* --header; NULL: none */
	struct csv_encoder csv;      /* --csv: the input being read's encoding */
	size_t next_input;        /* the input to open when file is NULL */
	struct input_file *file;
	size_t chunk_bytes;       /* a chunk's bytes and line costs at most */
	size_t line_cost;         /* TEXT_LINE_COST, and what the order's items keep beside */
	size_t bytes_per_line;    /* of the chunks cut so far; 0 before the first */
	size_t first_chunk_bytes; /* the first chunk's lines, once it is full */
	int64_t total;            /* the inputs' bytes, -1 when unknown */
	struct text_chunk {
		struct text_lines lines; /* lines.size: the chunk's complete lines once sorted */
		size_t read;             /* bytes read into it, the partial line after them included */
		uint64_t *sorted;
	} buffers[2];
	struct text_line_items items;     /* the sorting chunk's items, chunk after chunk */
	struct emit_scratch emit_scratch; /* the rounds' buffers, chunk after chunk */
};

/* Reads are sized by the lines' length seen so far and stop when the rest of the
 * chunk's room is below this share of it. */
#define TEXT_CHUNK_SLACK 64

static bool text_input_left(const struct text_chunks *chunks)
{
	return chunks->file || chunks->next_input < chunks->inputs->count;
}

/* Cuts buffer's chunk at the end of its last line within the limit (counted: the lines
 * counted before data[from, ...) are from_lines). Returns 1, or 0 when no line fits: a
 * line longer than a chunk, for which the chunk grows. */
static int text_chunk_cut(struct text_chunks *chunks, struct text_chunk *buffer, size_t from, size_t from_lines)
{
	struct text_lines *lines = &buffer->lines;
	size_t kept, cut = text_lines_cut(lines, from, from_lines, chunks->chunk_bytes, chunks->line_cost, &kept);
	if (cut == 0) {
		chunks->chunk_bytes *= 2;
		return 0;
	}
	chunks->bytes_per_line = kept ? cut / kept : cut;
	if (!chunks->first_chunk_bytes)
		chunks->first_chunk_bytes = cut;
	buffer->read = lines->size;
	text_lines_keep(lines, cut, kept);
	return 1;
}

/* --csv: both chunks' reads encoded, from the start of the input just opened. */
static void text_chunks_csv_start(struct text_chunks *chunks)
{
	struct csv_encoder *csv = csv_input_start(&chunks->csv, chunks->order, chunks->header);
	chunks->buffers[0].lines.csv = chunks->buffers[1].lines.csv = csv;
}

static int text_fill(void *context, int b)
{
	struct text_chunks *chunks = context;
	struct text_chunk *buffer = &chunks->buffers[b];
	struct text_lines *lines = &buffer->lines;
	for (;;) {
		size_t limit = chunks->chunk_bytes;
		size_t cost = lines->counted + lines->counted_lines * chunks->line_cost;
		/* bytes not counted yet are counted before more is read, or when all of them
		 * being terminators would pass the limit */
		size_t uncounted = lines->size - lines->counted;
		if (uncounted && (text_input_left(chunks) || cost + uncounted * (1 + chunks->line_cost) > limit)) {
			size_t from = lines->counted, from_lines = lines->counted_lines;
			int err = text_lines_count(lines, chunks->pool, chunks->verify);
			if (err) {
				report_errno(err);
				return err;
			}
			cost = lines->counted + lines->counted_lines * chunks->line_cost;
			if (cost > limit) {
				if (text_chunk_cut(chunks, buffer, from, from_lines))
					return 1;
				continue; /* the chunk grew */
			}
		}
		if (!chunks->file) {
			if (chunks->next_input == chunks->inputs->count) {
				if (chunks->order->csv_encoding)
					chunks->order->csv_encoding->all_read = true;
				buffer->read = lines->size;
				return 0; /* every line is complete: the last input's was given its end */
			}
			const char *name = chunks->inputs->names[chunks->next_input];
			const struct input_range *range = chunks->inputs->ranges ? &chunks->inputs->ranges[chunks->next_input] : NULL;
			int err = range ? input_file_open_range(name, (off_t)range->offset, (off_t)range->length, &chunks->file)
					: input_file_open(name, &chunks->file);
			if (err) {
				report_input_open_error(name, err, false);
				return err;
			}
			if ((err = input_header_take(chunks->header, chunks->file, name)) != 0)
				return err;
			text_chunks_csv_start(chunks);
			chunks->next_input++;
		}
		/* the room left (all read is counted by now), as bytes of lines as long as
		 * those seen (as short as can be before any was seen), */
		size_t left = limit - cost;
		size_t length = lines->counted_lines ? lines->counted / lines->counted_lines
				: chunks->bytes_per_line ? chunks->bytes_per_line : 1;
		if (length == 0)
			length = 1;
		/* a sixteenth short, so that the piece rarely passes the limit, which would
		 * leave read lines to carry into the next chunk */
		size_t room = (size_t)((double)left * length / (length + chunks->line_cost) / 16 * 15);
		if (room < limit / TEXT_CHUNK_SLACK && lines->size > 0) {
			/* full: cut after the last complete line */
			if (text_chunk_cut(chunks, buffer, lines->counted, lines->counted_lines))
				return 1;
			continue; /* the chunk grew */
		}
		if (room < limit / TEXT_CHUNK_SLACK)
			room = limit / TEXT_CHUNK_SLACK + 1;
		double started = stats_now();
		ssize_t got = text_lines_append(lines, chunks->file, room, chunks->pool,
						&chunks->stats->line.moved[PROGRESS_READ]);
		stats_add(chunks->stats, STAGE_READ, started, got > 0 ? (uint64_t)got : 0);
		if (got < 0) {
			csv_input_report(chunks->inputs->names[chunks->next_input - 1], lines->csv, (int)got);
			return (int)got;
		}
		if ((size_t)got < room) { /* the input ended */
			input_file_close(chunks->file);
			chunks->file = NULL;
		}
	}
}

static int text_carry(void *context, int from, int to)
{
	struct text_chunks *chunks = context;
	struct text_chunk *a = &chunks->buffers[from], *b = &chunks->buffers[to];
	/* a may be spilling: only b changes */
	int err = text_lines_carry(&b->lines, &a->lines, a->read);
	if (err)
		report_errno(err);
	b->read = b->lines.size;
	return err;
}

static int text_sort(void *context, int b)
{
	struct text_chunks *chunks = context;
	struct text_chunk *buffer = &chunks->buffers[b];
	struct text_lines *lines = &buffer->lines;
	double started = stats_now();
	/* the items are made as the lines are indexed, while their bytes are in cache */
	struct text_line_items *items = &chunks->items;
	int err = text_lines_count(lines, chunks->pool, chunks->verify);
	/* its steps: the lines indexed, their items sorted, their ties broken */
	stats_progress_chunk_begin(chunks->stats, lines->size, 3 * (uint64_t)lines->counted_lines);
	if (!err)
		err = text_line_items_reserve(items, chunks->order, lines->counted_lines, chunks->engine);
	if (!err)
		err = text_lines_index(lines, chunks->pool, chunks->verify, text_line_items_make, items);
	started = stats_add(chunks->stats, STAGE_PREPARE, started, lines->size);
	huge_memory_free(buffer->sorted);
	buffer->sorted = NULL;
	if (!err)
		err = text_line_sort(items, lines, chunks->engine, chunks->pool, &buffer->sorted);
	if (!err)
		sort_verify_plant_test_bug(buffer->sorted, lines->count, sizeof *buffer->sorted);
	stats_add(chunks->stats, STAGE_SORT, started, lines->count * text_line_sort_item_bytes(lines->count));
	stats_progress_chunk_end(chunks->stats);
	chunks->stats->records += lines->count;
	if (err)
		report_errno(err);
	return err;
}

static int text_emit(void *context, int b, const struct emit_output *output)
{
	struct text_chunks *chunks = context;
	struct text_chunk *buffer = &chunks->buffers[b];
	struct emit_output kept = *output;
	kept.scratch = &chunks->emit_scratch;
	return text_lines_emit(chunks->order, &buffer->lines, buffer->sorted, buffer->lines.count, chunks->pool,
			       chunks->verify, &kept);
}

/* The chunk's lines, and a terminator for a last line that has none. */
static uint64_t text_output_bound(void *context, int b)
{
	struct text_chunks *chunks = context;
	return (uint64_t)chunks->buffers[b].lines.size + 1;
}

static size_t text_expected_runs(void *context)
{
	struct text_chunks *chunks = context;
	if (chunks->total < 0 || !chunks->first_chunk_bytes)
		return 0;
	/* an eighth more: later chunks' lines may be shorter, and a run more than the
	 * blocks allow takes a merge pass more */
	size_t runs = (size_t)chunks->total / chunks->first_chunk_bytes + 1;
	return runs + runs / 8 + 1;
}

static void text_release(void *context)
{
	struct text_chunks *chunks = context;
	for (int i = 0; i < 2; i++) {
		text_lines_free(&chunks->buffers[i].lines);
		huge_memory_free(chunks->buffers[i].sorted);
		chunks->buffers[i].sorted = NULL;
	}
	emit_scratch_free(&chunks->emit_scratch);
	if (chunks->engine) {
		text_line_items_free(&chunks->items, chunks->engine);
		sort_engine_host_trim(chunks->engine);
	}
}

/* With --device=auto, inputs below this many bytes are sorted on the CPU threads: the
 * CUDA context takes longer to start than the CPU threads take to sort that much text,
 * and the GPU's sort stage is no faster for it. --device=N still asks for the GPU. */
#define TEXT_GPU_MIN_BYTES ((int64_t)1 << 30)

/* The inputs' total size, or -1 when one is not a regular file (a pipe, stdin). */
static int64_t inputs_size(const struct input_list *inputs)
{
	int64_t total = 0;
	for (size_t i = 0; i < inputs->count; i++) {
		struct stat st;
		if (strcmp(inputs->names[i], "-") == 0 || stat(inputs->names[i], &st) != 0 ||
		    !S_ISREG(st.st_mode))
			return -1;
		total += inputs->ranges ? (int64_t)inputs->ranges[i].length : st.st_size;
	}
	return total;
}

/* Text mode's part of the driver (sort_driver.h). */
struct text_mode {
	const struct text_order *order;
	struct record_order lines;
	struct input_file *first; /* the lone input, opened and read ahead by text_open */
};

static int text_open(void *context, struct sort_drive *drive)
{
	struct text_mode *text = context;
	const struct input_list *inputs = drive->inputs;
	drive->total = drive->work = inputs_size(inputs);
	if (drive->total >= 0 || inputs->count != 1 || inputs->ranges)
		return 0;
	int err = input_file_open(inputs->names[0], &text->first);
	if (err) {
		report_input_open_error(inputs->names[0], err, false);
		return 2;
	}
	if (input_header_take(drive->job->output.header, text->first, inputs->names[0]) != 0)
		return 2;
	ssize_t got = input_file_read_ahead(text->first, SORT_AHEAD_BYTES);
	if (got < 0) {
		report_file_failure("read failed", inputs->names[0], (int)got);
		return 2;
	}
	if (input_file_ended(text->first))
		drive->total = drive->work = got;
	return 0;
}

static void text_close(void *context)
{
	struct text_mode *text = context;
	input_file_close(text->first);
	text->first = NULL;
}

static int text_sort_inputs(void *context, struct sort_drive *drive)
{
	struct text_mode *text = context;
	const struct sort_job *job = drive->job;
	struct memory_plan plan;
	memory_plan_text(&drive->memory, &drive->asked, drive->total, &plan);
	struct text_chunks chunks = {.order = text->order, .engine = drive->engine, .pool = drive->pool,
				     .verify = &drive->verify, .stats = &drive->stats, .inputs = drive->inputs,
				     .header = job->output.header,
				     .chunk_bytes = plan.chunk_bytes,
				     .line_cost = TEXT_LINE_COST + text_line_sort_extra_bytes(text->order),
				     .total = drive->total,
				     .file = text->first, .next_input = text->first ? 1 : 0};
	text->first = NULL; /* the chunks close it */
	for (int i = 0; i < 2; i++)
		text_lines_init(&chunks.buffers[i].lines, text->order->eol);
	if (chunks.file)
		text_chunks_csv_start(&chunks);
	const struct chunk_mode mode = {&chunks, text_fill, text_carry, text_sort, text_emit, text_release,
					 text_output_bound, text_expected_runs};
	int status = sort_chunks(&mode, &text->lines, &drive->verify, drive->engine, &plan, &job->runs, &job->output,
				 &drive->stats);
	text_release(&chunks);
	if (chunks.file)
		input_file_close(chunks.file);
	csv_encoder_free(&chunks.csv);
	return status;
}

int text_sort_read_salt(const char *random_source, unsigned char *salt)
{
	bool open_failed;
	const char *name = random_source;
	int err = random_source_read(name, salt, TEXT_RANDOM_SALT_BYTES, &open_failed);
	if (err) {
		char quoted[4096 + 64];
		if (open_failed)
			report_file_failure("open failed", name, err);
		else if (!name)
			report_error(err, "getrandom: %s", strerror(-err));
		else if (err == -ENODATA)
			report("%s: end of file", report_locale_quote(name, quoted, sizeof quoted));
		else
			report_error(err, "%s: read error: %s", report_locale_quote(name, quoted, sizeof quoted), strerror(-err));
		return 2;
	}
	return 0;
}

/* A random order's salt: the job's own, or as text_sort_read_salt reads it. Returns
 * 0 or the exit status 2. */
static int salt_random_order(const struct sort_job *job, struct text_order *order)
{
	unsigned char salt[TEXT_RANDOM_SALT_BYTES];
	if (job->random_salt)
		memcpy(salt, job->random_salt, sizeof salt);
	else if (text_sort_read_salt(job->random_source, salt) != 0)
		return 2;
	text_order_salt(order, salt);
	return 0;
}

int text_sort_run(const struct sort_job *job)
{
	char letters[16];
	struct text_order order;
	int err = text_order_init(&order, &job->text, job->unique, job->debug, letters, sizeof letters);
	if (err == -EINVAL) {
		report("options '-%s' are incompatible", letters);
		return 2;
	}
	if (err) {
		report_errno(err);
		return 2;
	}
	/* GNU's order: the incompatible options above, the notes, then the salt */
	if (job->debug)
		text_debug_notes(&job->text, &order);
	if (text_order_is_random(&order) && salt_random_order(job, &order) != 0) {
		text_order_free(&order);
		return 2;
	}
	if (job->output.header) { /* its first record names the columns of [NAME] keys */
		job->output.header->keys = order.keys;
		job->output.header->key_count = order.key_count;
	}
	struct csv_encoding encoding = {0};
	order.csv_encoding = &encoding;
	struct text_mode text = {.order = &order};
	record_order_text(&text.lines, &order);
	const struct sort_driver_mode mode = {&text, &text.lines, NULL, TEXT_GPU_MIN_BYTES,
					      "input below 1 GiB: the CPU threads finish before a GPU would start",
					      text_open, text_sort_inputs, text_close};
	int status = sort_driver_run(job, &mode);
	text_order_free(&order);
	return status;
}
