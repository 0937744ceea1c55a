/* SPDX-License-Identifier: MIT */
/* The CUDA backend of the sort engine (gpu_backend.h): device choice and memory budget,
 * and the sort call: host items copied in by chunks on one stream while the other
 * stream sorts the chunks already there, the bucket sort, the copy back (the resident
 * sort of the distributed one: gpu_resident.cu). */
#include <cuda_runtime.h>
#include <dirent.h>
#include <atomic>
#include <pthread.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu_algorithms.cuh"
#include "gpu_backend.h"
#include "gpu_backend_state.cuh"
#include "gpu_bucket_sort.cuh"
#include "gpu_errors.cuh"
#include "gpu_merge.cuh"
extern "C" {
#include "thread_pool.h"
}

static void backend_close(struct gpu_backend *backend);
static void backend_unlock(struct gpu_backend *backend);

/* Copies move in chunks of this many bytes (rounded to whole tiles), at most MAX_CHUNKS
 * of them (gpu_backend_state.cuh). A staging buffer holds at most one chunk. */
#define COPY_CHUNK_BYTES (64u << 20)
#define STAGING_MIN_BYTES (1u << 20)
/* Device memory left to the driver, CUB's scratch and the level tables' rounding. */
#define DEVICE_RESERVE_BYTES (256u << 20)

/* After expose_only: the one device CUDA knows of (as CUDA's device 0),
 * under the ordinal it had among all of them, and how many there were; -1 before. */
static std::atomic<int> exposed_ordinal{-1};
static std::atomic<int> exposed_count{0};
static pthread_mutex_t expose_lock = PTHREAD_MUTEX_INITIALIZER; /* jobs on threads ask at once */

static int backend_device_nodes(void)
{
	DIR *dir = opendir("/dev");
	if (!dir)
		return 0;
	int count = 0;
	struct dirent *entry;
	while ((entry = readdir(dir)) != NULL) {
		const char *digits = entry->d_name + strlen("nvidia");
		if (strncmp(entry->d_name, "nvidia", strlen("nvidia")) != 0 || *digits == '\0')
			continue;
		while (*digits >= '0' && *digits <= '9')
			digits++;
		count += *digits == '\0';
	}
	closedir(dir);
	return count;
}

static bool expose_only_locked(int ordinal, int count)
{
	if (exposed_ordinal >= 0)
		return exposed_ordinal == ordinal;
	if (ordinal < 0 || ordinal >= count || getenv("CUDA_VISIBLE_DEVICES"))
		return false;
	char value[16];
	snprintf(value, sizeof value, "%d", ordinal);
	if (setenv("CUDA_VISIBLE_DEVICES", value, 0) != 0)
		return false;
	exposed_count = count;
	exposed_ordinal = ordinal; /* last: readers that see it see the count */
	return true;
}

static bool backend_expose_only(int ordinal, int count)
{
	pthread_mutex_lock(&expose_lock);
	bool exposed = expose_only_locked(ordinal, count);
	pthread_mutex_unlock(&expose_lock);
	return exposed;
}

/* CUDA's number for device `ordinal`: itself, or once one device alone is exposed, 0
 * for that one and -1 for the others (hidden from this process). */
static int cuda_ordinal(int ordinal)
{
	if (exposed_ordinal < 0)
		return ordinal;
	return ordinal == exposed_ordinal ? 0 : -1;
}

static int backend_device_count(void)
{
	int count = 0;
	if (cudaGetDeviceCount(&count) != cudaSuccess)
		return 0;
	/* the exposed device stands for all of them, whose number the ordinals still use */
	return exposed_ordinal >= 0 && count > 0 ? exposed_count.load() : count;
}

static size_t backend_memory_share(int ordinal, unsigned sharers)
{
	size_t free_bytes = 0, total_bytes = 0;
	ordinal = cuda_ordinal(ordinal);
	if (sharers == 0 || ordinal < 0 || cudaSetDevice(ordinal) != cudaSuccess ||
	    cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess)
		return 0;
	size_t share = total_bytes / sharers;
	return share < free_bytes ? share : free_bytes;
}

