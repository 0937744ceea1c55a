/* SPDX-License-Identifier: MIT */
/* The all-to-all exchange: every rank's sorted share, cut into one key range per rank,
 * goes to the rank of that range. Where every rank can open every other rank's run by
 * its name (the ranks of one machine, or a file system they all share: checked by
 * device and inode), nothing is sent: each rank's merge reads its range straight from
 * the others' runs, which every rank holds open until its merge is done (their names
 * may go before: exchange_open_path). Otherwise the ranges go
 * through MPI in rounds of at most batch bytes per pair of ranks (so that -S bounds the
 * buffers), each into a temp file per sender, still sorted, for the merge.
 * GPUSORT_SHARED_RUNS=0 sends them even where the runs are shared (tests, comparing). */
#ifndef GPUSORT_EXCHANGE_H
#define GPUSORT_EXCHANGE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cluster.h"
#include "local_run.h"

struct exchange {
	char (*paths)[PATH_MAX]; /* per sender: the file that holds its range ("" for none) */
	uint64_t *bases;         /* per sender: where the range starts in that file */
	uint64_t *received;      /* per sender: bytes (this rank's own range for itself) */
	bool shared;             /* the files are the senders' runs, read in place */
	int *fds;                /* per sender: its run, held open here while shared (this
				    rank's own: the run's descriptor), else -1 */
	bool by_descriptor;      /* shared, and every rank can open its descriptors again:
				    each run's name may go once every rank holds it open */
	uint64_t sent_bytes, received_bytes; /* to and from the other ranks */
	uint64_t rounds;
	double seconds;
};

/* Gives rank d [cuts[d], cuts[d + 1]) of run, for every d: the others' ranges are read
 * in place where the runs are shared, else received into temp files (in dir when given,
 * else in the -T directories). A rank that fails (a temp file it cannot write) still
 * takes part in every round, so that none waits for it; the error (reported by the
 * file's name) is returned for cluster_agree. The runs must stay until every rank has
 * merged (the cluster_agree after the merge). */
int exchange_run(const struct cluster *cluster, const struct local_run *run, const uint64_t *cuts, size_t batch,
		 const char *dir, struct exchange *exchange);

/* The path to open sender s's file by: its name, or (by_descriptor) this rank's
 * descriptor's, /proc/self/fd/N written into buffer, which outlives the name. */
const char *exchange_open_path(const struct exchange *exchange, int s, char *buffer, size_t size);

/* Removes the received files (never the other ranks' runs), closes the runs held open
 * and frees what exchange_run made. */
void exchange_free(const struct cluster *cluster, struct exchange *exchange);

#endif
