/* SPDX-License-Identifier: MIT */
/* Run files written (see run_file.h): blocks compressed one zstd frame each (or stored)
 * by compressor threads and written in order by a writer thread, the index kept in
 * memory and written last. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>
#include "block_checksum.h"
#include "block_transform.h"
#include "fault_inject.h"
#include "write_queue.h"
#include "run_format.h"

/* RUN_TRANSFORM_DELTA pays for key-only records (a higher ratio at a higher compress
 * speed), and level 3 buys nothing over level 1 once it is on (bench/RESULTS.md). */
/* Level 1's hash table one step smaller than zstd's own (2^12 entries, 16 KiB, where
 * 2^13 would be its choice for 1 MiB blocks): the table stays in the L1 cache beside the
 * block, and sorted blocks find their matches close by anyway: faster at the same ratio
 * (bench/RESULTS.md). */
#define RUN_LEVEL1_HASH_LOG 12
#define RUN_WRITE_DEPTH 4

/* A block on its way through the writer: handed over (QUEUED), being compressed
 * (COMPRESSING), waiting for its turn in the file (COMPRESSED), then FREE again once the
 * writer thread has queued its write. Job i of the run lives in slot i % depth. */
enum run_job_state { JOB_FREE, JOB_QUEUED, JOB_COMPRESSING, JOB_COMPRESSED };

struct run_job {
	enum run_job_state state;
	unsigned char *input;       /* the block as handed over */
	const unsigned char *lent;  /* or the caller's, where it lies (run_writer_append_lent) */
	size_t input_capacity;
	size_t bytes;
	uint64_t records;
	unsigned char *entry;
	size_t entry_bytes;
	size_t entry_capacity;
	unsigned char *output;      /* what goes in the file */
	size_t output_capacity;
	size_t output_bytes;
	uint32_t transform_word;    /* as the index keeps it */
};

/* A compressor thread's own state. */
struct run_compressor {
	struct run_writer *writer;
	pthread_t thread;
	ZSTD_CCtx *cctx;
	unsigned char *scratch;     /* the transformed block */
	size_t scratch_capacity;
	bool started;
};

struct run_writer {
	struct run_writer_options options;
	struct write_queue *queue;  /* the writer thread's while it runs */
	uint64_t base;              /* fd's offset at open: block offsets are absolute */
	pthread_mutex_t lock;
	pthread_cond_t queued;      /* a job was handed over, or the writer closes */
	pthread_cond_t changed;     /* a job was compressed or freed, or an error */
	struct run_job *jobs;
	size_t depth;
	uint64_t appended;          /* jobs handed over */
	uint64_t taken;             /* jobs taken by a compressor */
	uint64_t compressed;        /* jobs a compressor is done with */
	unsigned compressing;       /* jobs a compressor is at now */
	uint64_t written;           /* jobs whose write is queued */
	bool closing;
	int error;                  /* the first error; stops every thread */
	struct run_compressor *compressors;
	unsigned compressor_count;
	pthread_t write_thread;
	bool write_thread_started;
	bool threads_joined;
	/* the writer thread's */
	unsigned char *index;       /* serialized index entries */
	size_t index_bytes;
	size_t index_capacity;
	uint64_t cached_through;    /* file bytes left to the page cache, once known */
	struct run_file_stats stats;
};

