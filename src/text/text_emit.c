/* Sorted lines put out (see text_emit.h). A first pass measures each chunk of lines (and
 * under -u decides which lines to keep, each against its predecessor, which needs no
 * order between chunks); prefix sums give every chunk its place; then rounds of chunks
 * are gathered by the pool into a buffer, checked while in cache, and handed on. */
#include "config.h"
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "../common/verify.h"
#include "text_compare.h"
#include "text_emit.h"
#include "text_memory.h"

#define EMIT_CHUNK_LINES 16384
#define ROUND_BYTES ((uint64_t)32 << 20)

struct emit_job {
	const struct text_order *order;
	const struct text_lines *lines;
	const uint64_t *sorted;
	size_t n;
	struct sort_verify *verify; /* NULL when not verifying */
	bool to_output;
	unsigned char *keep; /* under -u: whether line i of the order is put out */
	uint64_t *offsets;   /* chunk c's bytes start at offsets[c] (chunks + 1 of them) */
	size_t *kept;        /* lines chunk c puts out */
	char *round;         /* the round's buffer, which starts at offset round_base */
	uint64_t round_base;
	size_t first;        /* the round's first chunk */
	record_sink_at sink_at; /* when not NULL: each chunk written at its offset */
	void *context;
	_Atomic int error;   /* the first error of a sink_at */
};

static void chunk_lines(const struct emit_job *job, size_t chunk, size_t *begin, size_t *end)
{
	*begin = chunk * EMIT_CHUNK_LINES;
	*end = *begin + EMIT_CHUNK_LINES < job->n ? *begin + EMIT_CHUNK_LINES : job->n;
}

static void measure_chunk(void *context, size_t chunk)
{
	struct emit_job *job = context;
	size_t begin, end, kept = 0;
	chunk_lines(job, chunk, &begin, &end);
	uint64_t bytes = 0;
	/* an in-memory sort's output lines count by their indices, all of them, here */
	bool by_position = job->verify && job->to_output && job->verify->by_position;
	struct fingerprint counted = {0, 0};
	for (size_t i = begin; i < end; i++) {
		size_t len;
		const char *line = text_line(job->lines, job->sorted[i], &len);
		if (by_position)
			fingerprint_add_position(&counted, job->sorted[i]);
		if (job->keep) {
			size_t previous_len;
			const char *previous = i > 0 ? text_line(job->lines, job->sorted[i - 1], &previous_len) : NULL;
			job->keep[i] = !previous || text_compare_lines(job->order, previous, previous_len, line, len) != 0;
			if (!job->keep[i]) {
				/* a dropped line counts as put out (the self-check) */
				if (job->verify && !by_position)
					fingerprint_add(&counted, line, len);
				continue;
			}
		}
		bytes += len + 1;
		kept++;
	}
	job->offsets[chunk] = bytes;
	job->kept[chunk] = kept;
	if (counted.count)
		sort_verify_output(job->verify, &counted, 0);
}

/* The end of the line at line in [line, end): 16 bytes at a time while 16 remain (lines
 * are short, where memchr's call and set-up cost more than the scan), then memchr. */
static inline const char *line_end(const char *line, const char *end, unsigned char eol)
{
#if defined(__SSE2__)
	const __m128i wanted = _mm_set1_epi8((char)eol);
	for (; end - line >= 16; line += 16) {
		unsigned mask = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)line), wanted));
		if (mask)
			return line + __builtin_ctz(mask);
	}
#endif
	return memchr(line, eol, (size_t)(end - line));
}

/* The self-check of a chunk's gathered lines, while they are in cache: each against the
 * one before it in the output (strictly after it under -u), and their fingerprint. The
 * chunk's first line is compared with the line before it in the order. Whole lines in
 * byte order (plain: no keys, no collation) decide on their first 8 bytes as one
 * big-endian word where those differ, as they do for most neighbours; the order's
 * fields are read once, since the comparator's call could change them for all the
 * compiler knows. */
static void verify_gathered(const struct emit_job *job, size_t begin, const char *start, const char *out)
{
	const struct text_order *order = job->order;
	const bool plain = order->key_count == 0 && order->last_resort && !order->locale.collate,
		   unique = order->unique,
		   reverse = order->reverse, by_position = job->verify->by_position;
	const unsigned char eol = order->eol;
	uint64_t started = sort_verify_clock(), disorder = 0;
	struct fingerprint print = {0, 0};
	const char *previous = NULL;
	size_t previous_len = 0;
	if (begin > 0)
		previous = text_line(job->lines, job->sorted[begin - 1], &previous_len);
	for (const char *line = start; line < out;) {
		const char *end = line_end(line, out, eol);
		size_t len = (size_t)(end - line);
		uint64_t x, y;
		if (!previous) {
		} else if (plain && previous_len >= 8 && len >= 8 &&
			   (memcpy(&x, previous, 8), memcpy(&y, line, 8), x != y)) {
			/* out of order when the words' order is not the order's direction */
			disorder += (__builtin_bswap64(x) < __builtin_bswap64(y)) == reverse;
		} else {
			int compared = text_compare_lines(order, previous, previous_len, line, len);
			disorder += unique ? compared >= 0 : compared > 0;
		}
		if (!by_position) /* else measure_chunk counted it */
			fingerprint_add(&print, line, len);
		previous = line, previous_len = len;
		line = end + 1;
	}
	sort_verify_output(job->verify, &print, disorder);
	sort_verify_time(job->verify, started);
}

