/* SPDX-License-Identifier: MIT */
/* Sorting the lines held in memory: each line becomes an item (prefix of its first key
 * over its line number), the engine sorts the items, and lines whose prefixes tie are
 * finished on the CPU with the full comparator. */
#ifndef GPUSORT_TEXT_LINE_SORT_H
#define GPUSORT_TEXT_LINE_SORT_H

#include <stdint.h>
#include "text_lines.h"
#include "text_order.h"
#include "../../kernels/sort_engine.h"
#include "../../kernels/thread_pool.h"

/* The bytes of the item of each of a chunk's n lines. */
size_t text_line_sort_item_bytes(size_t n);
/* The bytes a line takes beside its item while it sorts in order (its next 8 bytes of
 * collation, where kept; 0 otherwise). */
size_t text_line_sort_extra_bytes(const struct text_order *order);

/* A chunk's items, one a line, made while its lines are indexed: text_line_items_make
 * is text_lines_index's visit, so that each line's prefix is read while the scan has
 * its bytes in cache. The room is kept from chunk to chunk, as records' items are. */
struct text_line_items {
	const struct text_order *order;
	enum item_width width;
	void *items;
	size_t bytes; /* the room in items */
	uint64_t *next_words; /* where text_prefix_keeps_next: each line's text_prefix_at at depth 1 */
	size_t next_bytes;    /* the room in next_words */
	bool compared; /* few collated lines: the comparator orders them, no prefixes made */
};

/* Room for the items of n lines: the room there is, or made anew from the engine's host
 * memory (page-locked where the engine has a GPU, whose copies then need no staging),
 * an eighth larger when it grows; returns 0 or -ENOMEM. */
int text_line_items_reserve(struct text_line_items *items, const struct text_order *order, size_t n,
			    struct sort_engine *engine);
void text_line_items_free(struct text_line_items *items, struct sort_engine *engine);
/* Makes the items of lines [first, end) (a text_lines_visit: context is the items). */
void text_line_items_make(void *context, const struct text_lines *lines, size_t first, size_t end);

/* Sorts the items of every line of lines. On success *sorted holds
 * lines->count line numbers in output order (huge_memory_free() it). Returns 0 or a
 * negative errno. */
int text_line_sort(struct text_line_items *items, const struct text_lines *lines, struct sort_engine *engine,
		   struct thread_pool *pool, uint64_t **sorted);

#endif
