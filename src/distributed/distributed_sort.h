/* SPDX-License-Identifier: MIT */
/* The sort across the ranks of an MPI job (mpirun -np N gpusort ...): the bucket sort
 * one level up. Each rank sorts its share of the inputs with the ordinary pipeline
 * (its own engine: the GPU of its local rank, or CPU threads; spilling past -S) into a
 * local run; equidistant samples of every run give the splitters; an all-to-all
 * exchange sends each key range to its rank; each rank merges what it received and
 * writes its range at its offset of the one output, which is put in place only when
 * every rank succeeded. The output is byte for byte what one process writes. */
#ifndef GPUSORT_DISTRIBUTED_SORT_H
#define GPUSORT_DISTRIBUTED_SORT_H

#include <stdbool.h>
#include "../pipeline/sort_job.h"

/* Whether this process was started by an MPI launcher as one of several ranks; one
 * rank, or none, runs the ordinary pipeline and never starts MPI. */
bool distributed_launched(void);

/* Runs the job on every rank (-c, -C and -m on rank 0 alone, the others waiting);
 * returns the exit status, the same on every rank: 0, 1 (disorder under -c/-C) or 2
 * (trouble, reported once by the rank that met it). */
int distributed_sort_run(const struct sort_job *job);

#endif
