/* SPDX-License-Identifier: MIT */
/* The GPUSORT_* environment variables: one table (environment.c) of each one's name,
 * meaning, default and syntax, and the one reader of them. The man page's ENVIRONMENT
 * section lists the same. Rooms below (io/, kernels/) get the values passed down. */
#ifndef GPUSORT_ENVIRONMENT_H
#define GPUSORT_ENVIRONMENT_H

#include <stdint.h>

enum environment_name {
	ENVIRONMENT_CUDA_MODULE,    /* string: the CUDA backend's module */
	ENVIRONMENT_MPI_MODULE,     /* string: the MPI module a rank loads */
	ENVIRONMENT_MEMORY_DIR,     /* string: the tmpfs for a distributed sort's rank files */
	ENVIRONMENT_RESIDENT,       /* switch: 0 keeps a distributed sort off the GPU-resident path */
	ENVIRONMENT_SHARED_RUNS,    /* switch: 0 sends the ranks' ranges through MPI */
	ENVIRONMENT_TEMP_CACHE,     /* size: the temp bytes left to the page cache */
	ENVIRONMENT_OUTPUT_MAP,     /* switch: an in-memory sort's output through a mapping */
	ENVIRONMENT_OUTPUT_DIRECT,  /* switch: the final merge's output past the page cache */
	ENVIRONMENT_HOST_REGISTER,  /* switch: 0 stages every GPU copy */
	ENVIRONMENT_FAULT,          /* string: the tests' faults (io/fault_inject.h) */
	ENVIRONMENT_NAMES
};

/* A switch's value: unset (or neither 0 nor 1) leaves the choice automatic. */
#define ENVIRONMENT_AUTOMATIC (-1)

/* A string's value, or its default (NULL where it has none). */
const char *environment_string(enum environment_name name);
/* A switch's value: 0, 1 or ENVIRONMENT_AUTOMATIC. */
int environment_switch(enum environment_name name);
/* A size's bytes (-S's SIZE syntax, size_parse.h, a bare number in bytes), or -1 where
 * it is unset or not a size. */
int64_t environment_size(enum environment_name name);

/* Hands the test hooks their settings (GPUSORT_FAULT to io/fault_inject.h) before a
 * job's first I/O. Once per process; later calls do nothing. */
void environment_apply(void);

#endif