static double run_now(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* grow() without keeping the old contents. */
static int grow_empty(unsigned char **buffer, size_t *capacity, size_t needed)
{
	if (*capacity >= needed)
		return 0;
	unsigned char *p = malloc(needed);
	if (!p)
		return -ENOMEM;
	free(*buffer);
	*buffer = p;
	*capacity = needed;
	return 0;
}

static enum run_transform run_block_transform(const struct run_writer *writer, size_t bytes)
{
	size_t width = writer->options.element_bytes;
	enum run_transform transform = writer->options.transform;
	/* An empty block has nothing to transform (and no scratch buffer to do it in). */
	if (writer->options.stored || transform == RUN_TRANSFORM_NONE || bytes == 0 || bytes % width != 0)
		return RUN_TRANSFORM_NONE;
	if (transform == RUN_TRANSFORM_DELTA && !delta_supported(width))
		return RUN_TRANSFORM_BYTE_PLANES;
	if (transform == RUN_TRANSFORM_PREFIX_XOR &&
	    (width > RUN_PREFIX_XOR_MAX_ELEMENT || writer->options.prefix_bytes == 0 ||
	     writer->options.prefix_bytes > RUN_PREFIX_XOR_MAX_PREFIX || writer->options.prefix_bytes > width))
		return RUN_TRANSFORM_NONE;
	return transform;
}

/* The index's transform word of a block (run_file.h). */
static uint32_t run_transform_word(const struct run_writer *writer, enum run_transform transform)
{
	uint32_t word = transform | (uint32_t)(transform ? writer->options.element_bytes : 0) << 8;
	if (transform == RUN_TRANSFORM_PREFIX_XOR)
		word |= (uint32_t)writer->options.prefix_bytes << 24;
	return word;
}

/* One zstd frame of src into *output (grown to the bound); *written its size. */
static int run_compress_frame(ZSTD_CCtx *cctx, unsigned char **output, size_t *capacity,
			      const void *src, size_t bytes, size_t *written)
{
	int error = grow_empty(output, capacity, ZSTD_compressBound(bytes));
	if (error)
		return error;
	size_t compressed = ZSTD_compress2(cctx, *output, *capacity, src, bytes);
	if (ZSTD_isError(compressed))
		return ZSTD_getErrorCode(compressed) == ZSTD_error_memory_allocation ? -ENOMEM : -EIO;
	*written = compressed;
	return 0;
}

/* A stored block: its bytes and their checksum. When the input has room for the
 * checksum, input and output trade places instead of copying. */
static int run_job_store(struct run_job *job)
{
	unsigned char sum[8];
	if (job->lent) {
		int error = grow_empty(&job->output, &job->output_capacity, job->bytes + sizeof sum);
		if (error)
			return error;
		memcpy(job->output, job->lent, job->bytes);
		put_u64(sum, block_checksum(job->output, job->bytes));
		memcpy(job->output + job->bytes, sum, sizeof sum);
		job->output_bytes = job->bytes + sizeof sum;
		job->transform_word = RUN_BLOCK_STORED;
		return 0;
	}
	put_u64(sum, block_checksum(job->input, job->bytes));
	if (job->input_capacity >= job->bytes + sizeof sum) {
		unsigned char *p = job->output;
		size_t capacity = job->output_capacity;
		job->output = job->input;
		job->output_capacity = job->input_capacity;
		job->input = p;
		job->input_capacity = capacity;
	} else {
		int error = grow_empty(&job->output, &job->output_capacity, job->bytes + sizeof sum);
		if (error)
			return error;
		memcpy(job->output, job->input, job->bytes);
	}
	memcpy(job->output + job->bytes, sum, sizeof sum);
	job->output_bytes = job->bytes + sizeof sum;
	job->transform_word = RUN_BLOCK_STORED;
	return 0;
}

static int run_job_compress(struct run_compressor *compressor, struct run_job *job)
{
	struct run_writer *writer = compressor->writer;
	if (writer->options.stored)
		return run_job_store(job);
	size_t bytes = job->bytes;
	enum run_transform transform = run_block_transform(writer, bytes);
	const void *source = job->lent ? job->lent : job->input;
	if (transform != RUN_TRANSFORM_NONE) {
		size_t width = writer->options.element_bytes;
		int error = grow(&compressor->scratch, &compressor->scratch_capacity, bytes);
		/* the delta transform changes the block: a lent one is copied first */
		if (!error && job->lent) {
			error = grow_empty(&job->input, &job->input_capacity, bytes);
			if (!error)
				memcpy(job->input, job->lent, bytes);
		}
		if (error)
			return error;
		if (transform == RUN_TRANSFORM_PREFIX_XOR) {
			prefix_xor_encode(job->input, bytes, width, writer->options.prefix_bytes);
			source = job->input;
		} else {
			if (transform == RUN_TRANSFORM_DELTA)
				delta_encode(job->input, bytes, width); /* the input is ours to change */
			byte_planes_split(job->input, compressor->scratch, bytes, width);
			source = compressor->scratch;
		}
	}
	job->transform_word = run_transform_word(writer, transform);
	return run_compress_frame(compressor->cctx, &job->output, &job->output_capacity, source, bytes,
				  &job->output_bytes);
}

/* A job's step ended (under the lock): keeps the first error, wakes the threads that
 * wait for a step, and on an error the caller waiting for a free job too. */
static void run_job_done(struct run_writer *writer, int error)
{
	if (error && !writer->error)
		writer->error = error;
	pthread_cond_broadcast(&writer->changed);
	if (error)
		pthread_cond_broadcast(&writer->queued);
}

/* Takes the next queued job and compresses (or stores) it; called and returning with
 * the lock held. */
static void run_compress_next(struct run_compressor *compressor)
{
	struct run_writer *writer = compressor->writer;
	struct run_job *job = &writer->jobs[writer->taken++ % writer->depth];
	job->state = JOB_COMPRESSING;
	writer->compressing++;
	pthread_mutex_unlock(&writer->lock);
	double started = run_now();
	int error = run_job_compress(compressor, job);
	double seconds = run_now() - started;
	pthread_mutex_lock(&writer->lock);
	writer->stats.compress_seconds += seconds;
	job->lent = NULL;
	writer->compressed++;
	writer->compressing--;
	job->state = JOB_COMPRESSED;
	run_job_done(writer, error);
}

static void *run_compressor_main(void *context)
{
	struct run_compressor *compressor = context;
	struct run_writer *writer = compressor->writer;
	pthread_mutex_lock(&writer->lock);
	for (;;) {
		while (!writer->error && writer->taken == writer->appended && !writer->closing)
			pthread_cond_wait(&writer->queued, &writer->lock);
		if (writer->error || writer->taken == writer->appended)
			break;
		run_compress_next(compressor);
	}
	pthread_mutex_unlock(&writer->lock);
	return NULL;
}

/* The index entry of a block written at offset. */
static int run_index_add(struct run_writer *writer, const struct run_job *job, uint64_t offset)
{
	int error = grow(&writer->index, &writer->index_capacity,
			 writer->index_bytes + RUN_ENTRY_FIXED_BYTES + job->entry_bytes);
	if (error)
		return error;
	unsigned char *entry = writer->index + writer->index_bytes;
	put_u64(entry, offset);
	put_u64(entry + 8, job->output_bytes);
	put_u64(entry + 16, job->bytes);
	put_u64(entry + 24, job->records);
	put_u32(entry + 32, job->transform_word);
	put_u32(entry + 36, (uint32_t)job->entry_bytes);
	if (job->entry_bytes)
		memcpy(entry + RUN_ENTRY_FIXED_BYTES, job->entry, job->entry_bytes);
	writer->index_bytes += RUN_ENTRY_FIXED_BYTES + job->entry_bytes;
	writer->stats.blocks++;
	writer->stats.records += job->records;
	writer->stats.bytes += job->bytes;
	return 0;
}

/* Queues the write of the next job in block order (compressed), with its index entry;
 * called and returning with the lock held. */
static void run_write_next(struct run_writer *writer, struct run_job *job)
{
	pthread_mutex_unlock(&writer->lock);
	uint64_t offset = writer->base + write_queue_bytes(writer->queue);
	int error = run_index_add(writer, job, offset);
	if (!error) {
		void *buffer = job->output;
		error = write_queue_submit_exchange(writer->queue, &buffer, &job->output_capacity,
						    job->output_bytes);
		job->output = buffer;
	}
	if (!error && (uint64_t)write_queue_bytes(writer->queue) > writer->options.cached_bytes) {
		if (writer->cached_through == 0 && writer->options.cached_bytes > 0) {
			/* the allowance passed: what is written stays cached, the rest goes behind */
			writer->cached_through = (uint64_t)write_queue_bytes(writer->queue);
			write_queue_leave_cached(writer->queue);
		}
		error = write_queue_write_behind(writer->queue, RUN_WRITE_BEHIND_BYTES);
	}
	pthread_mutex_lock(&writer->lock);
	job->state = JOB_FREE;
	writer->written++;
	run_job_done(writer, error);
}

/* The writer thread: compressed blocks into the file in block order. */
static void *run_write_main(void *context)
{
	struct run_writer *writer = context;
	if (writer->options.stream) {
		/* a pipe whose reader (PROG) went away: -EPIPE, for the caller to see how PROG
		 * ended, not a SIGPIPE that ends the sort; held off on this thread alone, and
		 * one left pending goes with the thread */
		sigset_t pipe_signal;
		sigemptyset(&pipe_signal);
		sigaddset(&pipe_signal, SIGPIPE);
		pthread_sigmask(SIG_BLOCK, &pipe_signal, NULL);
	}
	pthread_mutex_lock(&writer->lock);
	for (;;) {
		struct run_job *job = &writer->jobs[writer->written % writer->depth];
		bool ready = writer->written < writer->appended && job->state == JOB_COMPRESSED;
		if (writer->error || (!ready && writer->closing && writer->written == writer->appended))
			break;
		if (!ready) {
			pthread_cond_wait(&writer->changed, &writer->lock);
			continue;
		}
		run_write_next(writer, job);
	}
	pthread_mutex_unlock(&writer->lock);
	return NULL;
}

/* Stops taking blocks and waits for the threads (they finish the blocks handed over
 * unless an error stopped them). */
static void run_writer_join(struct run_writer *writer)
{
	if (writer->threads_joined)
		return;
	writer->threads_joined = true;
	pthread_mutex_lock(&writer->lock);
	writer->closing = true;
	pthread_cond_broadcast(&writer->queued);
	pthread_cond_broadcast(&writer->changed);
	pthread_mutex_unlock(&writer->lock);
	for (unsigned i = 0; i < writer->compressor_count; i++)
		if (writer->compressors[i].started)
			pthread_join(writer->compressors[i].thread, NULL);
	if (writer->write_thread_started)
		pthread_join(writer->write_thread, NULL);
}

/* Ends the writer thread before any block was handed over (no compressor could start). */
static void run_writer_stop_thread(struct run_writer *writer)
{
	pthread_mutex_lock(&writer->lock);
	writer->closing = true;
	pthread_cond_broadcast(&writer->changed);
	pthread_mutex_unlock(&writer->lock);
	pthread_join(writer->write_thread, NULL);
	writer->write_thread_started = false;
	writer->closing = false;
}

static int run_cctx_create(const struct run_writer_options *options, ZSTD_CCtx **result)
{
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	if (!cctx)
		return -ENOMEM;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, options->level))
	    || ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1))
	    || (options->level == 1 && ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_hashLog, RUN_LEVEL1_HASH_LOG)))) {
		ZSTD_freeCCtx(cctx);
		return -EINVAL;
	}
	*result = cctx;
	return 0;
}

