/* SPDX-License-Identifier: MIT */
/* The splitters every rank agrees on: each rank's encoded samples (splitters.h) are
 * gathered by all, decoded, sorted, and parts - 1 chosen, the ranks agreeing after each
 * collective step. Both data paths use it: the one through files (distributed_sort)
 * and the one that keeps the shares on the GPUs (resident_sort). */
#ifndef GPUSORT_AGREED_SPLITTERS_H
#define GPUSORT_AGREED_SPLITTERS_H

#include <stdbool.h>
#include <stddef.h>
#include "cluster.h"
#include "splitters.h"

struct agreed_splitters {
	unsigned char *gathered; /* every rank's encoded samples, which the samples point into */
	struct sample *samples;
	struct sample *chosen;   /* one per rank, of which count are set */
	size_t count;
};

/* error: this rank's failure in making its samples (already reported), or 0. Every
 * rank calls it; returns 0 with the splitters in agreed (free them with
 * agreed_splitters_free, also after a failure), or the first failing rank's error. */
int agreed_splitters_choose(const struct cluster *cluster, const struct record_order *order, bool unique, int error,
			    const unsigned char *encoded, size_t encoded_bytes, struct agreed_splitters *agreed);
void agreed_splitters_free(struct agreed_splitters *agreed);

#endif
