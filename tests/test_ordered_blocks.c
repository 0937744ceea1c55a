/* SPDX-License-Identifier: MIT */
/* The ordered hand-over of a parallel merge's blocks (src/pipeline/ordered_blocks.c):
 * producer threads (1 to 4) take streams (1 to 33) in order, as the merge threads take
 * key ranges, and put each stream's blocks (none up to 40, of 1 byte up to past the
 * usual capacity, whole or as copies); one consumer takes them. For limits of 0, 1 byte,
 * around a block and far above, the consumer must get every byte of every stream in
 * stream order, and the bytes queued must never pass the limit by more than the two
 * blocks the consumed stream's producer may hold there; blocks handed back must be
 * free (writing them does not disturb what is queued). Cancelling wakes producers
 * stuck on the limit and the consumer, and frees what is queued (the sanitizer run
 * finds any leak). */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/tap.h"
#include "src/pipeline/ordered_blocks.h"

#define CAPACITY 4096
#define MAX_BLOCK (3 * CAPACITY)

static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Byte i of a stream's bytes (its blocks back to back). */
static unsigned char stream_byte(size_t stream, size_t i)
{
	return (unsigned char)(stream * 131 + i * 7 + i / 251);
}

struct plan {
	size_t streams;
	size_t **sizes;   /* per stream, its blocks' sizes, 0-terminated */
	size_t *total;    /* per stream */
};

struct run {
	struct ordered_blocks blocks;
	struct plan *plan;
	atomic_size_t next_stream;
	size_t cancel_after;   /* the consumer cancels after this many blocks (0: never) */
	int producer_errors;   /* not -ECANCELED, or -ECANCELED without a cancel */
	pthread_mutex_t lock;
};

static void *producer(void *context)
{
	struct run *run = context;
	unsigned char *block = malloc(CAPACITY);
	size_t capacity = CAPACITY;
	uint64_t seed = (uint64_t)(uintptr_t)&block;
	int error = block ? 0 : -ENOMEM;
	for (;;) {
		size_t stream = atomic_fetch_add(&run->next_stream, 1);
		if (stream >= run->plan->streams || error)
			break;
		size_t at = 0;
		for (size_t *size = run->plan->sizes[stream]; *size && !error; size++) {
			bool copy = *size > capacity || next_random(&seed) % 4 == 0;
			if (copy) {
				unsigned char *bytes = malloc(*size);
				for (size_t i = 0; bytes && i < *size; i++)
					bytes[i] = stream_byte(stream, at + i);
				error = bytes ? ordered_blocks_put_copy(&run->blocks, stream, bytes, *size) : -ENOMEM;
				free(bytes);
			} else {
				for (size_t i = 0; i < *size; i++)
					block[i] = stream_byte(stream, at + i);
				size_t was = capacity;
				error = ordered_blocks_put(&run->blocks, stream, &block, &capacity, *size);
				if (!error && (capacity < was || !block))
					error = -EINVAL;
				if (!error)
					memset(block, 0xee, capacity); /* the spare is free: scribbling on it harms nothing */
			}
			at += *size;
		}
		if (!error)
			ordered_blocks_done(&run->blocks, stream);
	}
	if (error && !(error == -ECANCELED && run->cancel_after)) {
		pthread_mutex_lock(&run->lock);
		run->producer_errors++;
		pthread_mutex_unlock(&run->lock);
	}
	if (error == -ECANCELED)
		/* as the merge does on a failure: the rest of the streams are not taken */
		atomic_store(&run->next_stream, run->plan->streams);
	free(block);
	return NULL;
}

static void plan_make(struct plan *plan, size_t streams, uint64_t *seed)
{
	plan->streams = streams;
	plan->sizes = calloc(streams, sizeof *plan->sizes);
	plan->total = calloc(streams, sizeof *plan->total);
	for (size_t s = 0; s < streams; s++) {
		size_t count = next_random(seed) % 41;
		if (next_random(seed) % 5 == 0)
			count = 0; /* an empty range */
		plan->sizes[s] = calloc(count + 1, sizeof **plan->sizes);
		for (size_t b = 0; b < count; b++) {
			uint64_t r = next_random(seed);
			size_t size = r % 3 == 0 ? 1 + r / 3 % 8 : 1 + r / 3 % CAPACITY;
			if (r % 97 == 0)
				size = CAPACITY + 1 + r / 97 % (MAX_BLOCK - CAPACITY); /* past the blocks' capacity */
			plan->sizes[s][b] = size;
			plan->total[s] += size;
		}
	}
}

