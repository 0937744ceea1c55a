/* SPDX-License-Identifier: MIT */
/* The CUDA backend behind the sort engine: C interface to kernels/gpu_backend.cu.
 * Calls return 0 or a negative errno (-ENODEV no usable device, -ENOMEM device
 * allocation failed, -EIO any other CUDA error); a reason buffer, when given, receives
 * CUDA's own words ("CUDA driver version is insufficient for CUDA runtime version"). */
#ifndef GPUSORT_GPU_BACKEND_H
#define GPUSORT_GPU_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "items.h"
#include "sort_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gpu_backend;
struct thread_pool;
struct thread_pool_calls;

/* The backend's calls. They live in the CUDA module (gpusort-cuda.so), which the engine
 * opens the first time a GPU is asked for (kernels/gpu_module.h), so that a sort that
 * uses none loads no CUDA at all; the GPU tests link them directly as gpu_cuda. */
#define GPU_BACKEND_CALLS_VERSION 1
struct gpu_backend_calls {
	int version;
	/* A process that will use one device alone may have the CUDA driver started
	 * knowing of that one only, which starts it several times faster where there are
	 * several. Before any other call: the devices the driver offers (/dev/nvidiaN
	 * nodes), counted without starting it; then expose_only(ordinal, that count) sets
	 * CUDA_VISIBLE_DEVICES to the ordinal, unless the environment sets it already or
	 * the ordinal is not below count; true when the process now sees that device alone
	 * (also when an earlier call exposed the same one). Ordinals stay the same
	 * everywhere below: the hidden devices count, but cannot be opened. */
	int (*device_nodes)(void);
	bool (*expose_only)(int ordinal, int count);
	/* The CUDA devices there are (0 when CUDA finds none or fails). */
	int (*device_count)(void);
	/* Device ordinal's memory divided among sharers processes: its total / sharers, or
	 * what is free if less (0 when CUDA fails). */
	size_t (*memory_share)(int ordinal, unsigned sharers);
	/* Opens device `ordinal` (>= 0) and reserves up to memory_limit bytes of it (0:
	 * most of the free memory). */
	int (*open)(int ordinal, size_t memory_limit, struct gpu_backend **backend, char *reason,
		    size_t reason_size);
	void (*close)(struct gpu_backend *backend);
	/* Closes the backend and destroys the device's context at once (rather than at
	 * exit). No page-locked buffer from host_alloc may be left. */
	void (*release)(struct gpu_backend *backend);
	/* Items one sort call can take on this device for the width (device memory). */
	size_t (*capacity)(const struct gpu_backend *backend, enum item_width width);
	/* Copies n host items in, sorts them with the algorithm, copies them back, in place.
	 * n <= capacity(). Large pageable items are locked in place for the copies;
	 * keep_locked leaves them so (letting go waits for the device) until unlock, the
	 * next sort or closing the backend, which must come before the items' memory is
	 * freed. */
	int (*sort)(struct gpu_backend *backend, enum sort_algorithm algorithm, enum item_width width, void *items,
		    size_t n, bool keep_locked, char *reason, size_t reason_size);
	/* Lets go of the items a sort left locked, if any. */
	void (*unlock)(struct gpu_backend *backend);
	/* The resident sort (sort_engine.h): the sorted items stay in device memory, where
	 * the ranks' splitters sample and cut them, another process opens them by a handle
	 * and copies its range from every rank, which is merged and copied out. One
	 * resident sort per backend at a time; its free ends it. */
	const struct resident_sort_calls *resident;
	/* Threads that copy between pageable items and the pinned staging buffers, with
	 * the pool's calls (NULL pool: the calling thread alone). */
	void (*set_copy_pool)(struct gpu_backend *backend, struct thread_pool *pool,
			      const struct thread_pool_calls *calls);
	/* staged_only: every copy goes through the staging buffers, no host items are
	 * locked in place (for comparing the two). */
	void (*set_staged_only)(struct gpu_backend *backend, bool staged_only);
	/* Page-locked host memory (NULL on failure) and its release. */
	void *(*host_alloc)(size_t bytes);
	void (*host_free)(void *buffer);
	/* Item counts of width bytes at which the GPU sort changes shape: the bucket
	 * sort's and the copies' (chunks, staging); for the boundary sweep. */
	size_t (*boundaries)(int width, size_t *sizes, size_t max);
	/* The device's name, as CUDA gives it. */
	const char *(*device_name)(const struct gpu_backend *backend);
};
extern const struct gpu_backend_calls gpu_cuda;
#define GPU_SHARE_HANDLE_BYTES SORT_SHARE_HANDLE_BYTES

#ifdef __cplusplus
}
#endif

#endif
