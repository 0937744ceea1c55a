/* The sort engine: opening on the CPU and with device auto (which must fall back to the
 * CPU, saying why, where there is no usable GPU), explicit devices that cannot be used,
 * sorts against qsort for every width and algorithm, host buffers, the descriptions,
 * and algorithm names. */
#include "config.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int main(void)
{
	static const char *const names[] = { "bucket", "sample", "radix", "bitonic", "quick" };
	struct sort_engine_config config = { .device = SORT_DEVICE_CPU, .threads = 2 };
	struct sort_engine *engine = NULL;
	enum sort_algorithm algorithm;

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
