/* SPDX-License-Identifier: MIT */
/* --stats of a distributed sort: each rank's figures gathered, and rank 0 prints a line
 * per rank, the totals, and the imbalance (the largest range a rank wrote against the
 * mean). */
#ifndef GPUSORT_DISTRIBUTED_STATS_H
#define GPUSORT_DISTRIBUTED_STATS_H

#include <stdint.h>
#include "cluster.h"

struct rank_figures {
	uint64_t share_bytes;     /* read and sorted by this rank */
	uint64_t sent_bytes;      /* to the other ranks */
	uint64_t received_bytes;  /* from the other ranks */
	uint64_t output_bytes;    /* its range of the output */
	uint64_t rounds;          /* of the exchange */
	uint64_t shared_runs;     /* 1: nothing sent, the others' runs read in place */
	uint64_t on_gpus;         /* 1: the shares stayed on the GPUs, the ranges went GPU to GPU */
	double sort_seconds;      /* its share read, sorted and written as a local run */
	double split_seconds;     /* samples, splitters, cuts */
	double exchange_seconds;
	double merge_seconds;     /* merging what it received into its range */
	double write_seconds;     /* its range put in place, and the commit */
	double total_seconds;
};

/* Collective: gathers every rank's figures; rank 0 prints them to stderr. */
void distributed_stats_print(const struct cluster *cluster, const struct rank_figures *mine);

#endif