static int backend_open(int ordinal, size_t memory_limit, struct gpu_backend **backend_out,
				char *reason, size_t reason_size)
{
	int count = 0;
	cudaError_t error = cudaGetDeviceCount(&count);
	if (error != cudaSuccess) {
		/* No driver, an old one, no device: CUDA's words alone say it to a user. */
		if (reason && reason_size)
			snprintf(reason, reason_size, "%s", cudaGetErrorString(error));
		return -ENODEV;
	}
	int device = cuda_ordinal(ordinal);
	if (device < 0 || device >= count) {
		if (reason && reason_size) {
			if (exposed_ordinal >= 0)
				snprintf(reason, reason_size, "no CUDA device %d (this process uses device %d alone)",
					 ordinal, exposed_ordinal.load());
			else
				snprintf(reason, reason_size, "no CUDA device %d (%d found)", ordinal, count);
		}
		return -ENODEV;
	}
	struct gpu_backend *backend = (struct gpu_backend *)calloc(1, sizeof *backend);
	if (!backend)
		return -ENOMEM;
	pthread_mutex_init(&backend->pending_lock, NULL);
	int result = 0;
	do {
		cudaDeviceProp properties;
		size_t free_bytes = 0, total_bytes = 0;
		backend->device = device;
		error = cudaSetDevice(device);
		if (!error) error = cudaGetDeviceProperties(&properties, device);
		if (!error) error = cudaMemGetInfo(&free_bytes, &total_bytes);
		if (!error) error = cudaStreamCreateWithFlags(&backend->sort_stream, cudaStreamNonBlocking);
		if (!error) error = cudaStreamCreateWithFlags(&backend->copy_stream, cudaStreamNonBlocking);
		if (!error) error = gpu_sort_lanes_create(&backend->lanes);
		for (int i = 0; !error && i < MAX_CHUNKS; i++)
			error = cudaEventCreateWithFlags(&backend->chunk_events[i], cudaEventDisableTiming);
		for (int i = 0; !error && i < 2; i++)
			error = cudaEventCreateWithFlags(&backend->staging_free[i], cudaEventDisableTiming);
		if (error) {
			result = gpu_error_report(error, "opening the CUDA device", reason, reason_size);
			if (result == 0 || result == -EINVAL)
				result = -ENODEV;
			break;
		}
		/* The pool keeps what a sort took, so the next sort allocates nothing. */
		cudaMemPool_t pool;
		uint64_t keep = UINT64_MAX;
		if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess)
			cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
		size_t usable = free_bytes > DEVICE_RESERVE_BYTES ? free_bytes - DEVICE_RESERVE_BYTES : 0;
		backend->budget = memory_limit && memory_limit < usable ? memory_limit : usable;
		snprintf(backend->name, sizeof backend->name, "%s", properties.name);
	} while (0);
	if (result) {
		backend_close(backend);
		return result;
	}
	*backend_out = backend;
	return 0;
}

static void backend_release(struct gpu_backend *backend)
{
	if (!backend)
		return;
	int device = backend->device;
	backend_close(backend);
	if (cudaSetDevice(device) == cudaSuccess)
		cudaDeviceReset();
	cudaGetLastError();
}

