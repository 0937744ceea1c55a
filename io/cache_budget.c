/* SPDX-License-Identifier: MIT */
/* The page-cache budget of temp files (see cache_budget.h): the kernel's background
 * writeback threshold, and a memory cgroup's share of it. */
#include "config.h"
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cache_budget.h"
#include "cgroup_memory.h"
#include "file_map.h"

/* the kernel's default vm.dirty_background_ratio */
#define DEFAULT_BACKGROUND_PERCENT 10

/* MemAvailable of /proc/meminfo, in bytes; 0 when unknown. */
static uint64_t available_memory(void)
{
	FILE *file = fopen("/proc/meminfo", "re");
	if (!file)
		return 0;
	char line[128];
	unsigned long long kib = 0;
	while (fgets(line, sizeof line, file))
		if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
			break;
	fclose(file);
	return (uint64_t)kib * 1024;
}

/* The memory still free to this process's memory cgroups; UINT64_MAX when none limits
 * it. */
static uint64_t cgroup_headroom(void)
{
	struct cgroup_memory memory;
	cgroup_memory_read(&memory);
	return memory.room;
}

uint64_t temp_cache_budget(int fd, int64_t given)
{
	if (given >= 0)
		return (uint64_t)given;
	return file_in_memory(fd) ? 0 : dirty_background_room();
}

uint64_t dirty_background_room(void)
{
	uint64_t percent = DEFAULT_BACKGROUND_PERCENT, bytes = 0;
	if (!number_file_read("/proc/sys/vm/dirty_background_bytes", &bytes) || bytes == 0) {
		number_file_read("/proc/sys/vm/dirty_background_ratio", &percent);
		bytes = available_memory() / 100 * percent;
	}
	uint64_t room = cgroup_headroom();
	if (room != UINT64_MAX && room / 100 * percent < bytes)
		bytes = room / 100 * percent;
	return bytes;
}
