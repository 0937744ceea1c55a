/* SPDX-License-Identifier: MIT */
/* Cutting k sorted inputs into key ranges at splitters, for merges that take one range
 * per thread: each splitter is located in each input (the first record not before it),
 * the (splitter, input) pairs taken in turn by threads. The final merge of runs
 * (range_merge) and the merge of a rank's range (distributed/rank_merge) both cut this
 * way; each says how a splitter is located in its inputs. */
#ifndef GPUSORT_RANGE_CUT_H
#define GPUSORT_RANGE_CUT_H

#include <stddef.h>
#include <stdint.h>

/* How splitters are located in the inputs: locate sets *position, in input input, for
 * splitter splitter (from 1: range splitter starts there), with scratch, scratch_bytes
 * of the calling thread's own; it returns 0 or a negative errno, reported or not as
 * the caller says. threads: at most this many at once (1: this thread alone, for
 * inputs that one reader serves). */
struct range_locator {
	int (*locate)(void *context, void *scratch, size_t splitter, size_t input, uint64_t *position);
	void *context;
	size_t scratch_bytes;
	unsigned threads;
};

/* Fills bounds[j * k + i] for j in [0, ranges]: where range j begins in input i (0 for
 * range 0; row ranges holds ends[i]), kept from going down. Returns 0 or the first
 * failure, with *failed (when not NULL) its input, or k for memory. */
int range_cut(const struct range_locator *locator, size_t k, size_t ranges, const uint64_t *ends, uint64_t *bounds,
	      size_t *failed);

#endif
