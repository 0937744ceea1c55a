/* SPDX-License-Identifier: MIT */
/* The sort engine: opening on the CPU and with device auto (which must fall back to the
 * CPU, saying why, where there is no usable GPU), explicit devices that cannot be used,
 * sorts against qsort for every width and algorithm, host buffers (populated ahead,
 * the CPU sort's kept scratch grown, trimmed and shared by threads), the descriptions,
 * and algorithm names. */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "kernels/gpu_module.h"
#include "kernels/sort_engine.h"
#include "tests/distributions.h"
#include "tests/item_oracle.h"
#include "tests/tap.h"

/* Sorts n random items of the width through the engine and compares with qsort. */
static bool engine_sorts(struct sort_engine *engine, enum item_width width, size_t n, uint64_t seed)
{
	size_t bytes = n * (size_t)width;
	unsigned char *items = sort_engine_host_alloc(engine, bytes + 16);
	unsigned char *expect = malloc(bytes + 16);
	uint64_t state = seed;
	if (!items || !expect)
		return false;
	for (size_t i = 0; i < bytes; i += 8) {
		uint64_t word = random_next(&state);
		memcpy(items + i, &word, bytes - i < 8 ? bytes - i : 8);
	}
	memcpy(expect, items, bytes);
	item_oracle_sort(width, expect, n);
	bool same = sort_engine_sort(engine, width, items, n) == 0 &&
		    memcmp(items, expect, bytes) == 0;
	sort_engine_host_free(engine, items, bytes + 16);
	free(expect);
	return same;
}

/* Pages of [buffer, buffer + bytes) resident now (mincore), or -1. */
static long resident_pages(void *buffer, size_t bytes)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)buffer & ~(uintptr_t)(page - 1);
	size_t length = (uintptr_t)buffer + bytes - start, pages = (length + page - 1) / page;
	unsigned char *vector = malloc(pages);
	long count = -1;
	if (vector && mincore((void *)start, length, vector) == 0) {
		count = 0;
		for (size_t i = 0; i < pages; i++)
			count += vector[i] & 1;
	}
	free(vector);
	return count;
}

/* Host buffers populated ahead: every page resident, what was written kept, the rest
 * zero; buffers of malloc's size and NULL ones pass through. */
static void populate_cases(struct sort_engine *engine)
{
	size_t large_bytes = ((size_t)24 << 20) + 12345, small_bytes = 100;
	unsigned char *large = sort_engine_host_alloc(engine, large_bytes);
	unsigned char *other = sort_engine_host_alloc(engine, large_bytes);
	unsigned char *small = sort_engine_host_alloc(engine, small_bytes);
	if (!large || !other || !small) {
		tap_ok(false, "populate: buffers allocated");
		return;
	}
	memset(large + 4096, 0x5a, 100000);
	small[0] = 7;
	void *buffers[4] = {large, NULL, small, other};
	size_t bytes[4] = {large_bytes, 0, small_bytes, large_bytes};
	long before = resident_pages(other, large_bytes);
	sort_engine_host_populate(engine, buffers, bytes, 4);
	long page = sysconf(_SC_PAGESIZE), all = (long)((large_bytes + page - 1) / page);
	long after_large = resident_pages(large, large_bytes), after_other = resident_pages(other, large_bytes);
#ifdef MADV_POPULATE_WRITE
	bool kernel_has_it = madvise(other, 0, MADV_POPULATE_WRITE) == 0;
#else
	bool kernel_has_it = false;
#endif
	if (kernel_has_it)
		tap_ok(before < all && after_large >= all && after_other >= all,
		       "populate makes every page resident (%ld of %ld before, %ld and %ld after)", before, all,
		       after_large, after_other);
	else
		tap_skip(1, "populate: the kernel lacks MADV_POPULATE_WRITE");
	bool kept = small[0] == 7 && large[4095] == 0 && large[4096] == 0x5a && large[4096 + 99999] == 0x5a &&
		    large[4096 + 100000] == 0 && large[large_bytes - 1] == 0 && other[large_bytes - 1] == 0;
	tap_ok(kept, "populate keeps what was written and leaves the rest zero");
	unsigned char *fresh = sort_engine_host_alloc(engine, large_bytes);
	void *none[1] = {fresh};
	size_t none_bytes[1] = {large_bytes};
	sort_engine_host_populate(engine, none, none_bytes, 0);
	tap_ok(fresh && resident_pages(fresh, large_bytes) < all,
	       "populate of a count of 0 faults nothing in (%ld of %ld pages resident)",
	       fresh ? resident_pages(fresh, large_bytes) : -1L, all);
	sort_engine_host_free(engine, fresh, large_bytes);
	sort_engine_host_free(engine, large, large_bytes);
	sort_engine_host_free(engine, other, large_bytes);
	sort_engine_host_free(engine, small, small_bytes);
}

