/* Reading text into memory and finding its lines. The line scan runs over
 * slices of the buffer in parallel, counted first and then filled in place; within a
 * slice it compares 64 bytes at a time and walks the bits of the terminators found,
 * since memchr per line costs a call per short line. */
#include "config.h"
#include "text_lines.h"
#include "../common/verify.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "../../kernels/huge_memory.h"
#include "../../io/input_file.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

void text_lines_init(struct text_lines *lines, unsigned char eol)
{
	memset(lines, 0, sizeof *lines);
	lines->eol = eol;
}

void text_lines_free(struct text_lines *lines)
{
	huge_memory_free(lines->data);
	huge_memory_free(lines->starts);
	text_lines_init(lines, lines->eol);
}

int text_lines_reserve(struct text_lines *lines, size_t bytes)
{
	if (lines->capacity - lines->size >= bytes)
		return 0;
	size_t capacity = lines->capacity ? lines->capacity : 1 << 16;
	while (capacity - lines->size < bytes)
		capacity *= 2;
	char *data = huge_memory_alloc(capacity);
	if (!data)
		return -ENOMEM;
	if (lines->size)
		memcpy(data, lines->data, lines->size);
	huge_memory_free(lines->data);
	lines->data = data;
	lines->capacity = capacity;
	return 0;
}

ssize_t text_lines_append(struct text_lines *lines, struct input_file *file, size_t limit)
{
	size_t total = 0;
	off_t size = input_file_size(file);
	/* room for all this call may read at once: grown 64 MiB at a time, the buffer was
	 * copied into a new one at each doubling, on one thread (4 GiB of lines read at
	 * 1.6 GB/s on the H100 machine, bench/RESULTS.md) */
	if (size > 0 && text_lines_reserve(lines, ((uint64_t)size < limit ? (size_t)size : limit) + 1) < 0)
		return -ENOMEM;
	while (total < limit) {
		/* Large pieces: a regular file is then read on several threads (io/). */
		size_t want = (size_t)64 << 20;
		if (want > limit - total)
			want = limit - total;
		/* +1 keeps room for a terminator the input may lack. */
		if (text_lines_reserve(lines, want + 1) < 0)
			return -ENOMEM;
		ssize_t got = input_file_read(file, lines->data + lines->size, want);
		if (got < 0)
			return got;
		lines->size += (size_t)got;
		total += (size_t)got;
		if (got == 0) {
			/* The input ended: its last line may lack a terminator (earlier inputs
			 * always end with one, so only this input's line is affected). */
			if (lines->size && (unsigned char)lines->data[lines->size - 1] != lines->eol)
				lines->data[lines->size++] = (char)lines->eol;
			break;
		}
	}
	return (ssize_t)total;
}

struct index_job {
	struct text_lines *lines;
	size_t slices;
	size_t *counts;  /* lines ending in each slice (first pass) */
	size_t *offsets; /* lines ending before each slice (second pass) */
};

static void slice_bounds(const struct index_job *job, size_t slice, size_t *begin, size_t *end)
{
	size_t size = job->lines->size;
	*begin = size / job->slices * slice;
	*end = slice + 1 == job->slices ? size : size / job->slices * (slice + 1);
}

#ifdef __SSE2__
static inline uint64_t terminator_mask(const char *p, __m128i eol)
{
	uint64_t m0 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p), eol));
	uint64_t m1 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 16)), eol));
	uint64_t m2 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 32)), eol));
	uint64_t m3 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 48)), eol));
	return m0 | m1 << 16 | m2 << 32 | m3 << 48;
}
#endif

size_t text_count_terminators(const char *data, size_t len, unsigned char eol)
{
	size_t n = 0, at = 0;
#ifdef __SSE2__
	/* Each byte lane subtracts its matches (-1 each) for up to 255 steps of 16 bytes,
	 * then one sum of absolute differences adds the lanes up: no popcount, which
	 * baseline x86-64 lacks (gcc calls a library routine for it). */
	__m128i eol_vector = _mm_set1_epi8((char)eol), zero = _mm_setzero_si128();
	while (at + 16 <= len) {
		size_t steps = (len - at) / 16 < 255 ? (len - at) / 16 : 255;
		__m128i lanes = zero;
		for (size_t k = 0; k < steps; k++, at += 16)
			lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(data + at)), eol_vector));
		__m128i sums = _mm_sad_epu8(lanes, zero);
		n += (size_t)_mm_cvtsi128_si64(sums) + (size_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums));
	}
#endif
	for (; at < len; at++)
		n += (unsigned char)data[at] == eol;
	return n;
}

#define COUNT_SLICE_BYTES ((size_t)4 << 20)

struct count_job {
	const struct text_lines *lines;
	size_t begin, end;
	_Atomic size_t total;
};

static void count_slice(void *ctx, size_t slice)
{
	struct count_job *job = ctx;
	size_t begin = job->begin + slice * COUNT_SLICE_BYTES;
	size_t end = job->end - begin > COUNT_SLICE_BYTES ? begin + COUNT_SLICE_BYTES : job->end;
	atomic_fetch_add(&job->total, text_count_terminators(job->lines->data + begin, end - begin, job->lines->eol));
}

