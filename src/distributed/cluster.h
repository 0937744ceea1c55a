/* SPDX-License-Identifier: MIT */
/* The ranks of an MPI job as the distributed sort sees them: who we are, and the few
 * collective steps it takes (agreement, all-gather, all-to-all, exclusive scan, one
 * rank's bytes to another). cluster_mpi.c is the only file that calls MPI (built as the
 * module gpusort-mpi.so, opened by cluster_load.c when a launch is there); the rest of
 * src/distributed/ speaks to the ranks through this header. Every call is collective
 * (all ranks make it in the same order) unless it says otherwise, is made from the
 * thread that joined, and returns 0 or a negative errno; MPI's own errors end the job
 * (its default handler), which is what a lost rank should do. */
#ifndef GPUSORT_CLUSTER_H
#define GPUSORT_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cluster {
	int rank, size;             /* this process among all of the job */
	int local_rank, local_size; /* among those on this machine (one GPU each) */
};

/* Whether the environment shows an MPI launch of more than one process (Open MPI's
 * mpirun, PMIx or PMI launchers such as srun): without one, gpusort never starts MPI. */
bool cluster_launched(void);

/* Loads the MPI module and starts MPI (once; MPI is finalized at exit), and fills in
 * where we are. Reports a failure (a module that cannot be loaded, MPI that does not
 * start). */
int cluster_join(struct cluster *cluster);

/* Every rank's error (0 or a negative errno) in, one out: 0 when all were 0, else the
 * first nonzero one by rank. The messages reported since the last agreement (held:
 * report_hold) are then printed by every rank when all went well, else by the first
 * failing rank alone, and the next ones held again. */
int cluster_agree(const struct cluster *cluster, int error);

/* The largest and the sum of every rank's value. */
uint64_t cluster_max(const struct cluster *cluster, uint64_t value);
uint64_t cluster_sum(const struct cluster *cluster, uint64_t value);

/* The sum of the values of the ranks before this one (0 on rank 0). */
uint64_t cluster_exscan(const struct cluster *cluster, uint64_t value);

/* all[r] = rank r's values[0, count), for every rank r (all holds size x count). */
int cluster_allgather(const struct cluster *cluster, const uint64_t *values, size_t count, uint64_t *all);

/* Every rank's bytes, one after the other in rank order, in a buffer made here (free
 * it); offsets (size + 1 entries) says where each rank's begin. */
int cluster_allgather_bytes(const struct cluster *cluster, const void *bytes, size_t length, unsigned char **all,
			    uint64_t *offsets);

/* send_counts[d] of this rank's bytes, from send + send_offsets[d], go to rank d, whose
 * recv_counts[s] bytes from rank s land at recv + recv_offsets[s]. A count is below
 * 2 GiB (callers batch). */
int cluster_alltoall_bytes(const struct cluster *cluster, const void *send, const size_t *send_counts,
			   const size_t *send_offsets, void *recv, const size_t *recv_counts, const size_t *recv_offsets);

/* to[r] = what rank r put in from[this rank], for every r: one 64-bit value per pair. */
int cluster_alltoall(const struct cluster *cluster, const uint64_t *from, uint64_t *to);

/* Rank root's bytes to all. */
int cluster_broadcast(const struct cluster *cluster, void *bytes, size_t length, int root);

/* Point to point (not collective): length bytes (below 2 GiB) to or from one rank. */
int cluster_send(const struct cluster *cluster, const void *bytes, size_t length, int to);
int cluster_receive(const struct cluster *cluster, void *bytes, size_t length, int from);

#endif
