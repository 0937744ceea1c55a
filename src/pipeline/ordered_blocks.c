/* SPDX-License-Identifier: MIT */
/* Blocks of several streams handed to one consumer in stream order (ordered_blocks.h). */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ordered_blocks.h"

/* Blocks the producer of the stream being consumed may have queued before it waits. */
#define TAKING_STREAM_BLOCKS 2

struct ordered_block {
	struct ordered_block *next;
	unsigned char *data;
	size_t capacity;
	size_t bytes;
};

int ordered_blocks_init(struct ordered_blocks *blocks, size_t streams, size_t limit)
{
	memset(blocks, 0, sizeof *blocks);
	blocks->streams = streams;
	blocks->limit = limit;
	blocks->head = calloc(streams ? streams : 1, sizeof *blocks->head);
	blocks->tail = calloc(streams ? streams : 1, sizeof *blocks->tail);
	blocks->queued_in = calloc(streams ? streams : 1, sizeof *blocks->queued_in);
	blocks->done = calloc(streams ? streams : 1, sizeof *blocks->done);
	if (!blocks->head || !blocks->tail || !blocks->queued_in || !blocks->done) {
		ordered_blocks_free(blocks);
		return -ENOMEM;
	}
	pthread_mutex_init(&blocks->lock, NULL);
	pthread_cond_init(&blocks->changed, NULL);
	return 0;
}

/* Whether the producer of stream must wait before it queues bytes more (lock held). */
static bool producer_waits(const struct ordered_blocks *blocks, size_t stream, size_t bytes)
{
	if (stream == blocks->taking)
		return blocks->queued_in[stream] >= TAKING_STREAM_BLOCKS;
	return blocks->queued + bytes > blocks->limit;
}

/* Waits for room, then appends node to stream's queue. Returns -ECANCELED, with node
 * not queued, once cancelled. */
static int queue_block(struct ordered_blocks *blocks, size_t stream, struct ordered_block *node)
{
	pthread_mutex_lock(&blocks->lock);
	while (!blocks->cancelled && producer_waits(blocks, stream, node->bytes))
		pthread_cond_wait(&blocks->changed, &blocks->lock);
	if (blocks->cancelled) {
		pthread_mutex_unlock(&blocks->lock);
		return -ECANCELED;
	}
	node->next = NULL;
	if (blocks->tail[stream])
		blocks->tail[stream]->next = node;
	else
		blocks->head[stream] = node;
	blocks->tail[stream] = node;
	blocks->queued += node->bytes;
	blocks->queued_in[stream]++;
	pthread_cond_broadcast(&blocks->changed);
	pthread_mutex_unlock(&blocks->lock);
	return 0;
}

/* A spare block of at least capacity bytes, or a new one; NULL without memory. */
static struct ordered_block *spare_block(struct ordered_blocks *blocks, size_t capacity)
{
	pthread_mutex_lock(&blocks->lock);
	struct ordered_block *node = blocks->spare;
	if (node)
		blocks->spare = node->next;
	pthread_mutex_unlock(&blocks->lock);
	if (!node && !(node = calloc(1, sizeof *node)))
		return NULL;
	if (node->capacity < capacity) {
		/* too small (a block grown for a record larger than the others) */
		free(node->data);
		node->data = malloc(capacity);
		node->capacity = node->data ? capacity : 0;
		if (!node->data) {
			free(node);
			return NULL;
		}
	}
	return node;
}

static void block_free(struct ordered_block *node)
{
	free(node->data);
	free(node);
}

int ordered_blocks_put(struct ordered_blocks *blocks, size_t stream, unsigned char **block, size_t *capacity,
		       size_t bytes)
{
	struct ordered_block *node = spare_block(blocks, *capacity);
	if (!node)
		return -ENOMEM;
	/* the spare's bytes become the caller's; the caller's full block is queued */
	unsigned char *free_data = node->data;
	size_t free_capacity = node->capacity;
	node->data = *block;
	node->capacity = *capacity;
	node->bytes = bytes;
	int error = queue_block(blocks, stream, node);
	if (error) {
		node->data = free_data;
		node->capacity = free_capacity;
		block_free(node);
		return error;
	}
	*block = free_data;
	*capacity = free_capacity;
	return 0;
}

int ordered_blocks_put_copy(struct ordered_blocks *blocks, size_t stream, const unsigned char *bytes,
			    size_t len)
{
	struct ordered_block *node = spare_block(blocks, len);
	if (!node)
		return -ENOMEM;
	memcpy(node->data, bytes, len);
	node->bytes = len;
	int error = queue_block(blocks, stream, node);
	if (error)
		block_free(node);
	return error;
}

void ordered_blocks_done(struct ordered_blocks *blocks, size_t stream)
{
	pthread_mutex_lock(&blocks->lock);
	blocks->done[stream] = true;
	pthread_cond_broadcast(&blocks->changed);
	pthread_mutex_unlock(&blocks->lock);
}

bool ordered_blocks_take(struct ordered_blocks *blocks, unsigned char **block, size_t *capacity, size_t *bytes)
{
	pthread_mutex_lock(&blocks->lock);
	for (;;) {
		if (blocks->cancelled || blocks->taking >= blocks->streams)
			break;
		size_t stream = blocks->taking;
		struct ordered_block *node = blocks->head[stream];
		if (node) {
			blocks->head[stream] = node->next;
			if (!node->next)
				blocks->tail[stream] = NULL;
			blocks->queued -= node->bytes;
			blocks->queued_in[stream]--;
			pthread_cond_broadcast(&blocks->changed);
			pthread_mutex_unlock(&blocks->lock);
			*block = node->data;
			*capacity = node->capacity;
			*bytes = node->bytes;
			free(node);
			return true;
		}
		if (blocks->done[stream]) {
			/* the next stream's producer may queue past the limit now */
			blocks->taking++;
			pthread_cond_broadcast(&blocks->changed);
			continue;
		}
		pthread_cond_wait(&blocks->changed, &blocks->lock);
	}
	pthread_mutex_unlock(&blocks->lock);
	return false;
}

void ordered_blocks_give_back(struct ordered_blocks *blocks, unsigned char *block, size_t capacity)
{
	struct ordered_block *node = calloc(1, sizeof *node);
	if (!node) {
		free(block);
		return;
	}
	node->data = block;
	node->capacity = capacity;
	pthread_mutex_lock(&blocks->lock);
	node->next = blocks->spare;
	blocks->spare = node;
	pthread_mutex_unlock(&blocks->lock);
}

void ordered_blocks_cancel(struct ordered_blocks *blocks)
{
	pthread_mutex_lock(&blocks->lock);
	blocks->cancelled = true;
	pthread_cond_broadcast(&blocks->changed);
	pthread_mutex_unlock(&blocks->lock);
}

void ordered_blocks_free(struct ordered_blocks *blocks)
{
	bool initialized = blocks->head && blocks->tail && blocks->queued_in && blocks->done;
	for (size_t s = 0; blocks->head && s < blocks->streams; s++)
		for (struct ordered_block *node = blocks->head[s], *next; node; node = next) {
			next = node->next;
			block_free(node);
		}
	for (struct ordered_block *node = blocks->spare, *next; node; node = next) {
		next = node->next;
		block_free(node);
	}
	if (initialized) {
		pthread_mutex_destroy(&blocks->lock);
		pthread_cond_destroy(&blocks->changed);
	}
	free(blocks->head);
	free(blocks->tail);
	free(blocks->queued_in);
	free(blocks->done);
	memset(blocks, 0, sizeof *blocks);
}
