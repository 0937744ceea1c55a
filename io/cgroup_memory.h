/* SPDX-License-Identifier: MIT */
/* The memory cgroups this process is in (v2, every ancestor's limit included, or v1's
 * memory hierarchy), read from /proc/self/cgroup and the cgroup file systems. */
#ifndef GPUSORT_CGROUP_MEMORY_H
#define GPUSORT_CGROUP_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

struct cgroup_memory {
	uint64_t limit; /* the least hard limit; UINT64_MAX where none limits */
	uint64_t room;  /* the least room left under one of them; UINT64_MAX where none */
};
void cgroup_memory_read(struct cgroup_memory *memory);

/* The first number in a file ("max" reads as UINT64_MAX); false if there is none. */
bool number_file_read(const char *path, uint64_t *value);

#endif
