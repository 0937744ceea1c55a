/* SPDX-License-Identifier: MIT */
/* How many bytes of temp files a sort may leave to the page cache before its runs are
 * written behind (run_file.h): where memory is plentiful, runs that the merge reads back
 * a few seconds later need never wait for the disk (and, removed after the merge, most
 * of their pages are never written at all).
 *
 * The budget is the amount of dirty data at which the kernel itself starts writing back
 * in the background (vm.dirty_background_bytes, or vm.dirty_background_ratio of the
 * available memory), and, inside a memory cgroup, the same share of what the cgroup still
 * has room for (the kernel throttles a cgroup's writers by its own limit): so the temp
 * files alone never set off writeback, nor crowd a small cgroup. On a tmpfs
 * (file_in_memory) the budget is 0: no device is behind it, writing behind costs
 * nothing there, and it is what times the memory for run_level.h. */
#ifndef GPUSORT_CACHE_BUDGET_H
#define GPUSORT_CACHE_BUDGET_H

#include <stdint.h>

/* fd: a temp file in the directory the runs go to; given, where not negative, is the
 * caller's budget instead (GPUSORT_TEMP_CACHE; 0: every run written behind from its
 * start). */
uint64_t temp_cache_budget(int fd, int64_t given);

/* The dirty bytes the kernel lets build up before it starts writing back in the
 * background (the budget above, none given and whatever the file system):
 * a file written within it is made in memory alone, at memory's speed. */
uint64_t dirty_background_room(void);

#endif
