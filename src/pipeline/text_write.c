/* The output side of text mode: lines gathered into large buffers and handed to the
 * output file in big writes; a sorted array in memory is gathered by the thread pool. */
#include "text_write.h"
#include "../common/verify.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "../common/stats.h"
#include "../text/text_compare.h"
#include "../text/text_memory.h"
#include "../../io/output_file.h"

#define WRITER_BUFFER (4u << 20)

static int remember(struct text_writer *writer, const char *line, size_t len);

static bool verifying(const struct text_writer *writer)
{
	return writer->verify && writer->verify->enabled;
}

int text_writer_init(struct text_writer *writer, struct output_file *output,
		     const struct text_order *order)
{
	memset(writer, 0, sizeof *writer);
	writer->output = output;
	writer->order = order;
	writer->capacity = WRITER_BUFFER;
	writer->buffer = malloc(writer->capacity);
	return writer->buffer ? 0 : -ENOMEM;
}

int text_writer_init_memory(struct text_writer *writer, const struct text_order *order,
			    size_t capacity)
{
	memset(writer, 0, sizeof *writer);
	writer->order = order;
	writer->capacity = capacity ? capacity : 1;
	writer->buffer = text_huge_alloc(writer->capacity);
	return writer->buffer ? 0 : -ENOMEM;
}

void text_writer_clear(struct text_writer *writer)
{
	writer->used = 0;
	writer->have_last = false;
}

/* output_file_write, timed for --stats (the callers time the stages around it). */
static int output(struct text_writer *writer, const void *data, size_t len)
{
	double started = stats_now();
	int err = output_file_write(writer->output, data, len);
	writer->output_seconds += stats_now() - started;
	if (writer->progress) /* half the bytes read and half the bytes written, as stats.h says */
		stats_progress_update(writer->progress, (writer->progress->bytes[STAGE_READ] +
							 text_writer_total(writer)) / 2);
	return err;
}

int text_writer_bytes(struct text_writer *writer, const char *data, size_t len)
{
	if (len && verifying(writer) && writer->to_output) {
		/* the seam: the first line given against the last one written */
		const char *eol = memchr(data, writer->order->eol, len);
		size_t first = eol ? (size_t)(eol - data) : len;
		int order = writer->have_last ? text_compare_lines(writer->order, writer->last.data,
								   writer->last.len, data, first) : -1;
		struct fingerprint none = {0, 0};
		sort_verify_output(writer->verify, &none, writer->order->unique ? order >= 0 : order > 0);
		/* and the last line given becomes the last one written */
		const char *end = data + len - 1, *start = end;
		while (start > data && (unsigned char)start[-1] != writer->order->eol)
			start--;
		int err = remember(writer, start, (size_t)(end - start));
		if (err)
			return err;
	}
	int err = text_writer_flush(writer);
	if (!err && len)
		err = output(writer, data, len);
	writer->queued += len;
	return err;
}

int text_writer_flush(struct text_writer *writer)
{
	if (writer->used == 0 || !writer->output)
		return 0;
	int err = output(writer, writer->buffer, writer->used);
	writer->queued += writer->used;
	writer->used = 0;
	return err;
}

uint64_t text_writer_total(const struct text_writer *writer)
{
	return writer->queued + writer->positional_bytes + (writer->output ? writer->used : 0);
}

/* Makes room for len more bytes in a memory writer's buffer. */
static int grow(struct text_writer *writer, size_t len)
{
	size_t capacity = writer->capacity;
	while (capacity - writer->used < len)
		capacity *= 2;
	if (capacity == writer->capacity)
		return 0;
	char *grown = realloc(writer->buffer, capacity);
	if (!grown)
		return -ENOMEM;
	writer->buffer = grown;
	writer->capacity = capacity;
	return 0;
}

int text_writer_append(struct text_writer *writer, const char *data, size_t len)
{
	if (!writer->output) {
		int err = grow(writer, len);
		if (err)
			return err;
	} else if (writer->capacity - writer->used < len) {
		int err = text_writer_flush(writer);
		if (err)
			return err;
		if (len > writer->capacity) {
			err = output(writer, data, len);
			writer->queued += len;
			return err;
		}
	}
	memcpy(writer->buffer + writer->used, data, len);
	writer->used += len;
	return 0;
}

static int remember(struct text_writer *writer, const char *line, size_t len)
{
	int err = text_line_copy_set(&writer->last, line, len);
	if (!err)
		writer->have_last = true;
	return err;
}

