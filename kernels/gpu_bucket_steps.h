/* SPDX-License-Identifier: MIT */
/* Test hooks: each step of GPU Bucket Sort run alone on the device for host arrays, with
 * the layouts of bucket_sort_steps.h, so tests can compare it with its CPU twin
 * bucket_cpu_*. Compiled into the test that uses them (tests/gpu.mk), not into the
 * library. Each returns 0, -ENODEV (no usable GPU), -EINVAL (m larger than a GPU
 * tile) or -EIO/-ENOMEM (CUDA failed). */
#ifndef GPUSORT_GPU_BUCKET_STEPS_H
#define GPUSORT_GPU_BUCKET_STEPS_H

#include <stddef.h>
#include <stdint.h>
#include "bucket_sort_steps.h"
#include "items.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 0 when a CUDA device can run the steps, else -ENODEV and CUDA's reason. */
int gpu_bucket_steps_available(char *reason, size_t reason_size);
/* The largest sublist size m the GPU steps take for the width. */
size_t gpu_bucket_steps_max_m(enum item_width width);

/* Steps 1-3: sorts each sublist of items in place and writes the L*s samples. */
int gpu_bucket_step_sort_sublists(enum item_width width, void *items, const struct bucket_plan *plan,
				  void *samples);
/* Steps 4-5: sorts samples in place and writes the s-1 splitters. */
int gpu_bucket_step_choose_splitters(enum item_width width, void *samples, const struct bucket_plan *plan,
				     void *splitters);
/* Steps 4-5 from the samples' ranks (samples unchanged), as the whole sort takes them
 * for one segment whose L*s samples fit a tile (at most gpu_bucket_steps_max_m). */
int gpu_bucket_step_splitters_by_rank(enum item_width width, const void *samples, const struct bucket_plan *plan,
				      void *splitters);
/* Step 6 on sorted sublists: bounds, L*(s+1) entries. */
int gpu_bucket_step_locate(enum item_width width, const void *items, const struct bucket_plan *plan,
			   const void *splitters, uint32_t *bounds);
/* Step 7: offsets, L*s+1 entries. */
int gpu_bucket_step_offsets(const struct bucket_plan *plan, const uint32_t *bounds, uint64_t *offsets);
/* Step 8: out (n items) from sorted sublists, bounds and offsets. */
int gpu_bucket_step_relocate(enum item_width width, const void *items, const struct bucket_plan *plan,
			     const uint32_t *bounds, const uint64_t *offsets, void *out);

#ifdef __cplusplus
}
#endif

#endif
