/* The all-to-all exchange: every rank's sorted share, cut into one key range per rank,
 * goes to the rank of that range, in rounds of at most batch bytes per pair of ranks
 * (so that -S bounds the buffers). What a rank receives from each other rank is still
 * sorted; it lands in a temp file per sender, for the merge. The rank's own range stays
 * where it is, in its sorted share. */
#ifndef GPUSORT_EXCHANGE_H
#define GPUSORT_EXCHANGE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include "cluster.h"
#include "local_run.h"

struct exchange {
	char (*paths)[PATH_MAX]; /* per sender: the file of what it sent ("" for none) */
	uint64_t *received;      /* per sender: bytes (this rank's own range for itself) */
	uint64_t sent_bytes, received_bytes; /* to and from the other ranks */
	uint64_t rounds;
	double seconds;
};

/* Sends [cuts[d], cuts[d + 1]) of run to rank d, for every d, and receives the others'
 * into temp files (in dir when given, else in the -T directories). A rank that fails
 * (a temp file it cannot write) still takes part in every round, so that none waits
 * for it; the error (reported by the file's name) is returned for cluster_agree. */
int exchange_run(const struct cluster *cluster, const struct local_run *run, const uint64_t *cuts, size_t batch,
		 const char *dir, struct exchange *exchange);

/* Removes the received files and frees what exchange_run made. */
void exchange_free(const struct cluster *cluster, struct exchange *exchange);

#endif
