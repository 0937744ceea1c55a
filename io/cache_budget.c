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
#include "file_map.h"

/* cgroup v1 writes "no limit" as a number near 2^63 */
#define NO_LIMIT ((uint64_t)1 << 60)
/* the kernel's default vm.dirty_background_ratio */
#define DEFAULT_BACKGROUND_PERCENT 10

/* The first number in a file ("max" reads as no limit); false if there is none. */
static bool read_number(const char *path, uint64_t *value)
{
	FILE *file = fopen(path, "re");
	if (!file)
		return false;
	char text[64];
	bool read = fgets(text, sizeof text, file) != NULL;
	fclose(file);
	if (!read)
		return false;
	if (strncmp(text, "max", 3) == 0) {
		*value = UINT64_MAX;
		return true;
	}
	char *end;
	unsigned long long number = strtoull(text, &end, 10);
	if (end == text)
		return false;
	*value = number;
	return true;
}

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

/* Room left under limit, given usage; the smaller of it and *room. */
static void take_headroom(uint64_t limit, uint64_t usage, uint64_t *room)
{
	if (limit >= NO_LIMIT)
		return;
	uint64_t left = limit > usage ? limit - usage : 0;
	if (left < *room)
		*room = left;
}

/* The memory still free to this process's cgroup and its ancestors (v2), or to its
 * memory cgroup (v1); UINT64_MAX when none limits it. */
static uint64_t cgroup_headroom(void)
{
	uint64_t room = UINT64_MAX;
	FILE *file = fopen("/proc/self/cgroup", "re");
	if (!file)
		return room;
	char line[4096];
	while (fgets(line, sizeof line, file)) {
		line[strcspn(line, "\n")] = '\0';
		/* hierarchy:controllers:path */
		char *first = strchr(line, ':');
		char *second = first ? strchr(first + 1, ':') : NULL;
		if (!second)
			continue;
		*second = '\0';
		const char *controllers = first + 1;
		char *path = second + 1;
		char file_path[4200];
		uint64_t limit, usage;
		if (strcmp(line, "0:") == 0) {
			/* v2: every ancestor's memory.max holds too */
			for (;;) {
				snprintf(file_path, sizeof file_path, "/sys/fs/cgroup%s/memory.max", path);
				if (read_number(file_path, &limit)) {
					snprintf(file_path, sizeof file_path, "/sys/fs/cgroup%s/memory.current", path);
					if (read_number(file_path, &usage))
						take_headroom(limit, usage, &room);
				}
				char *slash = strrchr(path, '/');
				if (!slash || slash == path)
					break;
				*slash = '\0';
			}
		} else if (strstr(controllers, "memory")) {
			snprintf(file_path, sizeof file_path, "/sys/fs/cgroup/memory%s/memory.limit_in_bytes", path);
			if (read_number(file_path, &limit)) {
				snprintf(file_path, sizeof file_path, "/sys/fs/cgroup/memory%s/memory.usage_in_bytes", path);
				if (read_number(file_path, &usage))
					take_headroom(limit, usage, &room);
			}
		}
	}
	fclose(file);
	return room;
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
	if (!read_number("/proc/sys/vm/dirty_background_bytes", &bytes) || bytes == 0) {
		read_number("/proc/sys/vm/dirty_background_ratio", &percent);
		bytes = available_memory() / 100 * percent;
	}
	uint64_t room = cgroup_headroom();
	if (room != UINT64_MAX && room / 100 * percent < bytes)
		bytes = room / 100 * percent;
	return bytes;
}
