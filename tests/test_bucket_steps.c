/* SPDX-License-Identifier: MIT */
/* Each step of the CPU bucket sort (kernels/bucket_sort_steps.h) against an oracle
 * written from the header's definitions: sorted sublists against qsort, samples at the
 * defined indices, splitters from the qsorted samples, bounds by linear count, offsets
 * by a naive running sum, relocation as the defined copy that keeps a permutation and
 * puts every item between its bucket's splitters; for every item width. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels/bucket_sort_steps.h"
#include "kernels/thread_pool.h"
#include "tests/distributions.h"
#include "tests/tap.h"

/* Items are handled here as item_u128 values whatever their width. */
static item_u128 item_get(enum item_width width, const void *items, size_t i)
{
	switch (width) {
	case ITEM_U32: return ((const uint32_t *)items)[i];
	case ITEM_U64: return ((const uint64_t *)items)[i];
	case ITEM_U96: return item_u96_value(((const item_u96 *)items)[i]);
	default: return ((const item_u128 *)items)[i];
	}
}

static void item_set(enum item_width width, void *items, size_t i, item_u128 value)
{
	switch (width) {
	case ITEM_U32: ((uint32_t *)items)[i] = (uint32_t)value; break;
	case ITEM_U64: ((uint64_t *)items)[i] = (uint64_t)value; break;
	case ITEM_U96: ((item_u96 *)items)[i] = item_u96_make((uint64_t)(value >> 32), (uint32_t)value); break;
	default: ((item_u128 *)items)[i] = value; break;
	}
}

static int compare_wide(const void *a, const void *b)
{
	item_u128 x = *(const item_u128 *)a, y = *(const item_u128 *)b;
	return (x > y) - (x < y);
}

/* Widens items[from, from + n) into a new array, qsorted when `sorted`. */
static item_u128 *widen(enum item_width width, const void *items, size_t from, size_t n, bool sorted)
{
	item_u128 *wide = malloc((n + 1) * sizeof(*wide));
	for (size_t i = 0; i < n; i++)
		wide[i] = item_get(width, items, from + i);
	if (sorted)
		qsort(wide, n, sizeof(*wide), compare_wide);
	return wide;
}

/* Distinct items: the key image in the high bits, the position in the low bits. */
static void make_items(enum item_width width, enum distribution distribution, uint64_t seed,
		       void *items, size_t n)
{
	uint64_t *keys = malloc((n + 1) * sizeof(*keys));
	distribution_fill_u64(distribution, seed, width >= ITEM_U96 ? 64 : 32, keys, n);
	for (size_t i = 0; i < n; i++) {
		item_u128 item;
		if (width == ITEM_U32)
			item = (keys[i] >> 16) << 16 | i; /* n < 2^16 here */
		else if (width == ITEM_U64)
			item = (keys[i] << 32) | i;
		else if (width == ITEM_U96)
			item = (item_u128)keys[i] << 32 | i;
		else
			item = item_u128_make(keys[i], i);
		item_set(width, items, i, item);
	}
	free(keys);
}

static size_t sublist_length(const struct bucket_plan *plan, size_t j)
{
	size_t start = j * plan->m;
	return plan->n - start < plan->m ? plan->n - start : plan->m;
}

struct plan_case {
	size_t n, m, s;
};

static const char *width_name(enum item_width width)
{
	return width == ITEM_U32 ? "u32" : width == ITEM_U64 ? "u64" : width == ITEM_U96 ? "u96" : "u128";
}

/* Runs steps 2-8 on one plan and checks each against its oracle. */
static void check_steps(struct thread_pool *pool, enum item_width width,
			enum distribution distribution, struct plan_case c)
{
	struct bucket_plan plan;
	size_t w = (size_t)width;
	char label[96];
	snprintf(label, sizeof(label), "%s %s n=%zu m=%zu s=%zu", width_name(width),
		 distribution_name(distribution), c.n, c.m, c.s);
	if (!tap_ok(bucket_plan_init(&plan, c.n, c.m, c.s) == 0 &&
		    plan.sublists == (c.n + c.m - 1) / c.m, "%s: plan", label))
		return;
	size_t L = plan.sublists, s = plan.s, n = plan.n;
	void *items = malloc(n * w + 16), *original = malloc(n * w + 16);
	void *samples = malloc(L * s * w + 16), *splitters = malloc(s * w);
	uint32_t *bounds = malloc(L * (s + 1) * sizeof(*bounds) + 4);
	uint64_t *offsets = malloc((L * s + 1) * sizeof(*offsets));
	void *out = malloc(n * w + 16);
	make_items(width, distribution, 17 + c.n, items, n);
	memcpy(original, items, n * w);

	/* step 2 */
	bucket_cpu_sort_sublists(pool, width, items, &plan);
	bool ok = true;
	for (size_t j = 0; j < L && ok; j++) {
		size_t length = sublist_length(&plan, j);
		item_u128 *expect = widen(width, original, j * c.m, length, true);
		for (size_t i = 0; i < length; i++)
			ok = ok && item_get(width, items, j * c.m + i) == expect[i];
		free(expect);
	}
	tap_ok(ok, "%s: step 2 sorts each sublist as qsort does", label);

	/* step 3 */
	bucket_cpu_take_samples(pool, width, items, &plan, samples);
	ok = true;
	for (size_t j = 0; j < L; j++) {
		size_t length = sublist_length(&plan, j);
		for (size_t k = 0; k < s; k++)
			ok = ok && item_get(width, samples, j * s + k) ==
					   item_get(width, items, j * c.m + (k * length) / s);
	}
	tap_ok(ok, "%s: step 3 takes sample k of sublist j at (k * len_j) / s", label);