/* Writing a sorted array in parallel: a first pass measures each chunk of lines (and
 * under -u decides which lines to keep, each against its predecessor, which needs no
 * order between chunks); prefix sums give every chunk its output offset; then rounds of
 * chunks are gathered by the pool into one round buffer and written, by each thread at
 * its offset when the output is a file of our own, else in one write per round. */
#define WRITE_CHUNK_LINES 16384
#define ROUND_BYTES ((uint64_t)32 << 20)

struct gather_job {
	struct text_writer *writer;
	const struct text_lines *lines;
	const uint64_t *sorted;
	size_t n;
	unsigned char *keep;  /* under -u: whether line i of the order is written */
	uint64_t *offsets;    /* chunk c's output bytes start at offsets[c] (chunks + 1) */
	char *round;          /* the round's buffer, which starts at output offset round_base */
	uint64_t round_base;
	bool positional;
	int error;
};

static void chunk_lines(const struct gather_job *job, size_t chunk, size_t *begin, size_t *end)
{
	*begin = chunk * WRITE_CHUNK_LINES;
	*end = *begin + WRITE_CHUNK_LINES < job->n ? *begin + WRITE_CHUNK_LINES : job->n;
}

static void measure_chunk(void *ctx, size_t chunk)
{
	struct gather_job *job = ctx;
	const struct text_order *order = job->writer->order;
	size_t begin, end;
	chunk_lines(job, chunk, &begin, &end);
	uint64_t bytes = 0;
	struct text_writer *writer = job->writer;
	bool verify = verifying(writer);
	/* an in-memory sort's output lines count by their indices, all of them, here */
	bool by_position = verify && writer->to_output && writer->verify->by_position;
	struct fingerprint dropped = {0, 0};
	for (size_t i = begin; i < end; i++) {
		size_t len;
		const char *line = text_line(job->lines, job->sorted[i], &len);
		if (by_position)
			fingerprint_add_position(&dropped, job->sorted[i]);
		if (job->keep) {
			bool keep;
			if (i > 0) {
				size_t previous_len;
				const char *previous = text_line(job->lines, job->sorted[i - 1], &previous_len);
				keep = text_compare_lines(order, previous, previous_len, line, len) != 0;
			} else {
				keep = !writer->have_last ||
				       text_compare_lines(order, writer->last.data, writer->last.len, line, len) != 0;
			}
			job->keep[i] = keep;
			if (!keep) {
				/* a dropped line counts as put out (the self-check) */
				if (verify && !by_position)
					fingerprint_add(&dropped, line, len);
				continue;
			}
		}
		bytes += len + 1;
	}
	job->offsets[chunk] = bytes;
	if (verify && dropped.count)
		sort_verify_output(writer->verify, &dropped, 0);
}

/* The self-check of a chunk's gathered lines, while they are in cache: each against
 * the one before it in the output (strictly after it under -u), and their fingerprint.
 * The chunk's first line is compared with the line before it in the order. */
static void verify_gathered(const struct gather_job *job, size_t begin, const char *start, const char *out)
{
	struct text_writer *writer = job->writer;
	const struct text_order *order = writer->order;
	uint64_t started = sort_verify_clock(), disorder = 0;
	struct fingerprint print = {0, 0};
	const char *previous = NULL;
	size_t previous_len = 0;
	if (begin > 0)
		previous = text_line(job->lines, job->sorted[begin - 1], &previous_len);
	else if (writer->have_last)
		previous = writer->last.data, previous_len = writer->last.len;
	for (const char *line = start; line < out;) {
		const char *eol = memchr(line, order->eol, (size_t)(out - line));
		size_t len = (size_t)(eol - line);
		if (previous) {
			int compared = text_compare_lines(order, previous, previous_len, line, len);
			disorder += order->unique ? compared >= 0 : compared > 0;
		}
		if (!writer->verify->by_position) /* else measure_chunk counted it */
			fingerprint_add(&print, line, len);
		previous = line, previous_len = len;
		line = eol + 1;
	}
	sort_verify_output(writer->verify, &print, disorder);
	sort_verify_time(writer->verify, started);
}

