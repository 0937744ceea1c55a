/* SPDX-License-Identifier: MIT */
/* The CUDA backend behind the sort engine: C interface to kernels/gpu_backend.cu.
 * Functions return 0 or a negative errno (-ENODEV no usable device, -ENOMEM device
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

/* A process that will use one device alone may have the CUDA driver started knowing
 * of that one only, which is several times faster where there are several (4 x H200:
 * the driver's start 0.19 s instead of 0.8-1.0 s; bench/RESULTS.md). Before any other
 * call here: the devices the driver offers (/dev/nvidiaN nodes), counted without
 * starting it; then gpu_backend_expose_only(ordinal, that count) sets
 * CUDA_VISIBLE_DEVICES to the ordinal, unless the environment sets it already or the
 * ordinal is not below count; true when the process now sees that device alone (also
 * when an earlier call exposed the same one). Ordinals stay the same everywhere below:
 * the hidden devices count, but cannot be opened. */
int gpu_backend_device_nodes(void);
bool gpu_backend_expose_only(int ordinal, int count);
/* The CUDA devices there are (0 when CUDA finds none or fails). */
int gpu_backend_device_count(void);
/* Device ordinal's memory divided among sharers processes: its total / sharers, or
 * what is free if less (0 when CUDA fails). */
size_t gpu_backend_memory_share(int ordinal, unsigned sharers);
/* Opens device `ordinal` (>= 0) and reserves up to memory_limit bytes of it (0: most
 * of the free memory). */
int gpu_backend_open(int ordinal, size_t memory_limit, struct gpu_backend **backend,
		     char *reason, size_t reason_size);
void gpu_backend_close(struct gpu_backend *backend);
/* Closes the backend and destroys the device's context at once (rather than at exit).
 * No page-locked buffer from gpu_backend_host_alloc may be left. */
void gpu_backend_release(struct gpu_backend *backend);

/* Items one sort call can take on this device for the width (device memory bound). */
size_t gpu_backend_capacity(const struct gpu_backend *backend, enum item_width width);

/* Copies n host items in, sorts them with the algorithm, copies them back, in place.
 * n <= gpu_backend_capacity(). Large pageable items are locked in place for the
 * copies; keep_locked leaves them so (letting go waits for the device) until
 * gpu_backend_unlock, the next sort or closing the backend, which must come before the
 * items' memory is freed. */
int gpu_backend_sort(struct gpu_backend *backend, enum sort_algorithm algorithm,
		     enum item_width width, void *items, size_t n, bool keep_locked, char *reason,
		     size_t reason_size);
/* Lets go of the items a sort left locked, if any. */
void gpu_backend_unlock(struct gpu_backend *backend);

/* A resident sort, for a distributed sort whose ranks exchange their ranges GPU to GPU:
 * the sorted items stay in device memory, where the ranks' splitters sample and cut
 * them (gather, bounds), another process opens them by a handle (export) and copies its
 * range from every rank (receive, which names this process's own items by self), merges
 * the range (merge, which frees the own items: every rank must be done receiving) and
 * copies it out. One resident sort per backend at a time; resident_free ends it. */
#define GPU_SHARE_HANDLE_BYTES 64
typedef sort_items_piece_fn gpu_items_piece_fn;
int gpu_backend_sort_resident(struct gpu_backend *backend, enum sort_algorithm algorithm, enum item_width width,
			      gpu_items_piece_fn produce, void *context, size_t n, char *reason, size_t reason_size);
int gpu_backend_resident_gather(struct gpu_backend *backend, const uint64_t *indexes, size_t count, void *out,
				char *reason, size_t reason_size);
int gpu_backend_resident_bounds(struct gpu_backend *backend, const void *values, size_t count, uint64_t *lower,
				uint64_t *upper, char *reason, size_t reason_size);
int gpu_backend_resident_export(struct gpu_backend *backend, void *handle, char *reason, size_t reason_size);
int gpu_backend_resident_receive(struct gpu_backend *backend, const void *handles, size_t senders, size_t self,
				 const uint64_t *begins, const uint64_t *lengths, char *reason, size_t reason_size);
int gpu_backend_resident_merge(struct gpu_backend *backend, char *reason, size_t reason_size);
int gpu_backend_resident_copy_out(struct gpu_backend *backend, gpu_items_piece_fn consume, void *context,
				  char *reason, size_t reason_size);
void gpu_backend_resident_free(struct gpu_backend *backend);

/* Threads that copy between pageable items and the pinned staging buffers (NULL: the
 * calling thread alone). */
struct thread_pool;
void gpu_backend_set_copy_pool(struct gpu_backend *backend, struct thread_pool *pool);
/* staged_only: every copy goes through the staging buffers, no host items are locked
 * in place (for comparing the two). */
void gpu_backend_set_staged_only(struct gpu_backend *backend, bool staged_only);

/* Page-locked host memory (NULL on failure) and its release. */
void *gpu_backend_host_alloc(size_t bytes);
void gpu_backend_host_free(void *buffer);

/* "NVIDIA H100 80GB HBM3" */
/* Item counts of width bytes at which the GPU sort changes shape: the bucket sort's
 * (gpu_bucket_boundaries) and the copies' (chunks, staging); for the boundary sweep. */
size_t gpu_backend_boundaries(int width, size_t *sizes, size_t max);
const char *gpu_backend_device_name(const struct gpu_backend *backend);

#ifdef __cplusplus
}
#endif

#endif
