/* SPDX-License-Identifier: MIT */
/* Each step of the GPU bucket sort against its CPU twin (bucket_sort_steps.h) for the
 * same plan n, m, s: sorted sublists and samples, sorted samples and splitters (and the
 * splitters from the samples' ranks, unsorted), bounds,
 * offsets and relocated items must be byte-identical. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels/bucket_sort_steps.h"
#include "kernels/gpu_bucket_steps.h"
#include "tap.h"
#include "test_gpu_items.h"

struct plan_case {
	size_t n, m, s;
};

static const struct plan_case cases[] = {
	{ 1, 2, 2 },       { 2, 4, 2 },         { 17, 4, 4 },          { 1000, 64, 8 },
	{ 4096, 256, 16 }, { 100003, 4096, 64 }, { 65536, 1024, 256 },  { 300007, 2048, 1024 },
};

static void check_plan(enum item_width width, enum distribution distribution, const struct plan_case *c)
{
	struct bucket_plan plan;
	char name[128];
	snprintf(name, sizeof name, "w%d %s n=%zu m=%zu s=%zu", (int)width, distribution_name(distribution), c->n,
		 c->m, c->s);
	if (bucket_plan_init(&plan, c->n, c->m, c->s) || c->m > gpu_bucket_steps_max_m(width)) {
		tap_skip(6, "plan not valid here");
		return;
	}
	size_t w = width, L = plan.sublists, s = plan.s;
	void *cpu_items = test_items_make(width, distribution, c->n * 31 + s, c->n);
	void *gpu_items = malloc(c->n * w + 16);
	void *cpu_samples = malloc(L * s * w + 16), *gpu_samples = malloc(L * s * w + 16);
	void *cpu_splitters = malloc(s * w), *gpu_splitters = malloc(s * w);
	uint32_t *cpu_bounds = malloc(L * (s + 1) * 4), *gpu_bounds = malloc(L * (s + 1) * 4);
	uint64_t *cpu_offsets = malloc((L * s + 1) * 8), *gpu_offsets = malloc((L * s + 1) * 8);
	void *cpu_out = malloc(c->n * w + 16), *gpu_out = malloc(c->n * w + 16);
	memcpy(gpu_items, cpu_items, c->n * w);

	bucket_cpu_sort_sublists(NULL, width, cpu_items, &plan);
	bucket_cpu_take_samples(NULL, width, cpu_items, &plan, cpu_samples);
	int rc = gpu_bucket_step_sort_sublists(width, gpu_items, &plan, gpu_samples);
	tap_ok(rc == 0 && memcmp(cpu_items, gpu_items, c->n * w) == 0 &&
		       memcmp(cpu_samples, gpu_samples, L * s * w) == 0,
	       "steps 1-3 sublists and samples: %s", name);

	memcpy(gpu_samples, cpu_samples, L * s * w);
	bucket_cpu_choose_splitters(width, cpu_samples, &plan, cpu_splitters);
	if (L * s <= gpu_bucket_steps_max_m(width)) {
		rc = gpu_bucket_step_splitters_by_rank(width, gpu_samples, &plan, gpu_splitters);
		tap_ok(rc == 0 && memcmp(cpu_splitters, gpu_splitters, (s - 1) * w) == 0,
		       "steps 4-5 splitters from the samples' ranks: %s", name);
	} else {
		tap_skip(1, "more samples than a tile: the sort takes them");
	}
	rc = gpu_bucket_step_choose_splitters(width, gpu_samples, &plan, gpu_splitters);
	tap_ok(rc == 0 && memcmp(cpu_samples, gpu_samples, L * s * w) == 0 &&
		       memcmp(cpu_splitters, gpu_splitters, (s - 1) * w) == 0,
	       "steps 4-5 sorted samples and splitters: %s", name);

	bucket_cpu_locate(NULL, width, cpu_items, &plan, cpu_splitters, cpu_bounds);
	rc = gpu_bucket_step_locate(width, cpu_items, &plan, cpu_splitters, gpu_bounds);
	tap_ok(rc == 0 && memcmp(cpu_bounds, gpu_bounds, L * (s + 1) * 4) == 0, "step 6 bounds: %s", name);

	bucket_cpu_offsets(&plan, cpu_bounds, cpu_offsets);
	rc = gpu_bucket_step_offsets(&plan, cpu_bounds, gpu_offsets);
	tap_ok(rc == 0 && memcmp(cpu_offsets, gpu_offsets, (L * s + 1) * 8) == 0, "step 7 offsets: %s", name);

	bucket_cpu_relocate(NULL, width, cpu_items, &plan, cpu_bounds, cpu_offsets, cpu_out);
	rc = gpu_bucket_step_relocate(width, cpu_items, &plan, cpu_bounds, cpu_offsets, gpu_out);
	tap_ok(rc == 0 && memcmp(cpu_out, gpu_out, c->n * w) == 0, "step 8 relocation: %s", name);

	free(cpu_items); free(gpu_items); free(cpu_samples); free(gpu_samples);
	free(cpu_splitters); free(gpu_splitters); free(cpu_bounds); free(gpu_bounds);
	free(cpu_offsets); free(gpu_offsets); free(cpu_out); free(gpu_out);
}

int main(void)
{
	char reason[256] = "";
	if (gpu_bucket_steps_available(reason, sizeof reason) != 0) {
		tap_diag("%s", reason);
		tap_plan_skip_all("no GPU");
		return 0;
	}
	static const enum item_width widths[] = { ITEM_U32, ITEM_U64, ITEM_U96, ITEM_U128 };
	static const enum distribution distributions[] = { DIST_UNIFORM, DIST_FEW_UNIQUE, DIST_SORTED, DIST_ALL_EQUAL };
	size_t ncases = sizeof cases / sizeof cases[0];
	if (getenv("GPUSORT_TEST_SMALL")) /* for compute-sanitizer runs */
		ncases = 5;
	tap_plan((int)(sizeof widths / sizeof *widths * 4 * ncases * 6));
	for (int wi = 0; wi < (int)(sizeof widths / sizeof *widths); wi++)
		for (int di = 0; di < 4; di++)
			for (size_t ci = 0; ci < ncases; ci++)
				check_plan(widths[wi], distributions[di], &cases[ci]);
	return tap_done();
}
