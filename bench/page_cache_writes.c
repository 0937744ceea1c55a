/* SPDX-License-Identifier: MIT */
/* How fast 2 GiB (or SIZE GiB) in memory can become a new file in the page cache, by the
 * ways the output end could write it: pwrite from 1..64 threads (each its share; counts
 * above the online cores left out), and copies
 * through shared mappings after fallocate, one mapping of the whole file or 8 MiB
 * windows mapped and unmapped by each thread, or after a bare ftruncate. (Mappings win
 * here; inside gpusort the 8 MiB windows lost to pwrite: bench/RESULTS.md.) The file is removed before each try; prints seconds and GB/s.
 * Build: cc -O2 -pthread -o page_cache_writes bench/page_cache_writes.c
 * Usage: page_cache_writes [FILE [SIZE_GIB]] (default /tmp/page_cache_writes.out 2) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static size_t total_bytes = (size_t)2 << 30;
#define WINDOW ((size_t)8 << 20)

enum way { PWRITE, WHOLE_MAPPING, WINDOWS, TRUNCATED_MAPPING, WAYS };
static const char *const names[WAYS] = {"pwrite", "fallocate + one mapping", "fallocate + 8 MiB windows",
					"ftruncate + one mapping"};

struct share {
	enum way way;
	int fd;
	const char *from;
	char *mapping;
	size_t offset, len;
};

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void fail(const char *what)
{
	perror(what);
	exit(1);
}

static void *write_share(void *context)
{
	struct share *s = context;
	for (size_t done = 0; done < s->len;) {
		size_t take = s->len - done < WINDOW ? s->len - done : WINDOW;
		size_t at = s->offset + done;
		if (s->way == PWRITE) {
			ssize_t wrote = pwrite(s->fd, s->from + at, take, (off_t)at);
			if (wrote <= 0)
				fail("pwrite");
			take = (size_t)wrote;
		} else if (s->way == WINDOWS) {
			char *window = mmap(NULL, take, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, (off_t)at);
			if (window == MAP_FAILED)
				fail("mmap");
			memcpy(window, s->from + at, take);
			munmap(window, take);
		} else {
			memcpy(s->mapping + at, s->from + at, take);
		}
		done += take;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/tmp/page_cache_writes.out";
	if (argc > 2 && atoi(argv[2]) > 0)
		total_bytes = (size_t)atoi(argv[2]) << 30;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	char *data = malloc(total_bytes);
	if (!data)
		fail("malloc");
	for (size_t i = 0; i < total_bytes / 8; i++)
		((unsigned long long *)data)[i] = i * 0x9E3779B97F4A7C15ull;
	const int thread_counts[] = {1, 4, 8, 16, 32, 64};
	for (int way = 0; way < WAYS; way++) {
		for (int t = 0; t < 6; t++) {
			int threads = thread_counts[t];
			if (threads > 16 && threads > cores)
				break;
			unlink(path);
			double started = now();
			int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
			if (fd < 0)
				fail(path);
			char *mapping = NULL;
			if (way != PWRITE && (way == TRUNCATED_MAPPING ? ftruncate(fd, total_bytes) : fallocate(fd, 0, 0, total_bytes)) != 0)
				fail("making room");
			if (way == WHOLE_MAPPING || way == TRUNCATED_MAPPING) {
				mapping = mmap(NULL, total_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
				if (mapping == MAP_FAILED)
					fail("mmap");
			}
			pthread_t ids[64];
			struct share shares[64];
			size_t each = (total_bytes / threads + WINDOW - 1) / WINDOW * WINDOW;
			for (int i = 0; i < threads; i++) {
				size_t begin = (size_t)i * each, end = begin + each < total_bytes ? begin + each : total_bytes;
				shares[i] = (struct share){way, fd, data, mapping, begin, end - begin};
				if (pthread_create(&ids[i], NULL, write_share, &shares[i]) != 0)
					fail("pthread_create");
			}
			for (int i = 0; i < threads; i++)
				pthread_join(ids[i], NULL);
			if (mapping)
				munmap(mapping, total_bytes);
			close(fd);
			double seconds = now() - started;
			printf("%-26s %2d threads: %.3f s, %5.2f GB/s\n", names[way], threads, seconds, total_bytes / seconds / 1e9);
		}
	}
	unlink(path);
	free(data);
	return 0;
}
