/* SPDX-License-Identifier: MIT */
/* The one output of a distributed sort. Rank 0 opens it as a single process would (-o's
 * temp twin, or standard output); when the twin is a file every rank can open, each
 * rank writes its key range into it at its offset, else the ranges travel to rank 0 in
 * rank order and it writes them (standard output, a pipe, a twin the others cannot
 * reach). The twin is put in place by rank 0 only when every rank succeeded; otherwise
 * it is removed and the old output stays as it was. Every rank that opens the twin
 * registers it for removal on signals, so that it goes with rank 0 killed outright. */
#ifndef GPUSORT_DISTRIBUTED_OUTPUT_H
#define GPUSORT_DISTRIBUTED_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cluster.h"
#include "../../io/file_map.h"
#include "../pipeline/output_check.h"

struct output_file;

struct distributed_output {
	struct output_file *file; /* rank 0's */
	int fd;                   /* this rank's descriptor of the twin, or -1 */
	bool positional;          /* every rank writes at its offset */
	const char *name;         /* for messages */
	char *twin;               /* the twin's path where this rank (not rank 0) registered it */
	struct file_map mapping;  /* this rank's range of the twin, when mapped */
	struct file_map ahead;    /* where its range will about be, faulted in ahead */
	struct file_prefault prefault;
};

/* Opens the output the target names on rank 0 and the twin on every rank; returns the
 * agreed error (reported by the rank that met it). */
int distributed_output_open(const struct cluster *cluster, const struct output_target *target,
			    struct distributed_output *output);

/* Positional: this rank's range [offset, offset + length) of the twin allocated and
 * mapped (io/file_map.h), so that the writes below copy into the page cache without
 * taking the file's lock in turn, rank after rank; where that does not pay or cannot
 * be (file_map_range), they stay pwrite's. The mapping faulted in ahead (below) is taken
 * over where it holds the range. Returns 0, or a negative errno (no room) for the
 * caller to report. Faults are injected as range_write. */
int distributed_output_map(struct distributed_output *output, uint64_t offset, uint64_t length);
/* Positional: while this rank sorts its share, the twin about [offset, offset + length)
 * (where its range will about be: the shares' place, since the splitters cut the ranges
 * about as large as the shares; mapped with some room either side, within the output's
 * total bytes) allocated and mapped, and the share's place faulted in by threads
 * (io/file_map.h), so that the merge later copies into pages that are there. Only where
 * the range would be mapped (distributed_output_map). Returns 0 or a negative errno (no
 * room) for the caller to report. prefault_stop stops the threads; the mapping stays
 * for distributed_output_map. */
int distributed_output_prefault_start(struct distributed_output *output, uint64_t offset, uint64_t length,
				      uint64_t total);
void distributed_output_prefault_stop(struct distributed_output *output);
/* Positional: length bytes at offset of the output (faults injected as range_write),
 * copied into the mapping when it holds that range; returns 0 or a negative errno for
 * the caller to report. */
int distributed_output_write_at(struct distributed_output *output, const void *bytes, size_t length, uint64_t offset);

/* length bytes to fd at offset, whole (faults injected as fd's tag); returns 0 or a
 * negative errno. */
int write_whole_at(int fd, const void *bytes, size_t length, uint64_t offset);

/* Puts this rank's range, the first bytes of piece_fd, in place: at offset when
 * positional, else through rank 0 (collective then, in rank order, in pieces of chunk
 * bytes). A failing rank goes on taking part. Returns 0 or the error, reported. */
int distributed_output_put(const struct cluster *cluster, struct distributed_output *output, int piece_fd,
			   const char *piece_name, uint64_t bytes, uint64_t offset, size_t chunk);

/* Agrees on error: commits the output on rank 0 when every rank's is 0, else removes it.
 * Returns the agreed result (a failed commit reported by rank 0). */
int distributed_output_finish(const struct cluster *cluster, struct distributed_output *output, int error);

#endif