static void backend_close(struct gpu_backend *backend)
{
	if (!backend)
		return;
	if (backend->sort_stream)
		cudaStreamSynchronize(backend->sort_stream);
	if (backend->copy_stream)
		cudaStreamSynchronize(backend->copy_stream);
	resident_free(backend);
	backend_unlock(backend);
	pthread_mutex_destroy(&backend->pending_lock);
	for (int i = 0; i < MAX_CHUNKS; i++)
		if (backend->chunk_events[i])
			cudaEventDestroy(backend->chunk_events[i]);
	for (int i = 0; i < 2; i++) {
		if (backend->staging_free[i])
			cudaEventDestroy(backend->staging_free[i]);
		if (backend->staging[i])
			cudaFreeHost(backend->staging[i]);
	}
	gpu_sort_lanes_destroy(&backend->lanes);
	if (backend->sort_stream)
		cudaStreamDestroy(backend->sort_stream);
	if (backend->copy_stream)
		cudaStreamDestroy(backend->copy_stream);
	/* what the sorts took goes back to the device (the pool keeps it while open) */
	cudaMemPool_t pool;
	if (backend->budget && cudaDeviceGetDefaultMemPool(&pool, backend->device) == cudaSuccess)
		cudaMemPoolTrimTo(pool, 0);
	cudaGetLastError();
	free(backend);
}

/* Per item: itself and its scratch twin, plus the level tables (samples up to 1/8 of
 * the items, bounds and offsets about 12 bytes per 64 items). */
static size_t backend_capacity(const struct gpu_backend *backend, enum item_width width)
{
	double per_item = 2.0 * width + width / 8.0 + 1.0;
	return (size_t)(backend->budget / per_item);
}

static size_t backend_boundaries(int width, size_t *sizes, size_t max)
{
	size_t count = gpu_bucket_boundaries(width, sizes, max);
	size_t tile_bytes = gpu_bucket_tile_items(width) * (size_t)width;
	size_t chunk_items = (COPY_CHUNK_BYTES / tile_bytes) * tile_bytes / width;
	const size_t copies[] = {
		chunk_items,                            /* a second copy chunk */
		2 * chunk_items,                        /* a third */
		(size_t)MAX_CHUNKS * chunk_items,       /* chunks grow past MAX_CHUNKS */
		4 * (size_t)STAGING_MIN_BYTES / width,  /* staging grows past its minimum */
		4 * (size_t)COPY_CHUNK_BYTES / width,   /* staging reaches a whole chunk */
		(size_t)STAGING_MIN_BYTES / width,      /* one staging piece (small sorts) */
	};
	for (size_t i = 0; i < sizeof copies / sizeof copies[0] && count < max; i++)
		sizes[count++] = copies[i];
	return count;
}

static const char *backend_device_name(const struct gpu_backend *backend)
{
	return backend->name;
}

static void *backend_host_alloc(size_t bytes)
{
	void *buffer = NULL;
	if (cudaHostAlloc(&buffer, bytes ? bytes : 1, cudaHostAllocDefault) != cudaSuccess) {
		cudaGetLastError();
		return NULL;
	}
	return buffer;
}

static void backend_host_free(void *buffer)
{
	if (buffer)
		cudaFreeHost(buffer);
}

static void backend_set_copy_pool(struct gpu_backend *backend, struct thread_pool *pool,
				  const struct thread_pool_calls *calls)
{
	backend->copy_pool = pool;
	backend->pool_calls = calls;
}

static void backend_set_staged_only(struct gpu_backend *backend, bool staged_only)
{
	backend->staged_only = staged_only;
}

/* memcpy between pageable and staging memory on the copy pool's threads: the PCIe link
 * takes several times what one core copies, so one thread would pace the transfer. */
#define COPY_SLICE_BYTES (1u << 20)
struct slice_copy {
	char *to;
	const char *from;
	size_t bytes;
};

static void copy_slice(void *context, size_t slice)
{
	const struct slice_copy *copy = (const struct slice_copy *)context;
	size_t begin = slice * (size_t)COPY_SLICE_BYTES;
	size_t size = copy->bytes - begin < COPY_SLICE_BYTES ? copy->bytes - begin : COPY_SLICE_BYTES;
	memcpy(copy->to + begin, copy->from + begin, size);
}

