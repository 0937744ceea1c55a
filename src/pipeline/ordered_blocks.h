/* SPDX-License-Identifier: MIT */
/* Blocks of several streams (the ranges of a parallel merge), produced by threads in any
 * order and handed to one consumer stream by stream, in stream order: the output of a
 * merge written to an output without offsets (a pipe, a terminal).
 *
 * Memory is bounded: a producer ahead of the stream being consumed waits while the
 * queued bytes exceed the limit; the producer of the stream being consumed never waits
 * for the others, only while two blocks of its own are queued (the consumer takes them
 * without waiting for anyone), so the consumer always moves on. Blocks change hands
 * without a copy: a producer hands over its full block and takes back a spare one that
 * the consumer gave back, so the same few blocks go round. Functions return 0 or a
 * negative errno. */
#ifndef GPUSORT_ORDERED_BLOCKS_H
#define GPUSORT_ORDERED_BLOCKS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

struct ordered_block;

struct ordered_blocks {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	size_t streams;
	struct ordered_block **head, **tail; /* per stream */
	size_t *queued_in;                   /* per stream: bytes queued */
	bool *done;                          /* per stream: complete */
	size_t taking;                       /* the stream the consumer takes from now */
	size_t queued;                       /* bytes in all queues */
	size_t limit;
	struct ordered_block *spare;         /* blocks given back, for producers to reuse */
	bool cancelled;
};

int ordered_blocks_init(struct ordered_blocks *blocks, size_t streams, size_t limit);
/* Queues bytes at the start of *block (malloc'ed, *capacity bytes) as stream's next block,
 * and hands back in *block and *capacity a free block of at least *capacity bytes.
 * -ECANCELED once cancelled (the block stays the caller's). */
int ordered_blocks_put(struct ordered_blocks *blocks, size_t stream, unsigned char **block, size_t *capacity,
		       size_t bytes);
/* Queues a copy of bytes as stream's next block. */
int ordered_blocks_put_copy(struct ordered_blocks *blocks, size_t stream, const unsigned char *bytes,
			    size_t len);
/* Stream is complete: the consumer moves past it once its blocks are taken. */
void ordered_blocks_done(struct ordered_blocks *blocks, size_t stream);
/* The consumer's next block in stream order, waiting for it: *block (the consumer's
 * until given back), its *capacity and *bytes. Returns false after the last stream's
 * last block, or once cancelled. */
bool ordered_blocks_take(struct ordered_blocks *blocks, unsigned char **block, size_t *capacity, size_t *bytes);
/* A block taken (or any malloc'ed one), free again: producers reuse it. */
void ordered_blocks_give_back(struct ordered_blocks *blocks, unsigned char *block, size_t capacity);
/* Wakes and stops every producer and the consumer (a failure elsewhere). */
void ordered_blocks_cancel(struct ordered_blocks *blocks);
void ordered_blocks_free(struct ordered_blocks *blocks);

#endif
