/* SPDX-License-Identifier: MIT */
/* The sort engine: picks the backend (a CUDA device through gpu_backend.h, or CPU
 * threads), runs every sort through it, and falls back to the CPU where the GPU cannot
 * take a sort, saying why. The CPU backend runs GPU Bucket Sort for every algorithm
 * until the others have CPU twins (all give the same output). */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bucket_sort_steps.h"
#include "huge_memory.h"
#include "sort_engine.h"
#include "thread_pool.h"
#ifdef HAVE_CUDA
#include "gpu_backend.h"
#include "gpu_module.h"

/* The CUDA backend's calls once its module is open (every call below that has a
 * backend, or that counts devices, comes after the module opened or failed). */
static const struct gpu_backend_calls *cuda(void)
{
	return gpu_module(NULL, 0);
}
#endif

struct sort_engine {
	struct sort_engine_config config;
	struct thread_pool *pool;
	struct gpu_backend *gpu; /* NULL: the CPU backend */
	int gpu_ordinal;
	char description[160];
	pthread_mutex_t fallback_lock; /* sorts may run on several threads */
	char fallback[320];            /* empty: no fallback happened */
	/* --device=auto opens the GPU on a thread of its own (creating a CUDA context takes
	 * a while), so that the caller can read its input meanwhile; whatever needs the GPU
	 * waits for it in engine_ready(). */
	pthread_mutex_t open_lock;
	pthread_t opener;
	bool opening;
	int opened;          /* atomic: the opener's outcome, 1 open, -1 failed, 0 not yet */
	double open_seconds;   /* how long opening the GPU took */
	double waited_seconds; /* how long the caller waited for it */
	unsigned pinned_buffers; /* page-locked host buffers not yet freed */
	pthread_t releaser;      /* sort_engine_release_gpu's thread */
	bool releasing;
	/* the large buffers this engine made: a GPU sort of items inside one leaves them
	 * locked in place until the buffer is freed (keep_locked of the backend's sort) */
	pthread_mutex_t buffers_lock;
	struct own_buffer {
		const char *start;
		size_t bytes;
	} own[16];
	/* the CPU sort's scratch, kept from sort to sort until sort_engine_host_trim (a sort
	 * on another thread meanwhile makes its own) */
	pthread_mutex_t scratch_lock;
	void *scratch;
	size_t scratch_bytes;
	bool scratch_busy;
};

static const char *const algorithm_names[] = {
	[SORT_BUCKET] = "bucket",
	[SORT_SAMPLE] = "sample",
	[SORT_RADIX] = "radix",
	[SORT_BITONIC] = "bitonic",
	[SORT_QUICK] = "quick",
};

#define ALGORITHM_COUNT (sizeof(algorithm_names) / sizeof(algorithm_names[0]))