/* parallel_for counts from 0: index i is chunk first + i of the round. */
static void gather_chunk(void *context, size_t index)
{
	struct emit_job *job = context;
	size_t chunk = job->first + index, begin, end;
	chunk_lines(job, chunk, &begin, &end);
	char *start = job->round + (job->offsets[chunk] - job->round_base), *out = start;
	for (size_t i = begin; i < end; i++) {
		if (job->keep && !job->keep[i])
			continue;
		size_t len;
		const char *line = text_line(job->lines, job->sorted[i], &len);
		memcpy(out, line, len);
		out[len] = (char)job->order->eol;
		out += len + 1;
	}
	if (job->verify && job->to_output)
		verify_gathered(job, begin, start, out);
	if (job->sink_at && out > start && !job->error) {
		int error = job->sink_at(job->context, (const unsigned char *)start, (size_t)(out - start),
					 job->offsets[chunk]);
		int none = 0;
		if (error)
			atomic_compare_exchange_strong(&job->error, &none, error);
	}
}

/* Rounds: consecutive chunks up to ROUND_BYTES (at least one chunk each); returns the
 * chunk after the round that starts at first. */
static size_t round_end(const struct emit_job *job, size_t chunks, size_t first)
{
	size_t c = first + 1;
	while (c < chunks && job->offsets[c + 1] - job->offsets[first] <= ROUND_BYTES)
		c++;
	return c;
}

int text_lines_emit(const struct text_order *order, const struct text_lines *lines, const uint64_t *sorted,
		    size_t n, struct thread_pool *pool, struct sort_verify *verify, bool to_output,
		    record_sink sink, record_sink_at sink_at, void *context)
{
	if (n == 0)
		return 0;
	size_t chunks = (n + EMIT_CHUNK_LINES - 1) / EMIT_CHUNK_LINES;
	struct emit_job job = {.order = order, .lines = lines, .sorted = sorted, .n = n,
			       .verify = verify && verify->enabled ? verify : NULL, .to_output = to_output,
			       .sink_at = sink_at, .context = context};
	job.offsets = malloc((chunks + 1) * sizeof *job.offsets);
	job.kept = malloc(chunks * sizeof *job.kept);
	if (order->unique)
		job.keep = text_huge_alloc(n);
	int err = -ENOMEM;
	if (!job.offsets || !job.kept || (order->unique && !job.keep))
		goto done;
	thread_pool_parallel_for(pool, chunks, measure_chunk, &job);
	uint64_t total = 0, largest = 0;
	for (size_t c = 0; c < chunks; c++) {
		uint64_t bytes = job.offsets[c];
		job.offsets[c] = total;
		total += bytes;
	}
	job.offsets[chunks] = total;
	for (size_t first = 0, c; first < chunks; first = c) {
		c = round_end(&job, chunks, first);
		if (job.offsets[c] - job.offsets[first] > largest)
			largest = job.offsets[c] - job.offsets[first];
	}
	/* two round buffers: the sink writes one (on a thread of its own) while the pool
	 * gathers the next; with sink_at the gathering threads write, and one is enough */
	char *rounds[2] = {text_huge_alloc(largest ? largest : 1), NULL};
	rounds[1] = sink_at ? rounds[0] : text_huge_alloc(largest ? largest : 1);
	struct sink_call call = {0};
	err = rounds[0] && rounds[1] ? 0 : -ENOMEM;
	for (size_t first = 0, c, k = 0; first < chunks && !err; first = c, k++) {
		c = round_end(&job, chunks, first);
		job.round = rounds[k & 1];
		job.round_base = job.offsets[first];
		job.first = first;
		thread_pool_parallel_for(pool, c - first, gather_chunk, &job);
		if (sink_at) {
			err = job.error;
			continue;
		}
		size_t count = 0;
		for (size_t i = first; i < c; i++)
			count += job.kept[i];
		if (job.offsets[c] > job.round_base)
			err = sink_call_start(&call, sink, context, (const unsigned char *)job.round,
					      job.offsets[c] - job.round_base, count);
	}
	int last = sink_call_wait(&call);
	if (!err)
		err = last;
	if (rounds[1] != rounds[0])
		free(rounds[1]);
	free(rounds[0]);
done:
	free(job.keep);
	free(job.kept);
	free(job.offsets);
	return err;
}
