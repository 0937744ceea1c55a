/* SPDX-License-Identifier: MIT */
/* io/cache_budget: the dirty bytes the kernel lets build up before writing back in the
 * background (dirty_background_room) bound both the temp files left to the page cache
 * and the in-memory outputs copied through a mapping beside the GPU. The room is
 * positive and at most vm.dirty_background_ratio of MemAvailable (or
 * vm.dirty_background_bytes where that is set); the temp budget is the room on a disk's
 * file system, 0 on a tmpfs, and GPUSORT_TEMP_CACHE's when that is set, which leaves
 * the room as it was. */
#include "config.h"
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "io/cache_budget.h"
#include "io/file_map.h"
#include "tests/tap.h"

static uint64_t read_proc_number(const char *path)
{
	unsigned long long value = 0;
	FILE *file = fopen(path, "r");
	if (file) {
		if (fscanf(file, "%llu", &value) != 1)
			value = 0;
		fclose(file);
	}
	return value;
}

static uint64_t mem_available(void)
{
	unsigned long long kib = 0;
	char line[128];
	FILE *file = fopen("/proc/meminfo", "r");
	while (file && fgets(line, sizeof line, file))
		if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
			break;
	if (file)
		fclose(file);
	return (uint64_t)kib * 1024;
}

/* a and b within 5% of each other (MemAvailable moves between two readings) */
static bool near(uint64_t a, uint64_t b)
{
	uint64_t larger = a > b ? a : b, smaller = a > b ? b : a;
	return larger - smaller <= larger / 20;
}

static int temp_fd(const char *dir, char *path, size_t size)
{
	snprintf(path, size, "%s/test_cache_budget.XXXXXX", dir);
	return mkstemp(path);
}

int main(void)
{
	uint64_t room = dirty_background_room();
	uint64_t fixed = read_proc_number("/proc/sys/vm/dirty_background_bytes");
	uint64_t ratio = fixed ? 0 : read_proc_number("/proc/sys/vm/dirty_background_ratio");
	uint64_t most = fixed ? fixed : mem_available() / 100 * (ratio ? ratio : 10);
	tap_ok(room > 0 && room <= most + most / 20,
	       "the room (%llu MiB) is positive and at most vm.dirty_background_%s (%llu MiB)",
	       (unsigned long long)(room >> 20), fixed ? "bytes" : "ratio of MemAvailable",
	       (unsigned long long)(most >> 20));

	char path[4096];
	int fd = temp_fd(".", path, sizeof path);
	if (fd < 0 || file_in_memory(fd)) {
		tap_skip(2, "the build directory is not on a disk's file system");
	} else {
		uint64_t budget = temp_cache_budget(fd, -1);
		tap_ok(near(budget, dirty_background_room()), "a disk's temp files get the room (%llu and %llu MiB)",
		       (unsigned long long)(budget >> 20), (unsigned long long)(dirty_background_room() >> 20));
		budget = temp_cache_budget(fd, (int64_t)5 << 20);
		uint64_t after = dirty_background_room();
		tap_ok(budget == (uint64_t)5 << 20 && near(after, room),
		       "a budget given (GPUSORT_TEMP_CACHE=5M) is the temp budget (%llu bytes), not the room (%llu MiB)",
		       (unsigned long long)budget, (unsigned long long)(after >> 20));
	}
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}

	fd = temp_fd("/dev/shm", path, sizeof path);
	if (fd < 0 || !file_in_memory(fd)) {
		tap_skip(1, "no tmpfs at /dev/shm");
	} else {
		tap_ok(temp_cache_budget(fd, -1) == 0 && dirty_background_room() > 0,
		       "a tmpfs's temp files get no budget; the room stays");
	}
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	return tap_done();
}