static void plan_free(struct plan *plan)
{
	for (size_t s = 0; s < plan->streams; s++)
		free(plan->sizes[s]);
	free(plan->sizes);
	free(plan->total);
}

/* One case; returns whether every check held (reported as one test). */
static bool run_case(size_t streams, int producers, size_t limit, size_t cancel_after, uint64_t seed)
{
	struct plan plan;
	plan_make(&plan, streams, &seed);
	struct run run = {.plan = &plan, .cancel_after = cancel_after};
	atomic_init(&run.next_stream, 0);
	pthread_mutex_init(&run.lock, NULL);
	if (ordered_blocks_init(&run.blocks, streams, limit) != 0)
		return false;
	pthread_t threads[4];
	for (int p = 0; p < producers; p++)
		pthread_create(&threads[p], NULL, producer, &run);
	size_t stream = 0, at = 0, taken = 0, most = 0;
	bool in_order = true, bounded = true, cancelled = false;
	unsigned char *block;
	size_t capacity, bytes;
	while (ordered_blocks_take(&run.blocks, &block, &capacity, &bytes)) {
		pthread_mutex_lock(&run.blocks.lock);
		size_t queued = run.blocks.queued;
		pthread_mutex_unlock(&run.blocks.lock);
		if (queued > most)
			most = queued;
		/* the queued bytes: within the limit, but for the consumed stream's two blocks */
		if (queued > limit + 2 * MAX_BLOCK)
			bounded = false;
		while (stream < streams && at == plan.total[stream]) {
			stream++;
			at = 0;
		}
		for (size_t i = 0; i < bytes && in_order; i++)
			if (stream >= streams || at + i >= plan.total[stream] || block[i] != stream_byte(stream, at + i)) {
				tap_diag("stream %zu byte %zu differs", stream, at + i);
				in_order = false;
			}
		at += bytes;
		ordered_blocks_give_back(&run.blocks, block, capacity);
		if (cancel_after && ++taken == cancel_after) {
			ordered_blocks_cancel(&run.blocks);
			cancelled = true;
		}
	}
	for (int p = 0; p < producers; p++)
		pthread_join(threads[p], NULL);
	while (stream < streams && at == plan.total[stream]) {
		stream++;
		at = 0;
	}
	bool complete = cancelled || stream == streams;
	ordered_blocks_free(&run.blocks);
	pthread_mutex_destroy(&run.lock);
	plan_free(&plan);
	bool ok = in_order && bounded && complete && run.producer_errors == 0;
	if (!ok)
		tap_diag("in order %d, bounded %d (most %zu), complete %d, producer errors %d", in_order, bounded, most,
			 complete, run.producer_errors);
	return ok;
}

int main(void)
{
	const size_t stream_counts[] = {1, 2, 7, 33};
	const int producer_counts[] = {1, 2, 4};
	const size_t limits[] = {0, 1, CAPACITY - 1, CAPACITY, CAPACITY + 1, 1 << 20};
	size_t n_streams = sizeof stream_counts / sizeof *stream_counts;
	size_t n_producers = sizeof producer_counts / sizeof *producer_counts;
	size_t n_limits = sizeof limits / sizeof *limits;
	tap_plan((int)(n_streams * n_producers * n_limits + 6));
	uint64_t seed = 11;
	for (size_t s = 0; s < n_streams; s++)
		for (size_t p = 0; p < n_producers; p++)
			for (size_t l = 0; l < n_limits; l++)
				tap_ok(run_case(stream_counts[s], producer_counts[p], limits[l], 0, seed++),
				       "%zu streams, %d producers, limit %zu: every byte in stream order, the queue bounded",
				       stream_counts[s], producer_counts[p], limits[l]);
	/* cancelled with producers waiting on the limit, early and late */
	const size_t cancels[] = {1, 2, 17};
	for (size_t c = 0; c < 3; c++) {
		tap_ok(run_case(33, 4, 1, cancels[c], seed++),
		       "cancelled after %zu blocks (limit 1): producers and consumer stop", cancels[c]);
		tap_ok(run_case(7, 2, CAPACITY, cancels[c], seed++),
		       "cancelled after %zu blocks (limit a block): producers and consumer stop", cancels[c]);
	}
	return tap_done();
}