/* fn(context, i) for every i below count on the copy pool, or on this thread without one */
static void copy_pool_for(const struct gpu_backend *backend, size_t count, void (*fn)(void *, size_t),
			  void *context)
{
	if (backend->copy_pool && backend->pool_calls)
		backend->pool_calls->parallel_for(backend->copy_pool, count, fn, context);
	else
		for (size_t i = 0; i < count; i++)
			fn(context, i);
}

static bool copy_pool_stopped(const struct gpu_backend *backend)
{
	return backend->copy_pool && backend->pool_calls && backend->pool_calls->stopped(backend->copy_pool);
}

static void parallel_memcpy(const struct gpu_backend *backend, void *to, const void *from, size_t bytes)
{
	struct slice_copy copy = { (char *)to, (const char *)from, bytes };
	copy_pool_for(backend, (bytes + COPY_SLICE_BYTES - 1) / COPY_SLICE_BYTES, copy_slice, &copy);
}

static bool host_is_pinned(const void *pointer)
{
	cudaPointerAttributes attributes;
	if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
		cudaGetLastError();
		return false;
	}
	return attributes.type == cudaMemoryTypeHost;
}

/* Staging buffers for a sort of `bytes`: a quarter of it, 1 to 64 MiB, so that they
 * stay within the memory budget that sized the sort; grown for a larger sort. */
cudaError_t ensure_staging(struct gpu_backend *backend, size_t bytes)
{
	size_t want = (bytes / 4 + STAGING_MIN_BYTES - 1) / STAGING_MIN_BYTES * STAGING_MIN_BYTES;
	want = want < STAGING_MIN_BYTES ? STAGING_MIN_BYTES : want > COPY_CHUNK_BYTES ? COPY_CHUNK_BYTES : want;
	if (backend->staging_bytes >= want)
		return cudaSuccess;
	for (int i = 0; i < 2; i++) {
		if (backend->staging[i])
			cudaFreeHost(backend->staging[i]);
		backend->staging[i] = NULL;
	}
	backend->staging_bytes = 0;
	for (int i = 0; i < 2; i++) {
		cudaError_t error = cudaHostAlloc(&backend->staging[i], want, cudaHostAllocDefault);
		if (error != cudaSuccess)
			return error;
	}
	backend->staging_bytes = want;
	return cudaSuccess;
}

/* A staging buffer's piece of items made by a producer (resident->sort) or
 * taken by a consumer (resident->copy_out) instead of copied from or to host
 * items: slice by slice on the copy pool's threads. */
struct staged_items {
	sort_items_piece_fn call; /* produce or consume: the same call */
	void *context;
	char *from;
	size_t bytes, width;
	uint64_t first; /* the index of the first item staged */
	int error;      /* the first callback's error (atomic) */
};

/* A slice of whole items (12-byte items do not divide a power of two). */
static size_t stage_slice_bytes(size_t width)
{
	return COPY_SLICE_BYTES / width * width;
}