static int run_writer_start(struct run_writer *writer, int fd)
{
	struct run_writer_options *options = &writer->options;
	if (options->stream) {
		/* PROG compresses: blocks go to it as they are, one thread storing them */
		options->stored = true;
		options->transform = RUN_TRANSFORM_NONE;
		options->threads = 1;
		options->on_caller = false;
	}
	if (options->on_caller)
		options->threads = 1;
	if (options->level == 0)
		options->level = RUN_DEFAULT_LEVEL;
	if (options->element_bytes == 0)
		options->transform = RUN_TRANSFORM_NONE;
	if (options->threads == 0)
		options->threads = 1;
	if (options->depth == 0)
		options->depth = 2 * options->threads + 2;
	writer->stats.level = options->stored ? 0 : options->level;
	writer->stats.stored = options->stored;
	writer->stats.threads = options->threads;
	off_t base = lseek(fd, 0, SEEK_CUR);
	writer->base = base > 0 ? base : 0;
	writer->depth = options->depth;
	writer->jobs = calloc(writer->depth, sizeof *writer->jobs);
	writer->compressors = calloc(options->threads, sizeof *writer->compressors);
	if (!writer->jobs || !writer->compressors)
		return -ENOMEM;
	fault_tag(fd, FAULT_TEMP_WRITE);
	int error = write_queue_open(fd, RUN_WRITE_DEPTH, 4096, &writer->queue);
	/* the writer thread first, then the compressors, as many as start: with none of
	 * either (no process left), the caller does their work */
	if (!error && !options->on_caller)
		writer->write_thread_started = pthread_create(&writer->write_thread, NULL, run_write_main, writer) == 0;
	for (unsigned i = 0; writer->write_thread_started && i < options->threads && !error; i++) {
		struct run_compressor *compressor = &writer->compressors[i];
		compressor->writer = writer;
		if (!options->stored)
			error = run_cctx_create(options, &compressor->cctx);
		writer->compressor_count++;
		compressor->started = !error && pthread_create(&compressor->thread, NULL, run_compressor_main, compressor) == 0;
		if (!compressor->started)
			break;
	}
	if (!error && writer->compressor_count && !writer->compressors[0].started)
		run_writer_stop_thread(writer);
	if (!error && !writer->write_thread_started) {
		/* the one compressor's state, used by the caller's thread */
		options->on_caller = true;
		writer->compressors[0].writer = writer;
		writer->compressor_count = 1;
		if (!options->stored && !writer->compressors[0].cctx)
			error = run_cctx_create(options, &writer->compressors[0].cctx);
	} else if (!error && !writer->compressors[writer->compressor_count - 1].started) {
		/* the last one's state goes with it */
		ZSTD_freeCCtx(writer->compressors[--writer->compressor_count].cctx);
		writer->compressors[writer->compressor_count].cctx = NULL;
	}
	return error;
}