int sort_algorithm_parse(const char *name, enum sort_algorithm *algorithm)
{
	for (size_t i = 0; i < ALGORITHM_COUNT; i++) {
		if (strcmp(name, algorithm_names[i]) == 0) {
			*algorithm = (enum sort_algorithm)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *sort_algorithm_name(enum sort_algorithm algorithm)
{
	if ((size_t)algorithm < ALGORITHM_COUNT)
		return algorithm_names[algorithm];
	return "unknown";
}

static void set_fallback(struct sort_engine *engine, const char *format, ...)
	__attribute__((format(printf, 2, 3)));

static void set_fallback(struct sort_engine *engine, const char *format, ...)
{
	va_list args;
	pthread_mutex_lock(&engine->fallback_lock);
	va_start(args, format);
	vsnprintf(engine->fallback, sizeof(engine->fallback), format, args);
	va_end(args);
	pthread_mutex_unlock(&engine->fallback_lock);
}

static void describe_cpu(struct sort_engine *engine)
{
	unsigned threads = thread_pool_size(engine->pool);
	snprintf(engine->description, sizeof(engine->description), "cpu (%u thread%s)", threads,
		 threads == 1 ? "" : "s");
}

static double seconds_now(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec + now.tv_nsec / 1e9;
}

/* Opens the CUDA device; 0, or -ENODEV with CUDA's reason in `reason`. */
static int open_gpu(struct sort_engine *engine, int ordinal, char *reason, size_t reason_size)
{
#ifdef HAVE_CUDA
	double started = seconds_now();
	const struct gpu_backend_calls *calls = gpu_module(reason, reason_size);
	if (!calls)
		return -ENODEV;
	int error = calls->open(ordinal, engine->config.gpu_memory, &engine->gpu, reason, reason_size);
	engine->open_seconds = seconds_now() - started;
	if (error < 0) {
		engine->gpu = NULL;
		if (reason[0] == '\0')
			snprintf(reason, reason_size, "%s", strerror(-error));
		return -ENODEV;
	}
	engine->gpu_ordinal = ordinal;
	calls->set_copy_pool(engine->gpu, engine->pool, &thread_pool_calls);
	calls->set_staged_only(engine->gpu, engine->config.staged_only);
	snprintf(engine->description, sizeof(engine->description), "gpu %d (%s)", ordinal,
		 calls->device_name(engine->gpu));
	return 0;
#else
	(void)engine;
	(void)ordinal;
	snprintf(reason, reason_size, "built without CUDA");
	return -ENODEV;
#endif
}

/* The GPU of a distributed sort's local rank among count GPUs: the first one asked for
 * (0 under auto), then auto_device GPUs on, round them; without ranks, or where none
 * are counted, the first. */
#ifdef HAVE_CUDA
static bool among_ranks(const struct sort_engine_config *config)
{
	return config->auto_device || config->auto_device_ranks > 1;
}

static int ordinal_among(const struct sort_engine_config *config, int first, int count)
{
	if (count <= 0 || !among_ranks(config))
		return first;
	return (int)(((unsigned)first + config->auto_device) % (unsigned)count);
}
#endif

/* That GPU among those CUDA finds; ranks given the same GPU share its memory evenly
 * unless --gpu-memory says how much to take. */
static int rank_ordinal(struct sort_engine *engine, int first)
{
	int ordinal = first;
#ifdef HAVE_CUDA
	unsigned ranks = engine->config.auto_device_ranks;
	int count = among_ranks(&engine->config) && cuda() ? cuda()->device_count() : 0;
	if (count > 0) {
		ordinal = ordinal_among(&engine->config, first, count);
		unsigned sharers = ranks / (unsigned)count + ((unsigned)ordinal < ranks % (unsigned)count);
		if (sharers > 1 && !engine->config.gpu_memory)
			engine->config.gpu_memory = cuda()->memory_share(ordinal, sharers);
	}
#else
	(void)engine;
#endif
	return ordinal;
}

/* config.one_device: the GPU this engine will open (the same choice, made with the
 * driver's device nodes counted instead of its devices, which would start it) is the
 * one the driver is told of, before anything starts it. */
static void expose_one_device(const struct sort_engine_config *config)
{
#ifdef HAVE_CUDA
	if (!config->one_device || config->device == SORT_DEVICE_CPU || !cuda())
		return;
	int count = cuda()->device_nodes();
	cuda()->expose_only(ordinal_among(config, config->device == SORT_DEVICE_AUTO ? 0 : config->device, count),
				count);
#else
	(void)config;
#endif
}

/* --device=auto: the first GPU (or the local rank's), or the CPU with the reason noted. */
static void *open_first_gpu(void *argument)
{
	struct sort_engine *engine = argument;
	char reason[256] = "";
	int ordinal = rank_ordinal(engine, 0);
	bool open = open_gpu(engine, ordinal, reason, sizeof(reason)) == 0;
	if (!open)
		set_fallback(engine, "gpu %d: %s", ordinal, reason);
	__atomic_store_n(&engine->opened, open ? 1 : -1, __ATOMIC_RELEASE);
	return NULL;
}

/* Waits for the GPU being opened, if it is. */
static void engine_ready(const struct sort_engine *engine)
{
	struct sort_engine *e = (struct sort_engine *)engine;
	pthread_mutex_lock(&e->open_lock);
	if (e->opening) {
		double started = seconds_now();
		pthread_join(e->opener, NULL);
		/* a GPU that did not open kept nothing waiting worth saying */
		if (__atomic_load_n(&e->opened, __ATOMIC_ACQUIRE) > 0)
			e->waited_seconds = seconds_now() - started;
		e->opening = false;
	}
	pthread_mutex_unlock(&e->open_lock);
}

double sort_engine_wait_seconds(const struct sort_engine *engine)
{
	engine_ready(engine);
	return engine->waited_seconds;
}

double sort_engine_open_seconds(const struct sort_engine *engine)
{
	engine_ready(engine);
	return engine->open_seconds;
}

/* Fills in a new engine, or frees it and returns the error (with the GPU's reason). */
static int engine_start(struct sort_engine *engine, const struct sort_engine_config *config,
			char *reason, size_t reason_size)
{
	int error;
	engine->config = *config;
	engine->gpu_ordinal = -1;
	pthread_mutex_init(&engine->fallback_lock, NULL);
	pthread_mutex_init(&engine->open_lock, NULL);
	pthread_mutex_init(&engine->buffers_lock, NULL);
	pthread_mutex_init(&engine->scratch_lock, NULL);
	/* the pool exists with a GPU too: sorts the GPU cannot take run on it */
	error = thread_pool_create(config->threads, &engine->pool);
	if (error < 0)
		goto fail;
	describe_cpu(engine);

	expose_one_device(config);
	if (config->device == SORT_DEVICE_AUTO) {
		engine->opening = pthread_create(&engine->opener, NULL, open_first_gpu, engine) == 0;
		if (!engine->opening)
			open_first_gpu(engine);
	} else if (config->device >= 0) {
		error = open_gpu(engine, rank_ordinal(engine, config->device), reason, reason_size);
		if (error < 0)
			goto fail;
	}
	return 0;
fail:
	thread_pool_destroy(engine->pool);
	huge_memory_free(engine->scratch);
	pthread_mutex_destroy(&engine->scratch_lock);
	pthread_mutex_destroy(&engine->fallback_lock);
	pthread_mutex_destroy(&engine->open_lock);
	pthread_mutex_destroy(&engine->buffers_lock);
	free(engine);
	return error;
}

int sort_engine_open(const struct sort_engine_config *config, struct sort_engine **result)
{
	return sort_engine_open_explained(config, result, NULL, 0);
}

int sort_engine_open_explained(const struct sort_engine_config *config, struct sort_engine **result,
			       char *why, size_t why_size)
{
	struct sort_engine *engine = NULL;
	char reason[256] = "";
	int error;

	if (why && why_size)
		why[0] = '\0';
	if ((size_t)config->algorithm >= ALGORITHM_COUNT ||
	    (config->device < 0 && config->device != SORT_DEVICE_AUTO &&
	     config->device != SORT_DEVICE_CPU))
		error = -EINVAL;
	else if (!(engine = calloc(1, sizeof(*engine))))
		error = -ENOMEM;
	else
		error = engine_start(engine, config, reason, sizeof(reason));
	if (error < 0) {
		if (why && why_size)
			snprintf(why, why_size, "%s", reason[0] ? reason : strerror(-error));
		return error;
	}
	*result = engine;
	return 0;
}

#ifdef HAVE_CUDA
static void *release_gpu(void *argument)
{
	cuda()->release(argument);
	return NULL;
}

static void *close_gpu(void *argument)
{
	cuda()->close(argument);
	return NULL;
}
#endif

void sort_engine_release_gpu(struct sort_engine *engine)
{
	engine_ready(engine);
#ifdef HAVE_CUDA
	if (!engine->gpu || engine->releasing || __atomic_load_n(&engine->pinned_buffers, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&engine->buffers_lock);
	if (pthread_create(&engine->releaser, NULL, engine->config.owns_process ? release_gpu : close_gpu,
			   engine->gpu) == 0) {
		engine->releasing = true;
		engine->gpu = NULL;
	}
	pthread_mutex_unlock(&engine->buffers_lock);
#endif
}

/* Waits for sort_engine_release_gpu's thread, once. */
static void join_releaser(struct sort_engine *engine)
{
	pthread_mutex_lock(&engine->buffers_lock);
	if (engine->releasing) {
		pthread_join(engine->releaser, NULL);
		engine->releasing = false;
	}
	pthread_mutex_unlock(&engine->buffers_lock);
}

void sort_engine_close(struct sort_engine *engine)
{
	if (!engine)
		return;
	engine_ready(engine);
	join_releaser(engine);
#ifdef HAVE_CUDA
	if (engine->gpu)
		cuda()->close(engine->gpu);
#endif
	thread_pool_destroy(engine->pool);
	huge_memory_free(engine->scratch);
	pthread_mutex_destroy(&engine->scratch_lock);
	pthread_mutex_destroy(&engine->fallback_lock);
	pthread_mutex_destroy(&engine->open_lock);
	pthread_mutex_destroy(&engine->buffers_lock);
	free(engine);
}

static bool valid_width(enum item_width width)
{
	return width == ITEM_U32 || width == ITEM_U64 || width == ITEM_U96 || width == ITEM_U128;
}

#ifdef HAVE_CUDA
/* Whether [items, + bytes) lies in a large buffer this engine made (GPU sorts may leave
 * those locked in place). */
static bool engine_owns(struct sort_engine *engine, const void *items, size_t bytes)
{
	const char *start = (const char *)items;
	bool owns = false;
	pthread_mutex_lock(&engine->buffers_lock);
	for (size_t i = 0; i < sizeof engine->own / sizeof engine->own[0] && !owns; i++)
		owns = engine->own[i].start && start >= engine->own[i].start &&
		       start + bytes <= engine->own[i].start + engine->own[i].bytes;
	pthread_mutex_unlock(&engine->buffers_lock);
	return owns;
}

/* Notes a buffer the engine made (made) among its own large buffers, or forgets it. With
 * no room left it is not noted, and its sorts let go of it at once. */
static void own_buffer_note(struct sort_engine *engine, const void *buffer, size_t bytes, bool made)
{
	pthread_mutex_lock(&engine->buffers_lock);
	for (size_t i = 0; i < sizeof engine->own / sizeof engine->own[0]; i++) {
		if (made ? engine->own[i].start == NULL : engine->own[i].start == buffer) {
			engine->own[i].start = made ? (const char *)buffer : NULL;
			engine->own[i].bytes = made ? bytes : 0;
			break;
		}
	}
	pthread_mutex_unlock(&engine->buffers_lock);
}
#endif

/* The CPU backend's sort, in the engine's kept scratch when it is free. */
static int cpu_sort(struct sort_engine *engine, enum item_width width, void *items, size_t n)
{
	size_t bytes = n * (size_t)width;
	pthread_mutex_lock(&engine->scratch_lock);
	bool mine = !engine->scratch_busy, fresh = false;
	if (mine && engine->scratch_bytes < bytes) {
		huge_memory_free(engine->scratch);
		engine->scratch = huge_memory_alloc(bytes);
		engine->scratch_bytes = engine->scratch ? bytes : 0;
		fresh = engine->scratch != NULL;
	}
	if (mine && engine->scratch)
		engine->scratch_busy = true;
	else
		mine = false;
	pthread_mutex_unlock(&engine->scratch_lock);
	if (!mine)
		return bucket_sort_cpu(engine->pool, width, items, n);
	/* fresh scratch faulted in on the pool, piece by piece, rather than by the sort's
	 * scattered first writes into it, each of which may zero a huge page */
	if (fresh) {
		void *arrays[1] = {engine->scratch};
		size_t sizes[1] = {bytes};
		huge_memory_populate(engine->pool, arrays, sizes, 1);
	}
	int error = thread_pool_stopped(engine->pool) ? -ECANCELED
		    : bucket_sort_cpu_with(engine->pool, width, items, n, engine->scratch);
	pthread_mutex_lock(&engine->scratch_lock);
	engine->scratch_busy = false;
	pthread_mutex_unlock(&engine->scratch_lock);
	return error;
}

void sort_engine_host_trim(struct sort_engine *engine)
{
	pthread_mutex_lock(&engine->scratch_lock);
	if (!engine->scratch_busy) {
		huge_memory_free(engine->scratch);
		engine->scratch = NULL;
		engine->scratch_bytes = 0;
	}
	pthread_mutex_unlock(&engine->scratch_lock);
}

int sort_engine_sort(struct sort_engine *engine, enum item_width width, void *items, size_t n)
{
	if (!valid_width(width))
		return -EINVAL;
	if (n < 2)
		return 0;
	engine_ready(engine);
#ifdef HAVE_CUDA
	if (engine->gpu) {
		size_t capacity = cuda()->capacity(engine->gpu, width);
		char reason[256] = "";
		if (n > capacity) {
			set_fallback(engine, "%zu items exceed gpu %d's capacity of %zu; sorted on the cpu",
				     n, engine->gpu_ordinal, capacity);
		} else {
			int error = cuda()->sort(engine->gpu, engine->config.algorithm, width, items, n,
						     engine_owns(engine, items, n * (size_t)width), reason,
						     sizeof(reason));
			if (error == 0)
				thread_pool_progress(engine->pool, n); /* its steps, all at once */
			/* Out of device memory, or a method the GPU backend lacks: the CPU
			 * gives the same output. Other CUDA errors are reported. */
			if (error != -ENOMEM && error != -ENOTSUP)
				return error;
			set_fallback(engine, "gpu %d: %s; sorted on the cpu", engine->gpu_ordinal,
				     reason[0] ? reason : strerror(-error));
		}
	}
#endif
	return cpu_sort(engine, width, items, n);
}

/* The resident sort (sort_engine.h): the GPU backend's, or -ENOTSUP. */
#ifdef HAVE_CUDA
_Static_assert(SORT_SHARE_HANDLE_BYTES == GPU_SHARE_HANDLE_BYTES, "the resident sort's handles");
#endif

int sort_engine_sort_resident(struct sort_engine *engine, enum item_width width, sort_items_piece_fn produce,
			      void *context, size_t n, struct resident_sort *resident, char *reason,
			      size_t reason_size)
{
	*resident = (struct resident_sort){NULL, NULL};
	if (!valid_width(width))
		return -EINVAL;
#ifdef HAVE_CUDA
	engine_ready(engine);
	if (engine->gpu) {
		const struct resident_sort_calls *calls = cuda()->resident;
		int error = calls->sort(engine->gpu, engine->config.algorithm, width, produce, context, n, reason,
					reason_size);
		if (error == 0)
			*resident = (struct resident_sort){calls, engine->gpu};
		return error;
	}
	snprintf(reason, reason_size, "%s", "the sort engine runs on the CPU");
#else
	(void)engine, (void)produce, (void)context, (void)n;
	snprintf(reason, reason_size, "%s", "built without CUDA");
#endif
	return -ENOTSUP;
}

void sort_engine_resident_free(struct sort_engine *engine)
{
#ifdef HAVE_CUDA
	engine_ready(engine);
	if (engine->gpu)
		cuda()->resident->free(engine->gpu);
#else
	(void)engine;
#endif
}

size_t sort_engine_max_items(const struct sort_engine *engine, enum item_width width)
{
	engine_ready(engine);
#ifdef HAVE_CUDA
	if (engine->gpu)
		return cuda()->capacity(engine->gpu, width);
#endif
	(void)engine;
	return valid_width(width) ? SIZE_MAX / (2 * (size_t)width) : 0;
}

struct thread_pool *sort_engine_thread_pool(const struct sort_engine *engine)
{
	return engine->pool;
}

/* Pinning a large buffer costs more than it saves (allocating it page-locked takes
 * longer than sorting it): large buffers are plain huge-page memory, and the
 * GPU backend copies them through its pinned staging buffers. */
#define PINNED_MAXIMUM ((size_t)64 << 20)
/* The engine's own buffers from this size up are noted (own_buffer_note): a GPU sort
 * may leave them locked in place. */
#define OWN_MINIMUM ((size_t)8 << 20)

void *sort_engine_host_alloc(struct sort_engine *engine, size_t bytes)
{
#ifdef HAVE_CUDA
	if (bytes <= PINNED_MAXIMUM)
		engine_ready(engine);
	if (engine->gpu && bytes <= PINNED_MAXIMUM) {
		void *buffer = cuda()->host_alloc(bytes);
		if (buffer)
			__atomic_add_fetch(&engine->pinned_buffers, 1, __ATOMIC_ACQ_REL);
		return buffer;
	}
#endif
	void *buffer = huge_memory_alloc(bytes);
#ifdef HAVE_CUDA
	if (buffer && bytes >= OWN_MINIMUM)
		own_buffer_note(engine, buffer, bytes, true);
#else
	(void)engine;
#endif
	return buffer;
}

void sort_engine_host_free(struct sort_engine *engine, void *buffer, size_t bytes)
{
	(void)bytes;
	if (!buffer)
		return;
#ifdef HAVE_CUDA
	if (bytes <= PINNED_MAXIMUM)
		engine_ready(engine);
	if (engine->gpu && bytes <= PINNED_MAXIMUM) {
		cuda()->host_free(buffer);
		__atomic_sub_fetch(&engine->pinned_buffers, 1, __ATOMIC_ACQ_REL);
		return;
	}
	/* a GPU sort may have left it locked in place: let go first (the releaser does
	 * that as it closes the backend) */
	if (bytes >= OWN_MINIMUM) {
		own_buffer_note(engine, buffer, bytes, false);
		engine_ready(engine);
		join_releaser(engine);
		if (engine->gpu)
			cuda()->unlock(engine->gpu);
	}
#else
	(void)engine;
#endif
	huge_memory_free(buffer);
}

void sort_engine_host_populate(struct sort_engine *engine, void *const *buffers, const size_t *bytes,
			       unsigned count)
{
	void *mapped[8] = {NULL}; /* page-locked ones left NULL: huge_memory_populate skips them */
	if (count > 8)
		count = 8;
	for (unsigned i = 0; i < count; i++) {
		mapped[i] = buffers[i];
#ifdef HAVE_CUDA
		if (bytes[i] <= PINNED_MAXIMUM) {
			engine_ready(engine);
			if (engine->gpu)
				mapped[i] = NULL;
		}
#endif
	}
	huge_memory_populate(engine->pool, mapped, bytes, count);
}

const char *sort_engine_describe(const struct sort_engine *engine)
{
	engine_ready(engine);
	return engine->description;
}

const char *sort_engine_fallback_reason(const struct sort_engine *engine)
{
	engine_ready(engine);
	return engine->fallback[0] ? engine->fallback : NULL;
}

bool sort_engine_uses_gpu(const struct sort_engine *engine)
{
	engine_ready(engine);
	return engine->gpu != NULL;
}

bool sort_engine_may_use_gpu(const struct sort_engine *engine)
{
	struct sort_engine *e = (struct sort_engine *)engine;
	pthread_mutex_lock(&e->open_lock);
	bool may = e->opening ? __atomic_load_n(&e->opened, __ATOMIC_ACQUIRE) >= 0 : e->gpu != NULL;
	pthread_mutex_unlock(&e->open_lock);
	return may;
}
