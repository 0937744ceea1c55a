/* SPDX-License-Identifier: MIT */
/* The distributed sort of bare integer keys with every rank beside a GPU of one machine,
 * the shares kept on the GPUs: each rank reads its share, sorts it on its GPU and keeps
 * it there; the splitters sample and cut the sorted shares where they lie; each rank
 * copies its key range from every rank's GPU into its own (CUDA IPC: over NVLink where
 * the GPUs have it), merges the pieces there and copies the range out into the output at
 * its offset. Nothing goes through a temp file or the host's memory between the read
 * and the write, where the file-based path (a local run per rank in /dev/shm, the merge
 * on the CPU) moves every byte through host memory five or six times. */
#ifndef GPUSORT_RESIDENT_SORT_H
#define GPUSORT_RESIDENT_SORT_H

#include <stddef.h>
#include "cluster.h"
#include "distributed_output.h"
#include "distributed_stats.h"
#include "distributed_verify.h"
#include "input_share.h"
#include "../binary/record_items.h"
#include "../pipeline/record_order.h"
#include "../pipeline/sort_job.h"

/* What the resident sort of a rank needs from the distributed sort. */
struct resident_job {
	const struct sort_job *job;
	const struct input_share *share;
	const struct record_layout *layout; /* the binary key's; the path sets pool and verify */
	const struct record_order *order;   /* without -u */
	struct distributed_output *output;  /* opened, positional */
	size_t budget;                      /* this rank's -S */
	unsigned threads;                   /* this rank's CPU threads */
	struct rank_figures *figures;
	struct range_ends *ends;            /* noted for the self-check */
	/* Where the engine goes when the sort was done, its GPU being released on a thread
	 * of its own: the caller closes it after the commit. NULL: closed here. */
	struct sort_engine **engine_out;
};

/* Collective. Sorts as above when every rank can: binary bare keys (a record that is one
 * integer key), no -u, an output every rank writes at its offset, every rank on this
 * machine with a GPU it may use and its share from regular files within half its -S
 * (and, under --device=auto, of at least 256 MiB of keys, as one process asks), and
 * GPUSORT_RESIDENT not 0. Returns 1 when it sorted (the range in the output's twin:
 * the caller commits it), 0 when it did not apply or gave way before writing anything
 * (a GPU that cannot open another's memory, a range beyond its memory: the caller
 * sorts through files as before), or the agreed negative errno, reported. */
int resident_sort(const struct cluster *cluster, const struct resident_job *work);

#endif