int run_writer_open(int fd, const struct run_writer_options *options,
		    struct run_writer **result)
{
	struct run_writer *writer = calloc(1, sizeof *writer);
	if (!writer)
		return -ENOMEM;
	if (options)
		writer->options = *options;
	pthread_mutex_init(&writer->lock, NULL);
	pthread_cond_init(&writer->queued, NULL);
	pthread_cond_init(&writer->changed, NULL);
	int error = run_writer_start(writer, fd);
	if (error) {
		run_writer_abort(writer);
		return error;
	}
	*result = writer;
	return 0;
}

/* run_write_next on the caller's thread; to a pipe, with SIGPIPE held off as the writer
 * thread holds it (-EPIPE instead), and one the write raised taken back. */
static void run_write_on_caller(struct run_writer *writer, struct run_job *job)
{
	sigset_t pipe_signal, before;
	sigemptyset(&pipe_signal);
	sigaddset(&pipe_signal, SIGPIPE);
	bool held = writer->options.stream && pthread_sigmask(SIG_BLOCK, &pipe_signal, &before) == 0;
	run_write_next(writer, job);
	if (!held)
		return;
	sigset_t pending;
	struct timespec none = {0, 0};
	if (!sigismember(&before, SIGPIPE) && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE))
		sigtimedwait(&pipe_signal, NULL, &none);
	pthread_sigmask(SIG_SETMASK, &before, NULL);
}

