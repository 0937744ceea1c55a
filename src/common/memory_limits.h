/* SPDX-License-Identifier: MIT */
/* The memory the system lets this process take: physical memory or its memory cgroup's
 * hard limit, and the resource limits on its address space, data and resident set,
 * which the default -S respects as GNU sort's default does. */
#ifndef GPUSORT_MEMORY_LIMITS_H
#define GPUSORT_MEMORY_LIMITS_H

#include <stdbool.h>
#include <stddef.h>

/* Physical memory, or less where the process's memory cgroup (cgroup v2's memory.max of
 * its cgroup and every ancestor, v1's memory.limit_in_bytes) holds it to less. */
size_t memory_limit_total(void);

/* What RLIMIT_AS and RLIMIT_DATA leave of the address space and the data segment beyond
 * what is mapped now (the less of the two); SIZE_MAX when neither is set. */
size_t memory_limit_address_room(void);

/* The address space a thread's stack takes (RLIMIT_STACK, as the C library sizes new
 * threads' stacks; 8 MiB where it is not set). */
size_t memory_limit_thread_stack(void);

/* RLIMIT_RSS; SIZE_MAX when it is not set. */
size_t memory_limit_resident(void);

/* Whether bytes of private memory can be mapped now: tried, then let go (the address
 * space, the data limit and the kernel's commit accounting all have their say). */
bool memory_limit_mappable(size_t bytes);

#endif
