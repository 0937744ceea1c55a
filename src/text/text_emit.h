/* SPDX-License-Identifier: MIT */
/* Sorted lines put out: gathered in order from the text buffer by the thread pool, each
 * with its terminator, and under -u only the first of lines that compare equal. */
#ifndef GPUSORT_TEXT_EMIT_H
#define GPUSORT_TEXT_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../common/emit_rounds.h"
#include "../../kernels/thread_pool.h"
#include "text_lines.h"
#include "text_order.h"

struct sort_verify;

/* Puts the lines sorted[0, n) of lines out as output says (emit_rounds.h), in rounds of
 * whole lines gathered on pool (NULL: this thread); with a sink_at, each thread writes
 * the lines it gathered at their offset while they are in cache. The self-check
 * (verify.h; NULL for none): lines dropped by -u count as put out; with to_output they
 * are the sort's output, so they are counted too (by index when verify->by_position)
 * and checked for order. Returns 0, the sink's error or -ENOMEM. */
int text_lines_emit(const struct text_order *order, const struct text_lines *lines, const uint64_t *sorted,
		    size_t n, struct thread_pool *pool, struct sort_verify *verify, const struct emit_output *output);

#endif