/* A block handed to the writer and its index entry. */
struct handed_block {
	size_t bytes;
	uint64_t records;
	const void *index_entry;
	size_t entry_bytes;
};

/* Hands a block to the compressors: a copy of data, or data itself, lent (lend), or
 * (exchange) the caller's buffer itself, swapped for the slot's free one. */
static int run_writer_hand_over(struct run_writer *writer, const struct handed_block *block, const void *data,
				bool lend, void **exchange, size_t *capacity)
{
	size_t bytes = block->bytes, entry_bytes = block->entry_bytes;
	if (entry_bytes > UINT32_MAX || writer->options.element_bytes > (1u << 24) - 1)
		return -EINVAL;
	pthread_mutex_lock(&writer->lock);
	while (!writer->error && writer->appended - writer->written >= writer->depth)
		pthread_cond_wait(&writer->changed, &writer->lock);
	int error = writer->error;
	pthread_mutex_unlock(&writer->lock);
	if (error)
		return error;
	/* the slot is free: only this thread touches it until it is queued */
	struct run_job *job = &writer->jobs[writer->appended % writer->depth];
	error = grow(&job->entry, &job->entry_capacity, entry_bytes);
	if (error)
		return error;
	if (entry_bytes)
		memcpy(job->entry, block->index_entry, entry_bytes);
	job->entry_bytes = entry_bytes;
	job->lent = NULL;
	if (lend) {
		job->lent = data;
	} else if (exchange) {
		size_t handed = *capacity;
		error = grow_empty(&job->input, &job->input_capacity, handed);
		if (error)
			return error;
		void *mine = job->input;
		size_t mine_capacity = job->input_capacity;
		job->input = *exchange;
		job->input_capacity = handed;
		*exchange = mine;
		*capacity = mine_capacity;
	} else {
		error = grow_empty(&job->input, &job->input_capacity, bytes ? bytes : 1);
		if (error)
			return error;
		memcpy(job->input, data, bytes);
	}
	job->bytes = bytes;
	job->records = block->records;
	pthread_mutex_lock(&writer->lock);
	job->state = JOB_QUEUED;
	writer->appended++;
	pthread_cond_signal(&writer->queued);
	if (writer->options.on_caller) {
		/* no threads: the block compressed and queued for writing here and now */
		run_compress_next(&writer->compressors[0]);
		if (!writer->error)
			run_write_on_caller(writer, job);
		error = writer->error;
	}
	pthread_mutex_unlock(&writer->lock);
	return error;
}

