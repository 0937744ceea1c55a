/* SPDX-License-Identifier: MIT */
/* The CUDA backend's state and the steps its sort and its resident sort share
 * (gpu_backend.cu, gpu_resident.cu); private to those two. */
#ifndef GPUSORT_GPU_BACKEND_STATE_CUH
#define GPUSORT_GPU_BACKEND_STATE_CUH

#include <cuda_runtime.h>
#include <pthread.h>
#include <stddef.h>
#include "gpu_backend.h"
#include "gpu_bucket_sort.cuh"
#include "gpu_errors.cuh"

/* Copies move in chunks of this many bytes (rounded to whole tiles); up to this many
 * chunks get their own event. */
#define MAX_CHUNKS 256

struct thread_pool;
struct thread_pool_calls;
struct registration;

struct gpu_backend {
	int device;
	size_t budget;            /* device bytes this backend may use */
	cudaStream_t sort_stream; /* kernels and copies back */
	cudaStream_t copy_stream; /* copies in */
	struct gpu_sort_lanes lanes; /* beside sort_stream: the local sort's classes */
	cudaEvent_t chunk_events[MAX_CHUNKS];
	void *staging[2];         /* pinned bounce buffers for pageable host items */
	size_t staging_bytes;     /* each; allocated by the first sort that needs them */
	cudaEvent_t staging_free[2];
	unsigned staging_next;    /* the buffer copy_in fills next, alternating */
	struct thread_pool *copy_pool; /* fills and empties the staging buffers */
	const struct thread_pool_calls *pool_calls; /* the copy pool's (set_copy_pool) */
	bool staged_only;         /* never lock host items in place (set_staged_only) */
	struct registration *pending;  /* host chunks a sort left locked (unlock) */
	pthread_mutex_t pending_lock;
	char name[256];
	/* A resident sort's items (resident->sort): its own, sorted, in an
	 * allocation of their own (a handle names a whole allocation), and the range it
	 * receives from every rank, merged in place */
	int resident_width;
	char *resident;
	size_t resident_items;
	char *received;
	size_t received_items;
	char *range; /* the merged range: in received, or in resident's memory */
	uint64_t *received_offsets; /* per sender, then the end */
	size_t senders;
};

#define TRY(call, what)                                                             \
	do {                                                                        \
		cudaError_t error_ = (call);                                        \
		if (error_ != cudaSuccess)                                          \
			return gpu_error_report(error_, what, reason, reason_size); \
	} while (0)

/* What fills the device: host items, or a producer of them (host NULL). */
struct host_items {
	const char *host;
	sort_items_piece_fn produce;
	void *context;
	size_t width;
	int error; /* the producer's */
	struct registration *locks; /* host locked chunk by chunk, or NULL */
};

/* Where the device's items go: host items, or a consumer of them (host NULL). */
struct host_target {
	char *host;
	sort_items_piece_fn consume;
	void *context;
	size_t width;
	int error; /* the consumer's */
};

/* A sort on the device: n items of width at device, scratch (as large) beside them. */
struct device_sort {
	enum sort_algorithm algorithm;
	enum item_width width;
	size_t n;
	char *device, *scratch;
};

/* Both pinned staging buffers at least bytes long (one chunk at most). */
cudaError_t ensure_staging(struct gpu_backend *backend, size_t bytes);
/* Device to host: into out's host (pinned: at once), or through the two staging
 * buffers into it or, when out has a consumer, to that. */
cudaError_t copy_out_to(struct gpu_backend *backend, struct host_target *out, const char *device, size_t bytes,
			bool pinned);
/* Whether the backend takes n items of width for the algorithm; else why not. */
int sort_allowed(const struct gpu_backend *backend, enum sort_algorithm algorithm, enum item_width width, size_t n,
		 char *reason, size_t reason_size);
/* Copies the sort's n items from in into its device memory and sorts them there. */
int copy_in_and_sort(struct gpu_backend *backend, const struct device_sort *job, struct host_items *in, bool pinned,
		     char *reason, size_t reason_size);
/* Frees a resident sort's device memory (gpu_resident.cu). */
void resident_free(struct gpu_backend *backend);
/* The resident sort's calls (gpu_resident.cu), gpu_cuda.resident. */
extern "C" const struct resident_sort_calls gpu_resident_calls;

#endif
