/* SPDX-License-Identifier: MIT */
/* Reading text into memory and finding its lines. The line scan runs over slices of the
 * buffer in parallel: counted as the reads come in (text_lines_count), which marks where
 * each slice's lines start, then filled in place, each line hashed for the self-check
 * while the scan has it in cache; within a slice it compares 64 bytes at a time and
 * walks the bits of the terminators found, since memchr per line costs a call per
 * short line. Both passes also sum the bytes as words for the self-check (verify.h's
 * stream_words) from the loads that find the terminators: as read, and as scanned. */
#include "config.h"
#include "text_lines.h"
#include "csv_codec.h"
#include "../common/verify.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "../../kernels/huge_memory.h"
#include "../../io/fault_inject.h"
#include "../../io/input_file.h"
#include "../common/job_context.h"
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
	free(lines->marks);
	text_lines_init(lines, lines->eol);
}

/* The least piece text_lines_append reads at once. */
#define TEXT_FIRST_PIECE ((size_t)64 << 10)

int text_lines_reserve(struct text_lines *lines, size_t bytes)
{
	if (lines->capacity - lines->size >= bytes)
		return 0;
	size_t capacity = lines->capacity ? lines->capacity : TEXT_FIRST_PIECE;
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

ssize_t text_lines_append(struct text_lines *lines, struct input_file *file, size_t limit, struct thread_pool *pool,
			  atomic_uint_least64_t *read_bytes)
{
	size_t total = 0;
	off_t size = input_file_size(file);
	/* room for all this call may read at once, made in one step: grown piece by piece,
	 * the buffer would be copied whole at each doubling, on one thread */
	if (size > 0) {
		size_t want = ((uint64_t)size < limit ? (size_t)size : limit) + 1;
		char *before = lines->data;
		if (text_lines_reserve(lines, want) < 0)
			return -ENOMEM;
		if (pool && lines->data != before) {
			/* a new buffer: faulted in on the pool (huge_memory_populate) rather than
			 * page by page under the reads, as records' chunks are */
			void *array = lines->data;
			size_t bytes = lines->size + want;
			huge_memory_populate(pool, &array, &bytes, 1);
		}
	}
	while (total < limit) {
		/* Large pieces: a regular file is then read on several threads (io/). But no
		 * larger than the room made above for a file, nor for a pipe than what it gave
		 * so far: a small input then costs no large buffer, whose first touch alone
		 * would take longer than sorting it. */
		size_t room = lines->capacity - lines->size;
		size_t most = size > 0 && room > TEXT_FIRST_PIECE ? room - 1
			      : lines->size > TEXT_FIRST_PIECE ? lines->size : TEXT_FIRST_PIECE;
		size_t want = most < (size_t)64 << 20 ? most : (size_t)64 << 20;
		if (want > limit - total)
			want = limit - total;
		/* +1 keeps room for a terminator the input may lack; --csv's encoding may
		 * double what is read */
		if (text_lines_reserve(lines, (lines->csv ? 2 * want : want) + 1) < 0)
			return -ENOMEM;
		ssize_t got = job_cancelled() ? -ECANCELED : input_file_read(file, lines->data + lines->size, want);
		ssize_t kept = got;
		if (got > 0 && lines->csv)
			kept = csv_encode_shared(lines->csv, pool, lines->data + lines->size, (size_t)got);
		else if (got == 0 && lines->csv)
			kept = csv_encode_end(lines->csv);
		if (kept < 0)
			return kept;
		lines->size += (size_t)kept;
		total += (size_t)got;
		if (read_bytes)
			atomic_fetch_add_explicit(read_bytes, (uint64_t)got, memory_order_relaxed);
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

#ifdef __SSE2__
static inline uint64_t terminator_mask(const char *p, __m128i eol)
{
	uint64_t m0 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p), eol));
	uint64_t m1 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 16)), eol));
	uint64_t m2 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 32)), eol));
	uint64_t m3 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 48)), eol));
	return m0 | m1 << 16 | m2 << 32 | m3 << 48;
}

/* terminator_mask of p[0, 64), whose loads also add p's bytes to *words as four pairs
 * of 8-byte words (the self-check's stream_words, where p starts a word). */