int run_writer_append_block(struct run_writer *writer, const void *data, size_t bytes,
			    uint64_t records, const void *index_entry, size_t entry_bytes)
{
	struct handed_block block = {bytes, records, index_entry, entry_bytes};
	return run_writer_hand_over(writer, &block, data, false, NULL, NULL);
}

int run_writer_append_lent(struct run_writer *writer, const void *data, size_t bytes, uint64_t records,
			   const void *index_entry, size_t entry_bytes)
{
	struct handed_block block = {bytes, records, index_entry, entry_bytes};
	return run_writer_hand_over(writer, &block, data, true, NULL, NULL);
}

int run_writer_wait_lent(struct run_writer *writer)
{
	pthread_mutex_lock(&writer->lock);
	/* after an error the blocks not yet taken are never read, those being compressed
	 * still are */
	while (writer->compressing > 0 || (!writer->error && writer->compressed < writer->appended))
		pthread_cond_wait(&writer->changed, &writer->lock);
	int error = writer->error;
	pthread_mutex_unlock(&writer->lock);
	return error;
}

int run_writer_append_exchange(struct run_writer *writer, void **block, size_t *capacity,
			       size_t bytes, uint64_t records, const void *index_entry,
			       size_t entry_bytes)
{
	struct handed_block handed = {bytes, records, index_entry, entry_bytes};
	return run_writer_hand_over(writer, &handed, NULL, false, block, capacity);
}