size_t text_lines_count(const struct text_lines *lines, size_t begin, size_t end, struct thread_pool *pool)
{
	size_t slices = (end - begin + COUNT_SLICE_BYTES - 1) / COUNT_SLICE_BYTES;
	if (slices <= 1 || !pool)
		return text_count_terminators(lines->data + begin, end - begin, lines->eol);
	struct count_job job = {lines, begin, end, 0};
	thread_pool_parallel_for(pool, slices, count_slice, &job);
	return atomic_load(&job.total);
}

size_t text_lines_cut(const struct text_lines *lines, size_t begin, size_t begin_lines, size_t limit,
		      size_t line_cost, size_t *count)
{
	const char *data = lines->data;
	/* the last whole line before begin fits, being within data[0, begin) */
	const char *before = begin ? memrchr(data, lines->eol, begin) : NULL;
	size_t cut = before ? (size_t)(before - data) + 1 : 0, seen = begin_lines, at = begin;
	*count = begin_lines;
#ifdef __SSE2__
	/* 64 bytes a step while all of their lines fit */
	__m128i eol_vector = _mm_set1_epi8((char)lines->eol);
	for (; at + 64 <= lines->size; at += 64) {
		uint64_t mask = terminator_mask(data + at, eol_vector);
		if (!mask)
			continue;
		size_t last = at + 63 - (size_t)__builtin_clzll(mask), ended = (size_t)__builtin_popcountll(mask);
		if (last + 1 + (seen + ended) * line_cost > limit)
			break; /* the line that passes the limit ends here: found below */
		seen += ended;
		cut = last + 1;
		*count = seen;
	}
#endif
	for (; at < lines->size; at++) {
		if ((unsigned char)data[at] != lines->eol)
			continue;
		if (at + 1 + (seen + 1) * line_cost > limit)
			break;
		cut = at + 1;
		*count = ++seen;
	}
	return cut;
}

/* Stores the start of the line after each terminator in data[begin, end) at out[0...]. */
static void store_starts(const char *data, size_t begin, size_t end, unsigned char eol,
			 uint64_t *out)
{
	size_t at = begin;
#ifdef __SSE2__
	__m128i eol_vector = _mm_set1_epi8((char)eol);
	for (; at + 64 <= end; at += 64) {
		uint64_t mask = terminator_mask(data + at, eol_vector);
		while (mask) {
			*out++ = (uint64_t)(at + (size_t)__builtin_ctzll(mask)) + 1;
			mask &= mask - 1;
		}
	}
#endif
	for (; at < end; at++)
		if ((unsigned char)data[at] == eol)
			*out++ = (uint64_t)at + 1;
}

static void index_slice(void *ctx, size_t slice)
{
	struct index_job *job = ctx;
	struct text_lines *lines = job->lines;
	size_t begin, end;
	slice_bounds(job, slice, &begin, &end);
	/* a line's start follows the previous line's end */
	if (job->offsets)
		store_starts(lines->data, begin, end, lines->eol,
			     lines->starts + job->offsets[slice] + 1);
	else
		job->counts[slice] = text_count_terminators(lines->data + begin, end - begin, lines->eol);
}

int text_lines_index(struct text_lines *lines, struct thread_pool *pool)
{
	size_t slices = lines->size < (1 << 20) ? 1 : thread_pool_size(pool) * 4;
	size_t counts[slices], offsets[slices];
	struct index_job job = { lines, slices, counts, NULL };
	thread_pool_parallel_for(pool, slices, index_slice, &job);
	size_t total = 0;
	for (size_t s = 0; s < slices; s++) {
		offsets[s] = total;
		total += counts[s];
	}
	huge_memory_free(lines->starts);
	lines->starts = huge_memory_alloc((total + 1) * sizeof *lines->starts);
	if (!lines->starts)
		return -ENOMEM;
	lines->starts[0] = 0;
	job.offsets = offsets;
	thread_pool_parallel_for(pool, slices, index_slice, &job);
	lines->count = total;
	return 0;
}

#define FINGERPRINT_SLICE_LINES ((size_t)1 << 16)

struct fingerprint_job {
	const struct text_lines *lines;
	struct sort_verify *verify;
};

static void fingerprint_slice(void *ctx, size_t slice)
{
	struct fingerprint_job *job = ctx;
	size_t begin = slice * FINGERPRINT_SLICE_LINES, end = begin + FINGERPRINT_SLICE_LINES;
	if (end > job->lines->count)
		end = job->lines->count;
	uint64_t started = sort_verify_clock();
	struct fingerprint print = {0, 0};
	for (size_t i = begin; i < end; i++) {
		size_t len;
		const char *line = text_line(job->lines, i, &len);
		fingerprint_add(&print, line, len);
	}
	sort_verify_input(job->verify, &print);
	sort_verify_time(job->verify, started);
}

void text_lines_fingerprint(const struct text_lines *lines, struct thread_pool *pool, struct sort_verify *verify)
{
	if (!verify || !verify->enabled)
		return;
	if (verify->by_position) {
		/* the lines are their indices: a closed form, nothing to read */
		struct fingerprint print = {0, 0};
		fingerprint_add_positions(&print, 0, lines->count);
		sort_verify_input(verify, &print);
		return;
	}
	struct fingerprint_job job = { lines, verify };
	thread_pool_parallel_for(pool, (lines->count + FINGERPRINT_SLICE_LINES - 1) / FINGERPRINT_SLICE_LINES,
				 fingerprint_slice, &job);
}