static inline uint64_t terminator_mask_words(const char *p, __m128i eol, __m128i *words)
{
	__m128i v0 = _mm_loadu_si128((const __m128i *)p), v1 = _mm_loadu_si128((const __m128i *)(p + 16));
	__m128i v2 = _mm_loadu_si128((const __m128i *)(p + 32)), v3 = _mm_loadu_si128((const __m128i *)(p + 48));
	*words = _mm_add_epi64(*words, _mm_add_epi64(_mm_add_epi64(v0, v1), _mm_add_epi64(v2, v3)));
	uint64_t m0 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v0, eol));
	uint64_t m1 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v1, eol));
	uint64_t m2 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v2, eol));
	uint64_t m3 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v3, eol));
	return m0 | m1 << 16 | m2 << 32 | m3 << 48;
}

static inline uint64_t lanes_sum(__m128i v)
{
	return (uint64_t)_mm_cvtsi128_si64(v) + (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v));
}
#endif

/* Bytes from the stream's byte `offset` to its next word's start (0 at one). */
static inline size_t to_word_start(uint64_t offset)
{
	return (size_t)((8 - offset % 8) % 8);
}


/* text_count_terminators of data[0, len), which starts at the stream's byte offset,
 * adding its words (stream_words) to *words from the same loads. */
static size_t count_terminators_words(const char *data, size_t len, unsigned char eol, uint64_t offset,
				      uint64_t *words)
{
	size_t at = to_word_start(offset) < len ? to_word_start(offset) : len;
	size_t n = text_count_terminators(data, at, eol);
	uint64_t sum = stream_words(data, at, offset);
#ifdef __SSE2__
	/* from a word's start, each 16 bytes are two whole words */
	__m128i eol_vector = _mm_set1_epi8((char)eol), zero = _mm_setzero_si128(), pairs = zero;
	while (at + 16 <= len) {
		size_t steps = (len - at) / 16 < 255 ? (len - at) / 16 : 255;
		__m128i lanes = zero;
		for (size_t k = 0; k < steps; k++, at += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(data + at));
			lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(v, eol_vector));
			pairs = _mm_add_epi64(pairs, v);
		}
		n += (size_t)lanes_sum(_mm_sad_epu8(lanes, zero));
	}
	sum += lanes_sum(pairs);
#endif
	*words += sum + stream_words(data + at, len - at, offset + at);
	return n + text_count_terminators(data + at, len - at, eol);
}

/* Counting goes in slices of this many bytes, each of which leaves a mark. */
#define COUNT_SLICE_BYTES ((size_t)2 << 20)

struct count_job {
	const struct text_lines *lines;
	struct text_mark *marks; /* .lines: the slice's terminators, until summed */
	size_t slices, end;
	struct sort_verify *verify; /* NULL: no words taken */
};

static void count_slice(void *ctx, size_t slice)
{
	struct count_job *job = ctx;
	const struct text_lines *lines = job->lines;
	if (job_cancelled())
		return; /* the count is not wanted: text_lines_count says so */
	size_t begin = job->marks[slice].offset;
	size_t end = slice + 1 < job->slices ? job->marks[slice + 1].offset : job->end;
	/* bytes carried from an earlier chunk were taken as read there */
	size_t from = !job->verify ? end : begin > lines->summed ? begin : lines->summed < end ? lines->summed : end;
	uint64_t words = 0;
	size_t ended = text_count_terminators(lines->data + begin, from - begin, lines->eol);
	ended += count_terminators_words(lines->data + from, end - from, lines->eol, lines->origin + from, &words);
	job->marks[slice].lines = ended;
	if (job->verify)
		sort_verify_words(job->verify, words, 0);
}

