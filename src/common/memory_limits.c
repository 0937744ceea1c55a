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
#include "../../io/cgroup_memory.h"
#include "size_parse.h"

size_t memory_limit_total(void)
{
	size_t total = physical_memory_bytes();
	struct cgroup_memory cgroup;
	cgroup_memory_read(&cgroup);
	return cgroup.limit < total ? (size_t)cgroup.limit : total;
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
