/* Reading text into memory and finding its lines. The line scan is memchr over slices
 * of the buffer, one slice per thread, counted first and then filled in place. */
#include "text_lines.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "../io/input_file.h"

void text_lines_init(struct text_lines *lines, unsigned char eol)
{
	memset(lines, 0, sizeof *lines);
	lines->eol = eol;
}

void text_lines_free(struct text_lines *lines)
{
	free(lines->data);
	free(lines->starts);
	text_lines_init(lines, lines->eol);
}

void text_lines_clear(struct text_lines *lines)
{
	lines->size = 0;
	lines->count = 0;
}

int text_lines_reserve(struct text_lines *lines, size_t bytes)
{
	if (lines->capacity - lines->size >= bytes)
		return 0;
	size_t capacity = lines->capacity ? lines->capacity : 1 << 16;
	while (capacity - lines->size < bytes)
		capacity *= 2;
	char *data = realloc(lines->data, capacity);
	if (!data)
		return -ENOMEM;
	lines->data = data;
	lines->capacity = capacity;
	return 0;
}

ssize_t text_lines_append(struct text_lines *lines, struct input_file *file, size_t limit)
{
	size_t total = 0;
	off_t size = input_file_size(file);
	if (size > 0 && limit == SIZE_MAX && text_lines_reserve(lines, (size_t)size + 1) < 0)
		return -ENOMEM;
	while (total < limit) {
		size_t want = 1 << 22;
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
		if ((size_t)got < want) {
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

static void index_slice(void *ctx, size_t slice)
{
	struct index_job *job = ctx;
	struct text_lines *lines = job->lines;
	size_t begin, end;
	slice_bounds(job, slice, &begin, &end);
	const char *data = lines->data;
	size_t n = 0;
	uint64_t *out = NULL;
	if (job->offsets) /* a line's start follows the previous line's end */
		out = lines->starts + job->offsets[slice] + 1;
	const char *p = data + begin, *limit = data + end;
	while (p < limit) {
		const char *hit = memchr(p, lines->eol, (size_t)(limit - p));
		if (!hit)
			break;
		if (out)
			out[n] = (uint64_t)(hit - data) + 1;
		n++;
		p = hit + 1;
	}
	if (!out)
		job->counts[slice] = n;
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
	free(lines->starts);
	lines->starts = malloc((total + 1) * sizeof *lines->starts);
	if (!lines->starts)
		return -ENOMEM;
	lines->starts[0] = 0;
	job.offsets = offsets;
	thread_pool_parallel_for(pool, slices, index_slice, &job);
	lines->count = total;
	return 0;
}
