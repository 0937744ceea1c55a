/* SPDX-License-Identifier: MIT */
/* A stable merge sort of line numbers by the full text comparator, for the lines whose
 * item prefixes tie (and for runs formed without the engine). */
#ifndef GPUSORT_TEXT_MERGE_SORT_H
#define GPUSORT_TEXT_MERGE_SORT_H

#include <stddef.h>
#include <stdint.h>
#include "text_lines.h"
#include "text_order.h"
#include "../../kernels/thread_pool.h"

/* Sorts index[0, n) (line numbers into lines) stably; scratch holds n entries. A pool
 * splits large arrays over its threads; pass NULL from inside a parallel loop. */
void text_merge_sort(const struct text_order *order, const struct text_lines *lines,
		     uint64_t *index, uint64_t *scratch, size_t n, struct thread_pool *pool);

#endif