int text_lines_count(struct text_lines *lines, struct thread_pool *pool, struct sort_verify *verify)
{
	size_t begin = lines->counted, end = lines->size;
	if (begin >= end)
		return 0;
	size_t slices = (end - begin + COUNT_SLICE_BYTES - 1) / COUNT_SLICE_BYTES;
	if (lines->mark_capacity - lines->mark_count < slices) {
		size_t capacity = 2 * (lines->mark_count + slices);
		struct text_mark *grown = realloc(lines->marks, capacity * sizeof *grown);
		if (!grown)
			return -ENOMEM;
		lines->marks = grown;
		lines->mark_capacity = capacity;
	}
	struct text_mark *marks = lines->marks + lines->mark_count;
	for (size_t s = 0; s < slices; s++)
		marks[s].offset = begin + s * COUNT_SLICE_BYTES;
	struct count_job job = { lines, marks, slices, end, verify && verify->enabled ? verify : NULL };
	if (slices == 1 || !pool)
		for (size_t s = 0; s < slices; s++)
			count_slice(&job, s);
	else
		thread_pool_parallel_for(pool, slices, count_slice, &job);
	if (job_cancelled())
		return -ECANCELED;
	size_t total = lines->counted_lines;
	for (size_t s = 0; s < slices; s++) {
		size_t ended = marks[s].lines;
		marks[s].lines = total;
		total += ended;
	}
	lines->mark_count += slices;
	lines->counted = end;
	lines->counted_lines = total;
	if (lines->summed < end)
		lines->summed = end;
	return 0;
}

void text_lines_keep(struct text_lines *lines, size_t size, size_t count)
{
	lines->size = lines->counted = size;
	lines->counted_lines = count;
	while (lines->mark_count > 0 && lines->marks[lines->mark_count - 1].offset >= size)
		lines->mark_count--;
}

