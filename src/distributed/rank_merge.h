/* SPDX-License-Identifier: MIT */
/* The merge of a rank's key range: its own part of its sorted share and what every other
 * rank sent it, in rank order (so equal records keep their input order, and -u keeps
 * the first), into the output at the range's offset or into a piece file. Where the
 * output takes positional writes and the range's bytes are known (not -u), the range
 * is cut again into one part per thread (splitters from the largest input, ties by
 * input and position as across ranks), merged at once, each part at its own offset.
 * Inputs on a memory file system are mapped and merged in place; others are read. */
#ifndef GPUSORT_RANK_MERGE_H
#define GPUSORT_RANK_MERGE_H

#include <stddef.h>
#include <stdint.h>
#include "distributed_output.h"
#include "distributed_verify.h"
#include "../pipeline/record_order.h"

struct sort_verify;

/* A sorted input of the merge: bytes [base, base + length) of the file at path (which
 * may be a descriptor's, /proc/self/fd/N, where the file's name is gone), named name in
 * messages. */
struct merge_input {
	const char *path;
	const char *name;
	uint64_t base, length;
};

/* Where the merge puts the range: the output at offset, or (output NULL) the piece
 * file fd from its start. */
struct range_sink {
	struct distributed_output *output;
	int fd;
	const char *name;        /* for messages */
	uint64_t offset, written;
	const struct record_order *order;
	struct range_ends *ends; /* noted for the self-check, or NULL */
};

/* Merges inputs[0, count) into sink, in parts on up to threads threads where it can
 * (see above); block: the bytes each input reads at a time. Returns 0 or the first
 * error, reported by the file's name; sink->written says how much went out. */
int rank_merge(const struct record_order *order, const struct merge_input *inputs, size_t count, unsigned threads,
	       size_t block, struct sort_verify *verify, struct range_sink *sink);

#endif
