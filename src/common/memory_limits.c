/* SPDX-License-Identifier: MIT */
/* The process's memory limits (see memory_limits.h), read from getrlimit, /proc/self
 * (what is mapped now, which cgroup it is in) and the cgroup file systems. */
#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include "memory_limits.h"
#include "size_parse.h"

/* The number a cgroup file holds; false for "max", an absent file or anything else. */
static bool cgroup_number(const char *directory, const char *name, uint64_t *value)
{
	char path[4300];
	snprintf(path, sizeof path, "%s/%s", directory, name);
	FILE *file = fopen(path, "re");
	if (!file)
		return false;
	unsigned long long number;
	bool read = fscanf(file, "%llu", &number) == 1;
	fclose(file);
	*value = number;
	return read;
}

/* The least of the hard limits on the cgroups of /proc/self/cgroup; UINT64_MAX if none
 * (v1 writes "no limit" as a number near 2^63, above any memory). */
static uint64_t cgroup_limit(void)
{
	uint64_t least = UINT64_MAX, limit;
	FILE *file = fopen("/proc/self/cgroup", "re");
	if (!file)
		return least;
	char line[4096], directory[4200];
	while (fgets(line, sizeof line, file)) {
		line[strcspn(line, "\n")] = '\0';
		/* hierarchy-id:controllers:path */
		char *first = strchr(line, ':');
		char *second = first ? strchr(first + 1, ':') : NULL;
		if (!second)
			continue;
		*second = '\0';
		char *path = second + 1;
		/* v2 (hierarchy 0), or v1's memory hierarchy */
		bool v2 = strcmp(line, "0:") == 0;
		const char *root = v2 ? "/sys/fs/cgroup" : strstr(first + 1, "memory") ? "/sys/fs/cgroup/memory" : NULL;
		const char *name = v2 ? "memory.max" : "memory.limit_in_bytes";
		/* every ancestor's limit holds too */
		while (root) {
			snprintf(directory, sizeof directory, "%s%s", root, path);
			if (cgroup_number(directory, name, &limit) && limit < least)
				least = limit;
			char *slash = strrchr(path, '/');
			if (!slash || slash[1] == '\0')
				break;
			slash[slash == path] = '\0';
		}
	}
	fclose(file);
	return least;
}

size_t memory_limit_total(void)
{
	size_t total = physical_memory_bytes();
	uint64_t cgroup = cgroup_limit();
	return cgroup < total ? (size_t)cgroup : total;
}

/* A field of /proc/self/status in bytes (VmSize, VmData); 0 when unknown. */
static size_t status_bytes(const char *field)
{
	FILE *file = fopen("/proc/self/status", "re");
	if (!file)
		return 0;
	char line[256];
	size_t length = strlen(field);
	unsigned long long kib = 0;
	while (fgets(line, sizeof line, file))
		if (strncmp(line, field, length) == 0 && line[length] == ':' &&
		    sscanf(line + length + 1, "%llu", &kib) == 1)
			break;
	fclose(file);
	return (size_t)kib * 1024;
}

/* What the limit `resource` leaves beyond `used`; SIZE_MAX when it is not set. */
static size_t limit_room(int resource, const char *used)
{
	struct rlimit limit;
	if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= SIZE_MAX)
		return SIZE_MAX;
	size_t mapped = status_bytes(used);
	return (size_t)limit.rlim_cur > mapped ? (size_t)limit.rlim_cur - mapped : 0;
}

size_t memory_limit_address_room(void)
{
	size_t address = limit_room(RLIMIT_AS, "VmSize"), data = limit_room(RLIMIT_DATA, "VmData");
	return address < data ? address : data;
}

size_t memory_limit_thread_stack(void)
{
	struct rlimit limit;
	if (getrlimit(RLIMIT_STACK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= SIZE_MAX)
		return (size_t)8 << 20;
	return (size_t)limit.rlim_cur;
}

size_t memory_limit_resident(void)
{
	struct rlimit limit;
	if (getrlimit(RLIMIT_RSS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= SIZE_MAX)
		return SIZE_MAX;
	return (size_t)limit.rlim_cur;
}

bool memory_limit_mappable(size_t bytes)
{
	void *memory = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (memory == MAP_FAILED)
		return false;
	munmap(memory, bytes);
	return true;
}