int text_lines_carry(struct text_lines *to, const struct text_lines *from, size_t end)
{
	/* from's numbers are read before to is emptied: with one buffer, they are one */
	size_t kept = from->size, tail = end - kept;
	size_t summed = from->summed > end ? tail : from->summed > kept ? from->summed - kept : 0;
	uint64_t origin = from->origin + kept;
	const char *moved = from->data + kept;
	/* the test of the self-check (io/fault_inject.h): the bug of ef648ce planted */
	if (fault_at(FAULT_TEXT_CARRY) == FAULT_SHORT)
		moved = from->data;
	to->size = to->count = 0;
	to->counted = to->counted_lines = to->mark_count = 0;
	if (to != from) {
		int err = text_lines_reserve(to, tail);
		if (err)
			return err;
	}
	if (tail)
		memmove(to->data, moved, tail);
	to->size = tail;
	to->summed = summed;
	to->origin = origin;
	return 0;
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

/* Stores the start of the line after each terminator in data[begin, end) at out[0...];
 * returns how many it stored. Adds the words of those bytes (stream_words, data[0]
 * being the stream's byte origin) to *words from the same loads. */
static size_t store_starts(const char *data, size_t begin, size_t end, unsigned char eol, uint64_t *out,
			   uint64_t origin, uint64_t *words)
{
	uint64_t *first = out;
	size_t at = begin + to_word_start(origin + begin) < end ? begin + to_word_start(origin + begin) : end;
	uint64_t sum = stream_words(data + begin, at - begin, origin + begin);
	for (size_t i = begin; i < at; i++)
		if ((unsigned char)data[i] == eol)
			*out++ = (uint64_t)i + 1;
#ifdef __SSE2__
	__m128i eol_vector = _mm_set1_epi8((char)eol), pairs = _mm_setzero_si128();
	for (; at + 64 <= end; at += 64) {
		uint64_t mask = terminator_mask_words(data + at, eol_vector, &pairs);
		while (mask) {
			*out++ = (uint64_t)(at + (size_t)__builtin_ctzll(mask)) + 1;
			mask &= mask - 1;
		}
	}
	sum += lanes_sum(pairs);
#endif
	*words += sum + stream_words(data + at, end - at, origin + at);
	for (; at < end; at++)
		if ((unsigned char)data[at] == eol)
			*out++ = (uint64_t)at + 1;
	return (size_t)(out - first);
}

static void fingerprint_lines(const struct text_lines *lines, size_t first, size_t end, struct fingerprint *print)
{
	for (size_t i = first; i < end; i++) {
		size_t len;
		const char *line = text_line(lines, i, &len);
		fingerprint_add(print, line, len);
	}
}

/* A slice is scanned in blocks of this many bytes, the lines that end in each hashed
 * right after it, while its bytes are in the core's first-level cache. */
#define INDEX_BLOCK_BYTES ((size_t)32 << 10)

struct index_job {
	struct text_lines *lines;
	struct sort_verify *verify; /* NULL: no line's bytes hashed */
	struct sort_verify *words;  /* NULL: no words taken */
	text_lines_visit visit;
	void *context;
	struct thread_pool *pool; /* counts the lines visited as steps (thread_pool_progress) */
};

/* Lines [first, end) hashed and visited. */
static void lines_scanned(const struct index_job *job, size_t first, size_t end, struct fingerprint *print,
			  uint64_t *spent)
{
	if (job->verify) {
		uint64_t started = sort_verify_clock();
		fingerprint_lines(job->lines, first, end, print);
		*spent += sort_verify_clock() - started;
	}
	if (job->visit)
		job->visit(job->context, job->lines, first, end);
}

/* Slice s runs from marks[s] to the next mark. Its first line may start in an earlier
 * slice, whose scan is writing that start: it is taken once all slices are done. */
static void index_slice(void *ctx, size_t slice)
{
	struct index_job *job = ctx;
	struct text_lines *lines = job->lines;
	if (job_cancelled())
		return; /* text_lines_index says so */
	const struct text_mark *mark = &lines->marks[slice];
	size_t end = slice + 1 < lines->mark_count ? mark[1].offset : lines->size;
	size_t line = mark->lines, done = slice == 0 ? 0 : line + 1;
	struct fingerprint print = {0, 0};
	uint64_t spent = 0, words = 0;
	for (size_t at = mark->offset; at < end; at += INDEX_BLOCK_BYTES) {
		size_t stop = end - at > INDEX_BLOCK_BYTES ? at + INDEX_BLOCK_BYTES : end;
		line += store_starts(lines->data, at, stop, lines->eol, lines->starts + line + 1, lines->origin, &words);
		if (line > done) {
			lines_scanned(job, done, line, &print, &spent);
			thread_pool_progress(job->pool, line - done);
			done = line;
		}
	}
	if (job->verify) {
		sort_verify_input(job->verify, &print);
		sort_verify_time(job->verify, sort_verify_clock() - spent);
	}
	if (job->words)
		sort_verify_words(job->words, 0, words);
}

int text_lines_index(struct text_lines *lines, struct thread_pool *pool, struct sort_verify *verify,
		     text_lines_visit visit, void *context)
{
	int err = text_lines_count(lines, pool, verify);
	if (err)
		return err;
	size_t count = lines->counted_lines;
	if (count + 1 > lines->starts_capacity) {
		/* kept for the buffer's next lines, an eighth more than these need when it grows */
		huge_memory_free(lines->starts);
		lines->starts_capacity = count + 1 + (lines->starts_capacity ? count / 8 : 0);
		lines->starts = huge_memory_alloc(lines->starts_capacity * sizeof *lines->starts);
		if (!lines->starts) {
			lines->starts_capacity = 0;
			return -ENOMEM;
		}
	}
	lines->starts[0] = 0;
	lines->count = count;
	bool checked = verify && verify->enabled, hashed = checked && !verify->by_position;
	struct index_job job = { lines, hashed ? verify : NULL, checked ? verify : NULL, visit, context, pool };
	thread_pool_parallel_for(pool, lines->mark_count, index_slice, &job);
	if (job_cancelled())
		return -ECANCELED;
	struct fingerprint print = {0, 0};
	uint64_t spent = 0;
	/* each slice's first line, where one ends in it */
	for (size_t s = 1; s < lines->mark_count; s++) {
		size_t first = lines->marks[s].lines;
		size_t next = s + 1 < lines->mark_count ? lines->marks[s + 1].lines : count;
		if (next > first)
			lines_scanned(&job, first, first + 1, &print, &spent);
	}
	if (hashed) {
		sort_verify_input(verify, &print);
	} else if (verify && verify->enabled) {
		/* the lines are their indices: a closed form, nothing to read */
		fingerprint_add_positions(&print, 0, count);
		sort_verify_input(verify, &print);
	}
	return 0;
}
