/* SPDX-License-Identifier: MIT */
/* The sort engine: the one entry point through which src/ sorts items. It picks the
 * backend (a CUDA device, or CPU threads when there is none or it fails) and the
 * algorithm; every backend and algorithm gives the same output for the same items.
 * Functions return 0 or a negative errno. */
#ifndef GPUSORT_SORT_ENGINE_H
#define GPUSORT_SORT_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "items.h"

enum sort_algorithm {
	SORT_BUCKET,  /* deterministic sample sort "GPU Bucket Sort" (Dehne and Zaboli) */
	SORT_SAMPLE,  /* Fine Sample Sort: randomized splitters, 128 buckets */
	SORT_RADIX,   /* LSD radix sort */
	SORT_BITONIC, /* bitonic sorting network */
	SORT_QUICK,   /* GPU quicksort (Cederman and Tsigas) */
};

#define SORT_DEVICE_AUTO (-1) /* the first CUDA device if there is one, else the CPU */
#define SORT_DEVICE_CPU (-2)  /* CPU threads only */

struct sort_engine_config {
	int device;                   /* SORT_DEVICE_AUTO, SORT_DEVICE_CPU or a CUDA ordinal */
	unsigned threads;             /* CPU threads; 0 means the online cores */
	size_t gpu_memory;            /* device bytes to use; 0 means most of the free memory */
	enum sort_algorithm algorithm;
	/* A distributed sort's local rank, so that the ranks of a machine share its GPUs:
	 * SORT_DEVICE_AUTO opens GPU auto_device and an ordinal N opens GPU N + auto_device,
	 * each modulo the GPUs found (0: the GPU asked for) */
	unsigned auto_device;
	/* and the ranks of this machine (0 or 1: one): those given the same GPU share its
	 * memory evenly unless gpu_memory says how much to take */
	unsigned auto_device_ranks;
	/* The process opens no GPU but this engine's, now or later: the CUDA driver is
	 * started knowing that one alone (gpu_backend.h's expose_only), which on a machine of
	 * several GPUs starts it faster */
	bool one_device;
	/* Every GPU copy through the staging buffers, no host items locked in place (for
	 * comparing the two; GPUSORT_HOST_REGISTER=0) */
	bool staged_only;
	/* The process is the job's (the gpusort command's): sort_engine_release_gpu may
	 * destroy the device's context. Otherwise the context is the host process's, which
	 * the caller and other jobs share, and the engine lets go of its own parts alone. */
	bool owns_process;
};

struct sort_engine;

/* Opens an engine. With SORT_DEVICE_AUTO a missing or failing GPU is not an error: the
 * engine runs on the CPU and sort_engine_fallback_reason() says why. An explicit device
 * ordinal that cannot be used is an error (-ENODEV). */
int sort_engine_open(const struct sort_engine_config *config, struct sort_engine **engine);
/* sort_engine_open, saying on failure why in reason (when given): for a device that
 * cannot be used CUDA's own words ("CUDA driver version is insufficient for CUDA
 * runtime version", "no CUDA-capable device is detected"), or "built without CUDA";
 * otherwise strerror's. */
int sort_engine_open_explained(const struct sort_engine_config *config, struct sort_engine **engine,
			       char *reason, size_t reason_size);
void sort_engine_close(struct sort_engine *engine);
/* The caller has no more sorts for the GPU: the engine's streams and memory are let go
 * and, with owns_process, the device's context destroyed, on a thread of its own while
 * the caller goes on (writing the output), instead of at exit. Does nothing while
 * page-locked buffers from sort_engine_host_alloc are held. Later sorts, if any, run on
 * the CPU. */
void sort_engine_release_gpu(struct sort_engine *engine);

/* Sorts n items of the given width ascending, in place. Returns 0 or a negative errno:
 * -ECANCELED when the engine's owner stopped it (thread_pool_set_stop on its pool). */
int sort_engine_sort(struct sort_engine *engine, enum item_width width, void *items, size_t n);

/* A resident sort, for a distributed sort whose ranks exchange their key ranges GPU to
 * GPU instead of through files: the n items, made by produce a piece at a time into the
 * engine's staging memory as they go to the GPU, are sorted there and stay. The calls
 * that follow are the GPU backend's own, through the table in *resident (filled when
 * the sort succeeded), so that a call is written once: gather samples the items (those
 * at given indexes), bounds cuts them (for each value, the first index not below it and
 * the first above it), export_handle gives a handle by which another process of the
 * machine opens them, receive copies this rank's range from every rank (lengths[s]
 * items from begins[s] of rank s's, its own for s == self), merge merges those sorted
 * pieces in rank order (so every rank must have received first: it may reuse the own
 * items' memory), and copy_out hands the range to consume, a piece at a time, as it
 * comes out. One resident sort per engine at a time; sort_engine_resident_free ends it
 * (close does too). On the CPU backend sort_engine_sort_resident is -ENOTSUP. Each
 * returns 0 or a negative errno, and says why in reason; a producer's or consumer's own
 * error comes back as it is, reason left empty.
 *
 * A producer or consumer is called with a piece of whole items (count of them, the first
 * being item `first` of the share or range), on the engine's threads at once, in no
 * order; it fills the piece (produce) or takes it, free to change it (consume), and
 * returns 0 or a negative errno, which stops the copy. */