static void stage_slice(void *context, size_t slice)
{
	struct staged_items *staged = (struct staged_items *)context;
	size_t slice_bytes = stage_slice_bytes(staged->width);
	size_t begin = slice * slice_bytes;
	size_t size = staged->bytes - begin < slice_bytes ? staged->bytes - begin : slice_bytes;
	int error = staged->call(staged->context, staged->from + begin, size / staged->width,
				    staged->first + begin / staged->width);
	int none = 0;
	if (error)
		__atomic_compare_exchange_n(&staged->error, &none, error, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* Runs the callback over a staged piece of bytes (whole items) whose first item is the
 * first-th; returns its first error. */
static int stage_through(sort_items_piece_fn call, void *context, const struct gpu_backend *backend,
			 void *staging, size_t bytes, size_t width, uint64_t first)
{
	struct staged_items staged = {call, context, (char *)staging, bytes, width, first, 0};
	size_t slice_bytes = stage_slice_bytes(width);
	copy_pool_for(backend, (bytes + slice_bytes - 1) / slice_bytes, stage_slice, &staged);
	return staged.error;
}

/* Host items locked in place chunk by chunk (cudaHostRegister), so that the GPU copies
 * them at PCIe speed with no CPU copy through the staging buffers. Locking is faster
 * than the staged copy, on one thread: the driver takes one call at a time. Each chunk
 * is locked while the one before crosses the link, and comes straight back. Letting go
 * waits for the device, so a caller whose buffer outlives the call may leave it to
 * later (keep_locked of the sort call): the next sort, unlock, or closing
 * the backend, which the engine does beside the write. Only large page-aligned buffers
 * (the engine's own large buffers are); a chunk the driver will not lock is staged.
 * set_staged_only stages every chunk (for comparisons). */
#define REGISTER_MINIMUM_BYTES ((size_t)16 << 20)
#define HOST_PAGE_BYTES 4096u
struct registration {
	const char *host;
	size_t bytes, chunk_bytes;
	int chunks;
	bool locked[MAX_CHUNKS];
};

static bool registration_wanted(const struct gpu_backend *backend, const void *host, size_t bytes)
{
	return !backend->staged_only && bytes >= REGISTER_MINIMUM_BYTES && (uintptr_t)host % HOST_PAGE_BYTES == 0;
}

static size_t chunk_size(const struct registration *locks, int c)
{
	return c == locks->chunks - 1 ? locks->bytes - (size_t)c * locks->chunk_bytes : locks->chunk_bytes;
}

/* Locks chunk c; false, and nothing locked, when the driver will not. */
static bool lock_chunk(struct registration *locks, int c)
{
	if (cudaHostRegister((void *)(locks->host + (size_t)c * locks->chunk_bytes), chunk_size(locks, c),
			     cudaHostRegisterDefault) != cudaSuccess) {
		cudaGetLastError();
		return false;
	}
	return locks->locked[c] = true;
}

/* Lets go of every chunk locked (the copies that use them must have ended). */
static void unlock_chunks(struct registration *locks)
{
	for (int c = 0; c < locks->chunks; c++) {
		if (!locks->locked[c])
			continue;
		cudaHostUnregister((void *)(locks->host + (size_t)c * locks->chunk_bytes));
		locks->locked[c] = false;
	}
}

/* Held while letting go, so that a caller who finds nothing left locked knows that
 * nothing is still being let go either. */
static void backend_unlock(struct gpu_backend *backend)
{
	pthread_mutex_lock(&backend->pending_lock);
	if (backend->pending) {
		unlock_chunks(backend->pending);
		free(backend->pending);
		backend->pending = NULL;
	}
	pthread_mutex_unlock(&backend->pending_lock);
}

/* Host to device in chunks on the copy stream, an event after each; pageable memory
 * bounces through the two pinned staging buffers (filled there by a producer). A job
 * stopped through the copy pool (thread_pool_set_stop) queues no further chunk: in's
 * error is then -ECANCELED. */
static cudaError_t copy_in(struct gpu_backend *backend, char *device, struct host_items *in, size_t bytes,
			   size_t chunk_bytes, int chunks, bool pinned)
{
	const char *host = in->host;
	for (int c = 0; c < chunks; c++) {
		if (copy_pool_stopped(backend)) {
			in->error = -ECANCELED;
			return cudaErrorUnknown;
		}
		size_t begin = (size_t)c * chunk_bytes;
		size_t size = c == chunks - 1 ? bytes - begin : chunk_bytes;
		cudaError_t error;
		if (pinned || (in->locks && lock_chunk(in->locks, c))) {
			error = cudaMemcpyAsync(device + begin, host + begin, size, cudaMemcpyHostToDevice,
						backend->copy_stream);
		} else {
			/* a staging chunk may be smaller than a sort chunk: copy in pieces */
			error = in->locks ? ensure_staging(backend, bytes) : cudaSuccess;
			size_t staging = backend->staging_bytes / in->width * in->width; /* whole items */
			for (size_t done = 0; !error && done < size; done += staging) {
				size_t piece = size - done < staging ? size - done : staging;
				int b = backend->staging_next++ & 1;
				error = cudaEventSynchronize(backend->staging_free[b]);
				if (error)
					break;
				if (in->produce) {
					in->error = stage_through(in->produce, in->context, backend,
								  backend->staging[b], piece, in->width,
								  (begin + done) / in->width);
					if (in->error)
						return cudaErrorUnknown;
				} else {
					parallel_memcpy(backend, backend->staging[b], host + begin + done, piece);
				}
				error = cudaMemcpyAsync(device + begin + done, backend->staging[b], piece,
							cudaMemcpyHostToDevice, backend->copy_stream);
				if (!error)
					error = cudaEventRecord(backend->staging_free[b], backend->copy_stream);
			}
		}
		if (!error)
			error = cudaEventRecord(backend->chunk_events[c], backend->copy_stream);
		if (error)
			return error;
	}
	return cudaSuccess;
}

/* Device to host: into out's host (pinned: at once), or through the two staging
 * buffers into it or, when out has a consumer, to that. */
cudaError_t copy_out_to(struct gpu_backend *backend, struct host_target *out, const char *device, size_t bytes,
			bool pinned)
{
	cudaStream_t stream = backend->sort_stream;
	char *host = out->host;
	size_t width = out->width;
	sort_items_piece_fn consume = out->consume;
	if (pinned && !consume) {
		cudaError_t error = cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream);
		return error ? error : cudaStreamSynchronize(stream);
	}
	/* two staging buffers: the device fills one while the host empties the other */
	size_t staging = backend->staging_bytes / width * width; /* whole items */
	size_t pieces = (bytes + staging - 1) / staging;
	for (size_t i = 0; i < pieces + 1; i++) {
		if (i < pieces) {
			size_t begin = i * staging;
			size_t size = bytes - begin < staging ? bytes - begin : staging;
			cudaError_t error = cudaMemcpyAsync(backend->staging[i & 1], device + begin, size,
							    cudaMemcpyDeviceToHost, stream);
			if (!error)
				error = cudaEventRecord(backend->staging_free[i & 1], stream);
			if (error)
				return error;
		}
		if (i > 0) {
			size_t k = i - 1, begin = k * staging;
			size_t size = bytes - begin < staging ? bytes - begin : staging;
			cudaError_t error = cudaEventSynchronize(backend->staging_free[k & 1]);
			if (error)
				return error;
			if (!consume) {
				parallel_memcpy(backend, host + begin, backend->staging[k & 1], size);
				continue;
			}
			out->error = stage_through(consume, out->context, backend, backend->staging[k & 1],
						   size, width, begin / width);
			if (out->error)
				return cudaStreamSynchronize(stream);
		}
	}
	return cudaSuccess;
}

static cudaError_t copy_out(struct gpu_backend *backend, char *host, const char *device, size_t bytes, bool pinned)
{
	struct host_target out = {host, NULL, NULL, 1, 0};
	return copy_out_to(backend, &out, device, bytes, pinned);
}

/* Device to host where copy_in locked host's chunks: those straight back (all queued
 * first), any others through the staging buffers meanwhile. */
static cudaError_t copy_out_locked(struct gpu_backend *backend, char *host, const char *device,
				   const struct registration *locks)
{
	cudaError_t error = cudaSuccess;
	for (int c = 0; !error && c < locks->chunks; c++) {
		size_t begin = (size_t)c * locks->chunk_bytes;
		if (locks->locked[c])
			error = cudaMemcpyAsync(host + begin, device + begin, chunk_size(locks, c),
						cudaMemcpyDeviceToHost, backend->sort_stream);
	}
	for (int c = 0; !error && c < locks->chunks; c++) {
		size_t begin = (size_t)c * locks->chunk_bytes;
		if (!locks->locked[c])
			error = copy_out(backend, host + begin, device + begin, chunk_size(locks, c), false);
	}
	return error ? error : cudaStreamSynchronize(backend->sort_stream);
}

/* Whether the backend takes n items of width for the algorithm; else why not. */
int sort_allowed(const struct gpu_backend *backend, enum sort_algorithm algorithm, enum item_width width,
		 size_t n, char *reason, size_t reason_size)
{
	if (algorithm != SORT_BUCKET && algorithm != SORT_SAMPLE && algorithm != SORT_RADIX &&
	    algorithm != SORT_BITONIC && algorithm != SORT_QUICK) {
		if (reason && reason_size)
			snprintf(reason, reason_size, "no GPU version of algorithm %d", (int)algorithm);
		return -ENOTSUP;
	}
	if (n > backend_capacity(backend, width)) {
		if (reason && reason_size)
			snprintf(reason, reason_size, "%zu items exceed the GPU's capacity of %zu", n,
				 backend_capacity(backend, width));
		return -E2BIG;
	}
	return 0;
}

/* Copies the sort's n items from in into its device memory (chunk by chunk on the copy
 * stream) and sorts them there with its algorithm on the sort stream. Returns 0 or the
 * negative errno, with reason; the copy stream may still be busy on error. */
int copy_in_and_sort(struct gpu_backend *backend, const struct device_sort *job, struct host_items *in,
		     bool pinned, char *reason, size_t reason_size)
{
	enum sort_algorithm algorithm = job->algorithm;
	enum item_width width = job->width;
	size_t n = job->n;
	char *device = job->device, *scratch = job->scratch;
	size_t bytes = n * (size_t)width;
	cudaStream_t stream = backend->sort_stream;
	/* with host locked chunk by chunk, the staging buffers are made only if a chunk
	 * cannot be locked (making them costs about what locking the same bytes does) */
	cudaError_t staged = pinned || in->locks ? cudaSuccess : ensure_staging(backend, bytes);
	if (staged)
		return gpu_error_report(staged, "allocating pinned staging buffers", reason, reason_size);
	size_t tile_bytes = gpu_bucket_tile_items(width) * (size_t)width;
	size_t chunk_bytes = (COPY_CHUNK_BYTES / tile_bytes) * tile_bytes;
	if (chunk_bytes == 0)
		chunk_bytes = tile_bytes;
	int chunks = (int)((bytes + chunk_bytes - 1) / chunk_bytes);
	if (chunks > MAX_CHUNKS) {
		chunks = MAX_CHUNKS;
		chunk_bytes = ((bytes + chunks - 1) / chunks + tile_bytes - 1) / tile_bytes * tile_bytes;
		chunks = (int)((bytes + chunk_bytes - 1) / chunk_bytes);
	}
	/* chunks that share pages cannot be locked apart */
	if (in->locks && chunk_bytes % HOST_PAGE_BYTES) {
		in->locks = NULL;
		if ((staged = ensure_staging(backend, bytes)) != cudaSuccess)
			return gpu_error_report(staged, "allocating pinned staging buffers", reason, reason_size);
	}
	if (in->locks) {
		*in->locks = (struct registration){in->host, bytes, chunk_bytes, chunks, {false}};
	}
	/* the copy stream may only start once the allocation exists */
	cudaError_t error = cudaEventRecord(backend->chunk_events[0], stream);
	if (!error) error = cudaStreamWaitEvent(backend->copy_stream, backend->chunk_events[0], 0);
	if (!error) error = copy_in(backend, device, in, bytes, chunk_bytes, chunks, pinned);
	if (in->error)
		return in->error;
	if (error)
		return gpu_error_report(error, "copying items to the GPU", reason, reason_size);
	if (n < 2) /* nothing to sort: once it is in */
		return gpu_error_report(cudaStreamWaitEvent(stream, backend->chunk_events[chunks - 1], 0),
					"copying items to the GPU", reason, reason_size);
	struct gpu_input_arrival arrival = { chunks, chunk_bytes / width, backend->chunk_events };
	if (algorithm == SORT_BUCKET) {
		error = gpu_bucket_sort_device(width, device, scratch, n, stream, &backend->lanes, &arrival);
	} else {
		/* the seeds' methods start once every chunk is in */
		error = cudaStreamWaitEvent(stream, backend->chunk_events[chunks - 1], 0);
		if (!error && algorithm == SORT_SAMPLE)
			error = gpu_sample_sort_device(width, device, scratch, n, stream);
		else if (!error && algorithm == SORT_RADIX)
			error = gpu_radix_sort_device(width, device, scratch, n, 0, stream);
		else if (!error && algorithm == SORT_BITONIC)
			error = gpu_bitonic_sort_device(width, device, scratch, n, stream);
		else if (!error)
			error = gpu_quick_sort_device(width, device, scratch, n, stream);
	}
	return error ? gpu_error_report(error, "sorting on the GPU", reason, reason_size) : 0;
}

static int backend_sort(struct gpu_backend *backend, enum sort_algorithm algorithm, enum item_width width,
				void *items, size_t n, bool keep_locked, char *reason, size_t reason_size)
{
	int result = sort_allowed(backend, algorithm, width, n, reason, reason_size);
	if (result || n < 2)
		return result;
	backend_unlock(backend); /* what the sort before left locked */
	TRY(cudaSetDevice(backend->device), "cudaSetDevice");
	size_t bytes = n * (size_t)width;
	cudaStream_t stream = backend->sort_stream;
	char *device = NULL;
	/* the scratch twin on a 256-byte boundary: 12-byte items leave device + bytes at 4 */
	size_t scratch_at = (bytes + 255) / 256 * 256;
	TRY(cudaMallocAsync(&device, scratch_at + bytes, stream), "allocating device memory for the items");
	bool pinned = host_is_pinned(items);
	struct registration *locks = NULL;
	if (!pinned && registration_wanted(backend, items, bytes))
		locks = (struct registration *)calloc(1, sizeof *locks);
	struct host_items in = {(const char *)items, NULL, NULL, (size_t)width, 0, locks};
	struct device_sort job = {algorithm, width, n, device, device + scratch_at};
	result = copy_in_and_sort(backend, &job, &in, pinned, reason, reason_size);
	if (!in.locks) { /* the chunks could not be locked apart */
		free(locks);
		locks = NULL;
	}
	/* a stopped job's items are not wanted back (the sort's kernels end on their own) */
	if (!result && copy_pool_stopped(backend))
		result = -ECANCELED;
	if (!result) {
		cudaError_t error = locks ? copy_out_locked(backend, (char *)items, device, locks)
					  : copy_out(backend, (char *)items, device, bytes, pinned);
		if (error)
			result = gpu_error_report(error, "copying items from the GPU", reason, reason_size);
	}
	cudaStreamSynchronize(backend->copy_stream);
	cudaFreeAsync(device, stream);
	cudaError_t error = cudaStreamSynchronize(stream);
	if (locks && keep_locked) {
		pthread_mutex_lock(&backend->pending_lock);
		backend->pending = locks;
		pthread_mutex_unlock(&backend->pending_lock);
	} else if (locks) {
		unlock_chunks(locks);
		free(locks);
	}
	if (!result && error)
		result = gpu_error_report(error, "finishing the GPU sort", reason, reason_size);
	return result;
}

/* The module's one exported symbol (kernels/gpu_module.c finds it by name). */
extern "C" __attribute__((visibility("default"))) const struct gpu_backend_calls gpu_cuda = {
	GPU_BACKEND_CALLS_VERSION, backend_device_nodes, backend_expose_only, backend_device_count,
	backend_memory_share, backend_open, backend_close, backend_release, backend_capacity, backend_sort,
	backend_unlock, &gpu_resident_calls, backend_set_copy_pool, backend_set_staged_only, backend_host_alloc,
	backend_host_free, backend_boundaries, backend_device_name,
};