int run_writer_finish(struct run_writer *writer, struct run_file_stats *stats)
{
	run_writer_join(writer);
	int error = writer->error;
	ZSTD_CCtx *cctx = NULL;
	unsigned char *frame = NULL;
	size_t frame_capacity = 0, index_frame = 0;
	uint64_t index_offset = writer->base + write_queue_bytes(writer->queue);
	if (!error) {
		struct run_writer_options index_options = writer->options;
		index_options.level = RUN_DEFAULT_LEVEL;
		error = run_cctx_create(&index_options, &cctx);
	}
	if (!error)
		error = run_compress_frame(cctx, &frame, &frame_capacity, writer->index,
					   writer->index_bytes, &index_frame);
	if (!error) {
		void *buffer = frame;
		error = write_queue_submit_exchange(writer->queue, &buffer, &frame_capacity, index_frame);
		frame = buffer;
	}
	void *buffer = NULL;
	if (!error)
		error = write_queue_buffer(writer->queue, RUN_FOOTER_BYTES, &buffer);
	if (!error) {
		unsigned char *footer = buffer;
		memcpy(footer, RUN_MAGIC, 8);
		put_u64(footer + 8, index_offset);
		put_u64(footer + 16, index_frame);
		put_u64(footer + 24, writer->stats.blocks);
		put_u64(footer + 32, fnv1a64(footer, 32));
		error = write_queue_submit(writer->queue, RUN_FOOTER_BYTES);
	}
	if (!error)
		error = write_queue_flush(writer->queue);
	writer->stats.file_bytes = write_queue_bytes(writer->queue);
	/* a run written behind (from its start, or once its blocks passed the allowance):
	 * the rest of it on its way to the device, which the spill does not wait for; one
	 * whose blocks fit the allowance stays in the page cache, index and footer too */
	if (writer->options.cached_bytes == 0 || writer->cached_through != 0) {
		writer->stats.behind_bytes = writer->stats.file_bytes - writer->cached_through;
		if (!error)
			error = write_queue_write_behind(writer->queue, 0);
	}
	writer->stats.write_seconds = write_queue_wait_seconds(writer->queue);
	if (!error && stats)
		*stats = writer->stats;
	ZSTD_freeCCtx(cctx);
	free(frame);
	run_writer_abort(writer);
	return error;
}


int run_writer_finish_stream(struct run_writer *writer, struct run_file_stats *stats,
			     struct run_reader **reader)
{
	*reader = NULL;
	run_writer_join(writer);
	int error = writer->error;
	if (!error)
		error = write_queue_flush(writer->queue);
	writer->stats.file_bytes = write_queue_bytes(writer->queue);
	writer->stats.write_seconds = write_queue_wait_seconds(writer->queue);
	if (!error) {
		/* the reader takes the index's memory */
		error = run_reader_adopt_index(writer->index, writer->index_bytes, writer->stats.blocks,
					       writer->stats.file_bytes, reader);
		writer->index = NULL;
	}
	if (!error && stats)
		*stats = writer->stats;
	run_writer_abort(writer);
	return error;
}

void run_writer_abort(struct run_writer *writer)
{
	if (!writer)
		return;
	pthread_mutex_lock(&writer->lock);
	if (!writer->error && !writer->threads_joined)
		writer->error = -ECANCELED;
	pthread_mutex_unlock(&writer->lock);
	run_writer_join(writer);
	write_queue_close(writer->queue);
	for (unsigned i = 0; writer->compressors && i < writer->compressor_count; i++) {
		ZSTD_freeCCtx(writer->compressors[i].cctx);
		free(writer->compressors[i].scratch);
	}
	for (size_t i = 0; writer->jobs && i < writer->depth; i++) {
		free(writer->jobs[i].input);
		free(writer->jobs[i].entry);
		free(writer->jobs[i].output);
	}
	free(writer->compressors);
	free(writer->jobs);
	free(writer->index);
	pthread_mutex_destroy(&writer->lock);
	pthread_cond_destroy(&writer->queued);
	pthread_cond_destroy(&writer->changed);
	free(writer);
}
