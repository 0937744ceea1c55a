/* SPDX-License-Identifier: MIT */
/* The table of calls the MPI module (cluster_mpi.c, built as gpusort-mpi.so) exports as
 * gpusort_cluster_calls, one per function of cluster.h (see there). */
#ifndef GPUSORT_CLUSTER_CALLS_H
#define GPUSORT_CLUSTER_CALLS_H

#include "cluster.h"

/* Raised whenever the table changes, so that a stale module is refused. */
#define CLUSTER_CALLS_VERSION 2

struct cluster_calls {
	int version;
	int (*join)(struct cluster *cluster);
	int (*agree)(const struct cluster *cluster, int error);
	uint64_t (*max)(const struct cluster *cluster, uint64_t value);
	uint64_t (*sum)(const struct cluster *cluster, uint64_t value);
	uint64_t (*exscan)(const struct cluster *cluster, uint64_t value);
	int (*allgather)(const struct cluster *cluster, const uint64_t *values, size_t count, uint64_t *all);
	int (*allgather_bytes)(const struct cluster *cluster, const void *bytes, size_t length, unsigned char **all,
			       uint64_t *offsets);
	int (*alltoall_bytes)(const struct cluster *cluster, const void *send, const size_t *send_counts,
			      const size_t *send_offsets, void *recv, const size_t *recv_counts,
			      const size_t *recv_offsets);
	int (*alltoall)(const struct cluster *cluster, const uint64_t *from, uint64_t *to);
	int (*broadcast)(const struct cluster *cluster, void *bytes, size_t length, int root);
	int (*send)(const struct cluster *cluster, const void *bytes, size_t length, int to);
	int (*receive)(const struct cluster *cluster, void *bytes, size_t length, int from);
};

#endif