struct concurrent_sort {
	struct sort_engine *engine;
	size_t n;
	uint64_t seed;
	bool ok;
};

static void *concurrent_sort_main(void *argument)
{
	struct concurrent_sort *sort = argument;
	sort->ok = true;
	for (int round = 0; round < 3; round++)
		sort->ok = sort->ok && engine_sorts(sort->engine, ITEM_U64, sort->n + (size_t)round * 1001,
						    sort->seed + (uint64_t)round);
	return NULL;
}

/* The CPU sort's scratch is kept from sort to sort: grown, reused smaller, let go by
 * trim and made again, and, while one thread sorts in it, another sorts in its own. */
static void kept_scratch_cases(struct sort_engine *engine)
{
	static const size_t sizes[] = { 70001, 3, 250007, 1000, 250007, 131072 };
	bool ok = true;
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
		ok = ok && engine_sorts(engine, ITEM_U128, sizes[i], 40 + i);
	tap_ok(ok, "sorts of growing and shrinking sizes in the kept scratch match qsort");
	sort_engine_host_trim(engine);
	sort_engine_host_trim(engine);
	tap_ok(engine_sorts(engine, ITEM_U32, 99999, 50) && engine_sorts(engine, ITEM_U96, 300001, 51),
	       "after trim (twice) the next sorts make a scratch anew and match qsort");
	struct concurrent_sort sorts[3] = {{engine, 200003, 60, false}, {engine, 150001, 70, false},
					   {engine, 99991, 80, false}};
	pthread_t threads[3];
	int started = 0;
	for (int i = 0; i < 3; i++)
		if (pthread_create(&threads[i], NULL, concurrent_sort_main, &sorts[i]) == 0)
			started++;
	for (int i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	tap_ok(started == 3 && sorts[0].ok && sorts[1].ok && sorts[2].ok,
	       "three threads sorting through one engine at once match qsort");
}

int main(void)
{
	static const char *const names[] = { "bucket", "sample", "radix", "bitonic", "quick" };
	struct sort_engine_config config = { .device = SORT_DEVICE_CPU, .threads = 2 };
	struct sort_engine *engine = NULL;
	enum sort_algorithm algorithm;
#ifdef HAVE_CUDA
	gpu_module_choose(getenv("GPUSORT_CUDA_MODULE")); /* the build tree's, as make check sets it */
#endif

	/* algorithm names */
	bool names_ok = true;
	for (int i = 0; i < 5; i++)
		names_ok = names_ok && sort_algorithm_parse(names[i], &algorithm) == 0 &&
			   (int)algorithm == i && strcmp(sort_algorithm_name(algorithm), names[i]) == 0;
	tap_ok(names_ok, "the five algorithm names parse and name themselves");
	tap_ok(sort_algorithm_parse("bubble", &algorithm) == -EINVAL &&
		       sort_algorithm_parse("", &algorithm) == -EINVAL &&
		       sort_algorithm_parse("Bucket", &algorithm) == -EINVAL,
	       "unknown algorithm names are -EINVAL");
	tap_ok(sort_algorithm_parse("radix", &algorithm) == 0 && algorithm == SORT_RADIX,
	       "radix parses as SORT_RADIX");

	/* the CPU backend */
	tap_ok(sort_engine_open(&config, &engine) == 0 && engine, "open with device cpu");
	tap_ok(!sort_engine_uses_gpu(engine), "device cpu does not use the GPU");
	tap_ok(strcmp(sort_engine_describe(engine), "cpu (2 threads)") == 0,
	       "describes itself as \"%s\"", sort_engine_describe(engine));
	tap_ok(sort_engine_fallback_reason(engine) == NULL, "device cpu has no fallback reason");
	tap_ok(sort_engine_max_items(engine, ITEM_U64) >= ((size_t)1 << 40) &&
		       sort_engine_max_items(engine, ITEM_U128) >= ((size_t)1 << 40),
	       "the CPU backend takes any count that fits memory");
	void *small = sort_engine_host_alloc(engine, 100), *large = sort_engine_host_alloc(engine, 64 << 20);
	tap_ok(small && large && (uintptr_t)small % 64 == 0 && (uintptr_t)large % 64 == 0,
	       "host buffers, small and large, are 64-byte aligned");
	if (small && large) {
		memset(small, 1, 100);
		memset(large, 2, 64 << 20);
		tap_ok(((unsigned char *)large)[(64 << 20) - 1] == 2 && ((unsigned char *)small)[99] == 1,
		       "host buffers are writable end to end");
	} else {
		tap_ok(false, "host buffers are writable end to end");
	}
	sort_engine_host_free(engine, small, 100);
	sort_engine_host_free(engine, large, 64 << 20);
	static const enum item_width widths[] = { ITEM_U32, ITEM_U64, ITEM_U96, ITEM_U128 };
	static const size_t sizes[] = { 0, 1, 5, 1000, 300001 };
	for (int w = 0; w < (int)(sizeof widths / sizeof *widths); w++)
		for (int i = 0; i < 5; i++)
			tap_ok(engine_sorts(engine, widths[w], sizes[i], 7 + i),
			       "cpu sorts %zu items of %d bytes as qsort does", sizes[i], (int)widths[w]);
	tap_ok(sort_engine_sort(engine, (enum item_width)3, NULL, 10) == -EINVAL,
	       "an unknown item width is -EINVAL");
	populate_cases(engine);
	kept_scratch_cases(engine);
	sort_engine_close(engine);

	/* every algorithm gives the same output on the CPU */
	for (int i = 0; i < 5; i++) {
		struct sort_engine_config each = { .device = SORT_DEVICE_CPU, .threads = 1,
						   .algorithm = (enum sort_algorithm)i };
		bool opened = sort_engine_open(&each, &engine) == 0;
		tap_ok(opened && engine_sorts(engine, ITEM_U64, 200003, 99) &&
			       strcmp(sort_engine_describe(engine), "cpu (1 thread)") == 0,
		       "--algorithm=%s sorts on \"cpu (1 thread)\"", names[i]);
		if (opened)
			sort_engine_close(engine);
	}

	/* device auto: the GPU if one works, else the CPU with a reason */
	struct sort_engine_config automatic = { .device = SORT_DEVICE_AUTO, .threads = 0 };
	bool have_gpu = false;
	tap_ok(sort_engine_open(&automatic, &engine) == 0 && engine, "open with device auto");
	if (engine) {
		have_gpu = sort_engine_uses_gpu(engine);
		const char *reason = sort_engine_fallback_reason(engine);
		tap_diag("auto: %s; fallback: %s", sort_engine_describe(engine), reason ? reason : "none");
		if (have_gpu)
			tap_ok(strncmp(sort_engine_describe(engine), "gpu 0 (", 7) == 0 && !reason,
			       "auto uses gpu 0 and names it");
		else
			tap_ok(strncmp(sort_engine_describe(engine), "cpu (", 5) == 0 && reason &&
				       strncmp(reason, "gpu 0: ", 7) == 0 && strlen(reason) > 7,
			       "auto falls back to the cpu and says why");
		tap_ok(engine_sorts(engine, ITEM_U64, 100000, 3) && engine_sorts(engine, ITEM_U128, 70001, 4),
		       "auto sorts as qsort does");
		sort_engine_close(engine);
		engine = NULL;
	}

	/* explicit devices */
	struct sort_engine_config explicit = { .device = 0 };
	int error = sort_engine_open(&explicit, &engine);
	if (have_gpu) {
		tap_ok(error == 0, "device 0 opens where auto found a GPU");
		if (error == 0)
			sort_engine_close(engine);
	} else {
		tap_ok(error == -ENODEV, "device 0 without a usable GPU is -ENODEV");
	}
	/* Why a device cannot be used, in the driver's words rather than "No such device". */
	char why[256] = "unset";
	error = sort_engine_open_explained(&explicit, &engine, why, sizeof why);
	if (error == 0) {
		tap_ok(why[0] == '\0', "device 0 opens, with no reason");
		sort_engine_close(engine);
	} else {
#ifdef HAVE_CUDA
		tap_ok(why[0] && strcmp(why, strerror(ENODEV)) != 0 && strcmp(why, "built without CUDA") != 0,
		       "device 0 fails with CUDA's reason: %s", why);
#else
		tap_ok(strcmp(why, "built without CUDA") == 0, "device 0 fails: %s", why);
#endif
	}
	explicit.device = 4096;
	error = sort_engine_open_explained(&explicit, &engine, why, sizeof why);
#ifdef HAVE_CUDA
	tap_ok(error == -ENODEV && why[0] && strcmp(why, strerror(ENODEV)) != 0,
	       "device 4096 is -ENODEV, with a reason: %s", why);
#else
	tap_ok(error == -ENODEV && strcmp(why, "built without CUDA") == 0,
	       "device 4096 is -ENODEV: %s", why);
#endif
	explicit.device = -7;
	error = sort_engine_open_explained(&explicit, &engine, why, sizeof why);
	tap_ok(error == -EINVAL && strcmp(why, strerror(EINVAL)) == 0, "device -7 is -EINVAL: %s", why);
	explicit.device = 4096;
	tap_ok(sort_engine_open(&explicit, &engine) == -ENODEV, "device 4096 is -ENODEV");
	explicit.device = -7;
	tap_ok(sort_engine_open(&explicit, &engine) == -EINVAL, "device -7 is -EINVAL");
	explicit.device = SORT_DEVICE_CPU;
	explicit.algorithm = (enum sort_algorithm)42;
	tap_ok(sort_engine_open(&explicit, &engine) == -EINVAL, "an unknown algorithm is -EINVAL");
	return tap_done();
}
