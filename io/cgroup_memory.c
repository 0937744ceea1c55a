/* SPDX-License-Identifier: MIT */
/* The memory cgroups' limits and room (see cgroup_memory.h). */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cgroup_memory.h"

/* cgroup v1 writes "no limit" as a number near 2^63 */
#define NO_LIMIT ((uint64_t)1 << 60)

bool number_file_read(const char *path, uint64_t *value)
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

/* One cgroup's limit and usage (files LIMIT and USAGE in DIRECTORY) taken into memory. */
static void take(struct cgroup_memory *memory, const char *directory, const char *limit_name,
		 const char *usage_name)
{
	char path[4300];
	uint64_t limit, usage;
	snprintf(path, sizeof path, "%s/%s", directory, limit_name);
	if (!number_file_read(path, &limit) || limit >= NO_LIMIT)
		return;
	if (limit < memory->limit)
		memory->limit = limit;
	snprintf(path, sizeof path, "%s/%s", directory, usage_name);
	if (number_file_read(path, &usage)) {
		uint64_t left = limit > usage ? limit - usage : 0;
		if (left < memory->room)
			memory->room = left;
	}
}

void cgroup_memory_read(struct cgroup_memory *memory)
{
	memory->limit = memory->room = UINT64_MAX;
	FILE *file = fopen("/proc/self/cgroup", "re");
	if (!file)
		return;
	char line[4096], directory[4200];
	while (fgets(line, sizeof line, file)) {
		line[strcspn(line, "\n")] = '\0';
		/* hierarchy:controllers:path */
		char *first = strchr(line, ':');
		char *second = first ? strchr(first + 1, ':') : NULL;
		if (!second)
			continue;
		*second = '\0';
		char *path = second + 1;
		if (strcmp(line, "0:") == 0) {
			/* v2: every ancestor's memory.max holds too */
			for (;;) {
				snprintf(directory, sizeof directory, "/sys/fs/cgroup%s", path);
				take(memory, directory, "memory.max", "memory.current");
				char *slash = strrchr(path, '/');
				if (!slash || slash == path)
					break;
				*slash = '\0';
			}
		} else if (strstr(first + 1, "memory")) {
			snprintf(directory, sizeof directory, "/sys/fs/cgroup/memory%s", path);
			take(memory, directory, "memory.limit_in_bytes", "memory.usage_in_bytes");
		}
	}
	fclose(file);
}