	/* steps 4 and 5 */
	item_u128 *sorted_samples = widen(width, samples, 0, L * s, true);
	bucket_cpu_choose_splitters(width, samples, &plan, splitters);
	ok = true;
	for (size_t i = 0; i < L * s; i++)
		ok = ok && item_get(width, samples, i) == sorted_samples[i];
	tap_ok(ok, "%s: step 4 sorts the samples as qsort does", label);
	ok = true;
	for (size_t k = 1; k < s; k++)
		ok = ok && item_get(width, splitters, k - 1) == sorted_samples[k * L];
	tap_ok(ok, "%s: step 5 splitter k-1 is sorted sample k * L", label);
	free(sorted_samples);

	/* step 6: lower bounds by linear count */
	bucket_cpu_locate(pool, width, items, &plan, splitters, bounds);
	ok = true;
	for (size_t j = 0; j < L; j++) {
		size_t length = sublist_length(&plan, j);
		ok = ok && bounds[j * (s + 1)] == 0 && bounds[j * (s + 1) + s] == length;
		for (size_t b = 1; b < s; b++) {
			item_u128 splitter = item_get(width, splitters, b - 1);
			size_t below = 0;
			for (size_t i = 0; i < length; i++)
				below += item_get(width, items, j * c.m + i) < splitter;
			ok = ok && bounds[j * (s + 1) + b] == below;
		}
	}
	tap_ok(ok, "%s: step 6 bounds count the items below each splitter", label);

	/* step 7: a naive running sum, bucket-major */
	bucket_cpu_offsets(&plan, bounds, offsets);
	ok = true;
	for (size_t b = 0; b < s; b++)
		for (size_t j = 0; j < L; j++) {
			uint64_t before = 0;
			for (size_t b2 = 0; b2 <= b; b2++)
				for (size_t j2 = 0; j2 < L; j2++)
					if (b2 < b || j2 < j)
						before += bounds[j2 * (s + 1) + b2 + 1] -
							  bounds[j2 * (s + 1) + b2];
			ok = ok && offsets[b * L + j] == before;
		}
	ok = ok && offsets[s * L] == n;
	tap_ok(ok, "%s: step 7 offsets are the bucket-major exclusive prefix sum", label);

	/* step 8 */
	memset(out, 0xa5, n * w);
	bucket_cpu_relocate(pool, width, items, &plan, bounds, offsets, out);
	ok = true;
	for (size_t j = 0; j < L; j++)
		for (size_t b = 0; b < s; b++) {
			size_t from = bounds[j * (s + 1) + b], to = bounds[j * (s + 1) + b + 1];
			for (size_t i = 0; i < to - from; i++)
				ok = ok && item_get(width, out, offsets[b * L + j] + i) ==
						   item_get(width, items, j * c.m + from + i);
		}
	tap_ok(ok, "%s: step 8 copies each piece to its offset", label);
	item_u128 *out_sorted = widen(width, out, 0, n, true);
	item_u128 *all_sorted = widen(width, original, 0, n, true);
	tap_ok(memcmp(out_sorted, all_sorted, n * sizeof(item_u128)) == 0,
	       "%s: step 8 output is a permutation of the input", label);
	ok = true;
	size_t largest = 0;
	for (size_t b = 0; b < s; b++) {
		size_t start = offsets[b * L], end = offsets[(b + 1) * L];
		if (end - start > largest)
			largest = end - start;
		for (size_t i = start; i < end; i++) {
			item_u128 x = item_get(width, out, i);
			if (b > 0)
				ok = ok && item_get(width, splitters, b - 1) <= x;
			if (b + 1 < s)
				ok = ok && x < item_get(width, splitters, b);
		}
	}
	tap_ok(ok, "%s: every item of bucket b lies in [splitter b-1, splitter b)", label);
	tap_ok(largest <= 2 * n / s + c.m, "%s: largest bucket %zu <= 2n/s + m = %zu", label,
	       largest, 2 * n / s + c.m);
	free(out_sorted);
	free(all_sorted);
	free(out);
	free(offsets);
	free(bounds);
	free(splitters);
	free(samples);
	free(original);
	free(items);
}

int main(void)
{
	static const struct plan_case cases[] = {
		{ 1, 16, 2 },      /* one item */
		{ 1000, 64, 8 },   /* a short last sublist */
		{ 4096, 256, 16 }, /* exact sublists */
		{ 5003, 100, 4 },  /* m not a power of two */
		{ 20000, 512, 64 },
	};
	static const enum distribution distributions[] = {
		DIST_UNIFORM, DIST_NORMAL, DIST_SORTED, DIST_ALL_EQUAL, DIST_FEW_UNIQUE,
	};
	static const enum item_width widths[] = { ITEM_U32, ITEM_U64, ITEM_U96, ITEM_U128 };
	struct thread_pool *pool;
	struct bucket_plan plan;

	if (thread_pool_create(2, &pool) < 0) {
		tap_plan_skip_all("no threads");
		return 0;
	}
	tap_ok(bucket_plan_init(&plan, 100, 16, 3) == -EINVAL, "plan: s not a power of two");
	tap_ok(bucket_plan_init(&plan, 100, 4, 8) == -EINVAL, "plan: m < s");
	tap_ok(bucket_plan_init(&plan, 100, 16, 1) == -EINVAL, "plan: s < 2");
	for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
		for (size_t d = 0; d < sizeof(distributions) / sizeof(distributions[0]); d++)
			for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
				check_steps(pool, widths[w], distributions[d], cases[c]);
	thread_pool_destroy(pool);
	return tap_done();
}