static void gather_chunk(void *ctx, size_t chunk)
{
	struct gather_job *job = ctx;
	char eol = (char)job->writer->order->eol;
	size_t begin, end;
	chunk_lines(job, chunk, &begin, &end);
	char *start = job->round + (job->offsets[chunk] - job->round_base);
	char *out = start;
	for (size_t i = begin; i < end; i++) {
		if (job->keep && !job->keep[i])
			continue;
		size_t len;
		const char *line = text_line(job->lines, job->sorted[i], &len);
		memcpy(out, line, len);
		out[len] = eol;
		out += len + 1;
	}
	if (verifying(job->writer) && job->writer->to_output)
		verify_gathered(job, begin, start, out);
	if (job->positional && out > start) {
		int err = output_file_write_at(job->writer->output, start, (size_t)(out - start),
					       (off_t)job->offsets[chunk]);
		if (err)
			job->error = err;
	}
}

/* Rounds: consecutive chunks up to ROUND_BYTES (at least one chunk each); returns the
 * chunk after the round that starts at first. */
static size_t round_end(const struct gather_job *job, size_t chunks, size_t first)
{
	size_t c = first + 1;
	while (c < chunks && job->offsets[c + 1] - job->offsets[first] <= ROUND_BYTES)
		c++;
	return c;
}

/* parallel_for counts from 0: a round shifts the indices to its own chunks. */
struct gather_round {
	struct gather_job *job;
	size_t first;
};

static void gather_round_chunk(void *ctx, size_t index)
{
	struct gather_round *round = ctx;
	gather_chunk(round->job, round->first + index);
}

int text_writer_sorted(struct text_writer *writer, const struct text_lines *lines,
		       const uint64_t *sorted, size_t n, struct thread_pool *pool)
{
	if (n == 0)
		return 0;
	int err = text_writer_flush(writer);
	if (err)
		return err;
	size_t chunks = (n + WRITE_CHUNK_LINES - 1) / WRITE_CHUNK_LINES;
	struct gather_job job = { writer, lines, sorted, n, NULL, NULL, NULL, 0, false, 0 };
	job.offsets = malloc((chunks + 1) * sizeof *job.offsets);
	if (writer->order->unique)
		job.keep = text_huge_alloc(n);
	if (!job.offsets || (writer->order->unique && !job.keep)) {
		err = -ENOMEM;
		goto done;
	}
	thread_pool_parallel_for(pool, chunks, measure_chunk, &job);
	uint64_t total = 0, largest_round = 0;
	for (size_t c = 0; c < chunks; c++) {
		uint64_t bytes = job.offsets[c];
		job.offsets[c] = total;
		total += bytes;
	}
	job.offsets[chunks] = total;
	for (size_t first = 0, c; first < chunks; first = c) {
		c = round_end(&job, chunks, first);
		if (job.offsets[c] - job.offsets[first] > largest_round)
			largest_round = job.offsets[c] - job.offsets[first];
	}
	if (!writer->output) {
		/* Into memory: one round, gathered in place at the end of the buffer. */
		if ((err = grow(writer, (size_t)total)) != 0)
			goto done;
		job.round = writer->buffer + writer->used;
		struct gather_round round = { &job, 0 };
		thread_pool_parallel_for(pool, chunks, gather_round_chunk, &round);
		writer->used += (size_t)total;
		goto finish;
	}
	job.round = text_huge_alloc(largest_round ? largest_round : 1);
	if (!job.round) {
		err = -ENOMEM;
		goto done;
	}
	/* Offsets in the file are ours only when nothing went through the queue before. */
	job.positional = writer->output && writer->queued == 0 &&
			 output_file_positional(writer->output);
	for (size_t first = 0, c; first < chunks && !err; first = c) {
		c = round_end(&job, chunks, first);
		job.round_base = job.offsets[first];
		struct gather_round round = { &job, first };
		thread_pool_parallel_for(pool, c - first, gather_round_chunk, &round);
		err = job.error;
		uint64_t bytes = job.offsets[c] - job.offsets[first];
		if (!err && !job.positional && bytes)
			err = output(writer, job.round, (size_t)bytes);
	}
	free(job.round);
	if (!err && job.positional)
		writer->positional_bytes += total;
	else if (!err)
		writer->queued += total;
finish:
	if (!err && writer->order->unique) {
		size_t last = n;
		while (last > 0 && !job.keep[last - 1])
			last--;
		if (last > 0) {
			size_t len;
			const char *line = text_line(lines, sorted[last - 1], &len);
			err = remember(writer, line, len);
		}
	}
done:
	free(job.keep);
	free(job.offsets);
	return err;
}

void text_writer_free(struct text_writer *writer)
{
	free(writer->buffer);
	text_line_copy_free(&writer->last);
	memset(writer, 0, sizeof *writer);
}