#define SORT_SHARE_HANDLE_BYTES 64
typedef int (*sort_items_piece_fn)(void *context, void *items, size_t count, uint64_t first);
struct gpu_backend;
struct resident_sort_calls {
	int (*sort)(struct gpu_backend *gpu, enum sort_algorithm algorithm, enum item_width width,
		    sort_items_piece_fn produce, void *context, size_t n, char *reason, size_t reason_size);
	int (*gather)(struct gpu_backend *gpu, const uint64_t *indexes, size_t count, void *out, char *reason,
		      size_t reason_size);
	int (*bounds)(struct gpu_backend *gpu, const void *values, size_t count, uint64_t *lower, uint64_t *upper,
		      char *reason, size_t reason_size);
	int (*export_handle)(struct gpu_backend *gpu, void *handle, char *reason, size_t reason_size);
	int (*receive)(struct gpu_backend *gpu, const void *handles, size_t senders, size_t self,
		       const uint64_t *begins, const uint64_t *lengths, char *reason, size_t reason_size);
	int (*merge)(struct gpu_backend *gpu, char *reason, size_t reason_size);
	int (*copy_out)(struct gpu_backend *gpu, sort_items_piece_fn consume, void *context, char *reason,
			size_t reason_size);
	void (*free)(struct gpu_backend *gpu);
};
struct resident_sort {
	const struct resident_sort_calls *call;
	struct gpu_backend *gpu;
};
int sort_engine_sort_resident(struct sort_engine *engine, enum item_width width, sort_items_piece_fn produce,
			      void *context, size_t n, struct resident_sort *resident, char *reason,
			      size_t reason_size);
void sort_engine_resident_free(struct sort_engine *engine);

/* --device=auto opens the GPU on a thread of its own; every call below that depends
 * on the device waits for it. Seconds that opening the GPU took (0 without one). */
double sort_engine_open_seconds(const struct sort_engine *engine);
/* Of that, how long the first caller that needed the GPU waited for it to open. */
double sort_engine_wait_seconds(const struct sort_engine *engine);

/* The most items one sort_engine_sort() call takes on the chosen backend (the GPU's
 * memory bounds it); the CPU backend takes any count that fits host memory. */
size_t sort_engine_max_items(const struct sort_engine *engine, enum item_width width);

/* Host buffers for items: page-locked when a GPU backend is in use (faster copies). */
void *sort_engine_host_alloc(struct sort_engine *engine, size_t bytes);
void sort_engine_host_free(struct sort_engine *engine, void *buffer, size_t bytes);
/* Lets go of what the engine keeps between sorts (the CPU sort's scratch), when the
 * sorting is over and the memory goes to the merge. */
void sort_engine_host_trim(struct sort_engine *engine);
/* Faults in fresh buffers from sort_engine_host_alloc (of the sizes asked there) on the
 * engine's threads, before the work that will fill them starts other threads beside
 * them (huge_memory.h says why), up to 8 of them; page-locked ones are in memory
 * already. */
void sort_engine_host_populate(struct sort_engine *engine, void *const *buffers, const size_t *bytes,
			       unsigned count);

/* The engine's CPU threads (--parallel), for data-parallel work around the sort such
 * as building items and gathering records. */
struct thread_pool *sort_engine_thread_pool(const struct sort_engine *engine);

/* "cpu (2 threads)", or "gpu 0 (NAME)" with the device's name as CUDA gives it. */
const char *sort_engine_describe(const struct sort_engine *engine);
/* Why the GPU is not used (no device, old driver, allocation failed), or NULL. */
const char *sort_engine_fallback_reason(const struct sort_engine *engine);
bool sort_engine_uses_gpu(const struct sort_engine *engine);
/* Without waiting for the GPU to open: whether it is open or still opening. */
bool sort_engine_may_use_gpu(const struct sort_engine *engine);

/* Parses "bucket", "sample", ...; returns 0 or -EINVAL. */
int sort_algorithm_parse(const char *name, enum sort_algorithm *algorithm);
const char *sort_algorithm_name(enum sort_algorithm algorithm);

#endif
