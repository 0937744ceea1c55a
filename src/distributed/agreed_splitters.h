/* SPDX-License-Identifier: MIT */
/* The splitters every rank agrees on, and the cuts they make: each rank's encoded
 * samples (splitters.h) are gathered by all, decoded, sorted, and parts - 1 chosen, the
 * ranks agreeing after each collective step; each rank then cuts its sorted share
 * before each. Both data paths use it: the one through files (distributed_sort) and
 * the one that keeps the shares on the GPUs (resident_sort). */
#ifndef GPUSORT_AGREED_SPLITTERS_H
#define GPUSORT_AGREED_SPLITTERS_H

#include <stdbool.h>
#include <stddef.h>
#include "cluster.h"
#include "splitters.h"

/* How a rank's sorted share is cut: cut sets cuts[j] (j < count) where the share is cut
 * before splitters[j], and reports a failure; end is the share's end in the same unit
 * (bytes or records). */
struct share_cutter {
	int (*cut)(void *context, const struct sample *splitters, size_t count, uint64_t *cuts);
	void *context;
	uint64_t end;
};

/* The split of the sort across ranks, for both data paths: the splitters agreed from
 * every rank's encoded samples (error: this rank's failure in making its own, reported,
 * or 0), and this rank's cuts: cuts[d] to cuts[d + 1] of its share go to rank d (cuts
 * holds size + 1). Every rank calls it; returns 0 or the first failing rank's error. */
int agreed_splitters_split(const struct cluster *cluster, const struct record_order *order, bool unique, int error,
			   const unsigned char *encoded, size_t encoded_bytes, const struct share_cutter *cutter,
			   uint64_t *cuts);

#endif
