/* SPDX-License-Identifier: MIT */
/* The distributed sort's self-check (off with --no-verify), on top of each rank's own
 * (its local sort checks itself): every rank's range comes out of its merge in order,
 * each range's last record goes before the next non-empty range's first (with -u:
 * strictly), and without -u the ranges hold exactly the bytes the local runs held. A
 * failure is a bug of ours: "internal error", exit 2, the output not committed. */
#ifndef GPUSORT_DISTRIBUTED_VERIFY_H
#define GPUSORT_DISTRIBUTED_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cluster.h"
#include "../pipeline/record_order.h"

/* The first and last records of a rank's range, noted as its merge puts it out. */
struct range_ends {
	unsigned char *first, *last;
	size_t first_len, last_len, last_capacity;
	bool have;
	int error; /* -ENOMEM while noting */
};

/* Notes a block of whole records (lines with their terminators) put out. */
void range_ends_note(struct range_ends *ends, const struct record_order *order, const unsigned char *block,
		     size_t bytes);
void range_ends_free(struct range_ends *ends);

/* Collective: the checks above, disorder being what the rank's merge counted. Returns 0,
 * or -EIO after rank 0 reported what failed. */
int distributed_verify(const struct cluster *cluster, const struct record_order *order, const struct range_ends *ends,
		       uint64_t disorder, uint64_t run_bytes, uint64_t range_bytes);

#endif
