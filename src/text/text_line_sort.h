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

/* On success *sorted holds lines->count line numbers in output order (free() it).
 * Returns 0 or a negative errno. */
int text_line_sort(const struct text_order *order, const struct text_lines *lines,
		   struct sort_engine *engine, struct thread_pool *pool, uint64_t **sorted);

#endif
