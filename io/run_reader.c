/* SPDX-License-Identifier: MIT */
/* Run files read (see run_file.h): the index loaded at open, any block decompressed on
 * demand with per-thread zstd contexts, or a stream's blocks in order. */
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
#include "read_full.h"
#include "run_format.h"
#include "write_queue.h"

struct run_block {
	struct run_block_info info;
	enum run_transform transform;
	bool stored;
	size_t element_bytes;
	size_t prefix_bytes; /* RUN_TRANSFORM_PREFIX_XOR */
};

struct run_reader {
	int fd;
	bool stream;                /* blocks come in order from fd (a pipe) */
	size_t next_block;          /* a stream's next block, */
	uint64_t stream_offset;     /* and the bytes read of it so far */
	size_t count;
	struct run_block *blocks;
	unsigned char *index;       /* the decompressed index; entries point into it */
	uint64_t records;
	size_t max_block_bytes;
};

/* Per-thread decompression state, so one reader serves several merge threads. */
struct run_thread_scratch {
	ZSTD_DCtx *dctx;
	unsigned char *compressed;
	size_t compressed_capacity;
	unsigned char *plain;
	size_t plain_capacity;
};

static pthread_key_t run_scratch_key;
static pthread_once_t run_scratch_once = PTHREAD_ONCE_INIT;

static void run_scratch_free(void *p)
{
	struct run_thread_scratch *scratch = p;
	ZSTD_freeDCtx(scratch->dctx);
	free(scratch->compressed);
	free(scratch->plain);
	free(scratch);
}

static void run_scratch_key_create(void)
{
	pthread_key_create(&run_scratch_key, run_scratch_free);
}

static struct run_thread_scratch *run_scratch(void)
{
	pthread_once(&run_scratch_once, run_scratch_key_create);
	struct run_thread_scratch *scratch = pthread_getspecific(run_scratch_key);
	if (scratch)
		return scratch;
	scratch = calloc(1, sizeof *scratch);
	if (!scratch)
		return NULL;
	scratch->dctx = ZSTD_createDCtx();
	if (!scratch->dctx || pthread_setspecific(run_scratch_key, scratch) != 0) {
		run_scratch_free(scratch);
		return NULL;
	}
	return scratch;
}

/* Reads all of it, at offset (pread), or from a stream's current place (read) for
 * READ_AT_STREAM; a file or stream that ends early is damaged (-EBADMSG). */
static int run_read_full(int fd, void *buffer, size_t bytes, uint64_t offset)
{
	int error = read_full(fd, buffer, bytes, offset, FAULT_TEMP_READ);
	return error == -ENODATA ? -EBADMSG : error;
}

/* The most a zstd frame of `compressed` bytes can hold: every block that yields
 * anything takes at least 4 bytes (a 3-byte header and an RLE byte) and yields at most
 * ZSTD_BLOCKSIZE_MAX. Sizes read from a damaged file are held to it before anything is
 * allocated for them. */
static uint64_t frame_content_limit(uint64_t compressed)
{
	return (compressed / 4 + 1) * ZSTD_BLOCKSIZE_MAX;
}

/* One frame of `bytes` uncompressed bytes, checksum verified, into dst. */
static int run_decompress(ZSTD_DCtx *dctx, void *dst, size_t bytes, const void *src,
			  size_t compressed)
{
	if (ZSTD_findFrameCompressedSize(src, compressed) != compressed)
		return -EBADMSG;
	unsigned long long content = ZSTD_getFrameContentSize(src, compressed);
	if (content != bytes)
		return -EBADMSG;
	size_t got = ZSTD_decompressDCtx(dctx, dst, bytes, src, compressed);
	if (ZSTD_isError(got))
		return ZSTD_getErrorCode(got) == ZSTD_error_memory_allocation ? -ENOMEM : -EBADMSG;
	return got == bytes ? 0 : -EBADMSG;
}

static int run_index_parse(struct run_reader *reader, size_t index_bytes, uint64_t index_offset)
{
	const unsigned char *at = reader->index, *end = reader->index + index_bytes;
	for (size_t i = 0; i < reader->count; i++) {
		if ((size_t)(end - at) < RUN_ENTRY_FIXED_BYTES)
			return -EBADMSG;
		struct run_block *block = &reader->blocks[i];
		block->info.offset = get_u64(at);
		block->info.compressed_bytes = get_u64(at + 8);
		block->info.bytes = get_u64(at + 16);
		block->info.records = get_u64(at + 24);
		uint32_t word = get_u32(at + 32);
		block->transform = word & (RUN_BLOCK_STORED - 1);
		block->stored = (word & RUN_BLOCK_STORED) != 0;
		block->element_bytes = word >> 8;
		block->prefix_bytes = 0;
		if (block->transform == RUN_TRANSFORM_PREFIX_XOR) {
			block->element_bytes = word >> 8 & 0xffff;
			block->prefix_bytes = word >> 24;
		}
		block->info.index_entry_bytes = get_u32(at + 36);
		block->info.index_entry = at + RUN_ENTRY_FIXED_BYTES;
		at += RUN_ENTRY_FIXED_BYTES;
		if ((size_t)(end - at) < block->info.index_entry_bytes
		    || block->info.offset > index_offset
		    || block->info.compressed_bytes > index_offset - block->info.offset
		    || block->transform > RUN_TRANSFORM_PREFIX_XOR || block->info.bytes > SIZE_MAX / 2
		    || (block->transform == RUN_TRANSFORM_PREFIX_XOR
			&& (!block->prefix_bytes || block->prefix_bytes > block->element_bytes))
		    || (block->stored ? block->transform || block->info.compressed_bytes != block->info.bytes + 8
				      : block->info.bytes > frame_content_limit(block->info.compressed_bytes))
		    || (block->transform && (!block->element_bytes
					     || block->info.bytes % block->element_bytes)))
			return -EBADMSG;
		at += block->info.index_entry_bytes;
		reader->records += block->info.records;
		if (block->info.bytes > reader->max_block_bytes)
			reader->max_block_bytes = block->info.bytes;
	}
	return at == end ? 0 : -EBADMSG;
}

static int run_reader_load(struct run_reader *reader)
{
	struct stat st;
	if (fstat(reader->fd, &st) != 0)
		return -errno;
	if (st.st_size < RUN_FOOTER_BYTES)
		return -EBADMSG;
	unsigned char footer[RUN_FOOTER_BYTES];
	uint64_t footer_offset = st.st_size - RUN_FOOTER_BYTES;
	int error = run_read_full(reader->fd, footer, sizeof footer, footer_offset);
	if (error)
		return error;
	uint64_t index_offset = get_u64(footer + 8), index_frame = get_u64(footer + 16);
	reader->count = get_u64(footer + 24);
	if (memcmp(footer, RUN_MAGIC, 8) != 0 || get_u64(footer + 32) != fnv1a64(footer, 32)
	    || index_offset > footer_offset || index_frame != footer_offset - index_offset
	    || reader->count > index_offset)
		return -EBADMSG;
	unsigned char *frame = malloc(index_frame ? index_frame : 1);
	if (!frame)
		return -ENOMEM;
	error = run_read_full(reader->fd, frame, index_frame, index_offset);
	unsigned long long index_bytes = error ? 0 : ZSTD_getFrameContentSize(frame, index_frame);
	if (!error && (index_bytes == ZSTD_CONTENTSIZE_UNKNOWN || index_bytes == ZSTD_CONTENTSIZE_ERROR
		       || index_bytes < reader->count * RUN_ENTRY_FIXED_BYTES
		       || index_bytes > frame_content_limit(index_frame)))
		error = -EBADMSG;
	if (!error) {
		reader->index = malloc(index_bytes ? index_bytes : 1);
		reader->blocks = calloc(reader->count ? reader->count : 1, sizeof *reader->blocks);
		ZSTD_DCtx *dctx = ZSTD_createDCtx();
		if (!reader->index || !reader->blocks || !dctx)
			error = -ENOMEM;
		else
			error = run_decompress(dctx, reader->index, index_bytes, frame, index_frame);
		ZSTD_freeDCtx(dctx);
	}
	free(frame);
	return error ? error : run_index_parse(reader, index_bytes, index_offset);
}

int run_reader_open(int fd, struct run_reader **result)
{
	struct run_reader *reader = calloc(1, sizeof *reader);
	if (!reader)
		return -ENOMEM;
	reader->fd = fd;
	int error = run_reader_load(reader);
	if (error) {
		run_reader_close(reader);
		return error;
	}
	*result = reader;
	return 0;
}

int run_reader_detach(struct run_reader *reader)
{
	int fd = reader->stream ? -1 : reader->fd;
	if (!reader->stream)
		reader->fd = -1;
	return fd;
}

void run_reader_attach(struct run_reader *reader, int fd)
{
	if (!reader->stream)
		reader->fd = fd;
}

int run_reader_adopt_index(unsigned char *index, size_t index_bytes, size_t count, uint64_t stream_bytes,
			   struct run_reader **result)
{
	struct run_reader *reader = calloc(1, sizeof *reader);
	if (!reader) {
		free(index);
		return -ENOMEM;
	}
	reader->fd = -1;
	reader->stream = true;
	reader->index = index;
	reader->count = count;
	reader->blocks = calloc(count ? count : 1, sizeof *reader->blocks);
	int error = reader->blocks ? run_index_parse(reader, index_bytes, stream_bytes) : -ENOMEM;
	if (error) {
		run_reader_close(reader);
		return error;
	}
	*result = reader;
	return 0;
}

size_t run_reader_block_count(const struct run_reader *reader)
{
	return reader->count;
}

uint64_t run_reader_records(const struct run_reader *reader)
{
	return reader->records;
}

size_t run_reader_max_block_bytes(const struct run_reader *reader)
{
	return reader->max_block_bytes;
}

int run_reader_block_info(const struct run_reader *reader, size_t index,
			  struct run_block_info *info)
{
	if (index >= reader->count)
		return -EINVAL;
	*info = reader->blocks[index].info;
	return 0;
}

/* A stored block straight into the caller's buffer, then its checksum: at the block's
 * offset, or from the stream's current place (offset READ_AT_STREAM). */
static ssize_t run_read_stored(struct run_reader *reader, const struct run_block *block, uint64_t offset,
			       void *buffer)
{
	size_t bytes = block->info.bytes;
	unsigned char sum[8];
	int error = run_read_full(reader->fd, buffer, bytes, offset);
	if (!error)
		error = run_read_full(reader->fd, sum, sizeof sum, offset == READ_AT_STREAM ? offset : offset + bytes);
	if (!error && get_u64(sum) != block_checksum(buffer, bytes))
		error = -EBADMSG;
	return error ? error : (ssize_t)bytes;
}

/* The stream's next block (stored: its bytes, then their checksum) into buffer. */
static ssize_t run_read_streamed(struct run_reader *reader, size_t index, const struct run_block *block,
				 void *buffer)
{
	if (reader->fd < 0 || index != reader->next_block)
		return -ESPIPE;
	if (!block->stored || block->info.offset != reader->stream_offset)
		return -EBADMSG;
	ssize_t bytes = run_read_stored(reader, block, READ_AT_STREAM, buffer);
	if (bytes < 0)
		return bytes;
	reader->next_block++;
	reader->stream_offset += (uint64_t)bytes + sizeof(uint64_t); /* and its checksum */
	return bytes;
}

ssize_t run_reader_read_block(struct run_reader *reader, size_t index, void *buffer,
			      size_t buffer_bytes)
{
	if (index >= reader->count)
		return -EINVAL;
	const struct run_block *block = &reader->blocks[index];
	size_t bytes = block->info.bytes, compressed = block->info.compressed_bytes;
	if (buffer_bytes < bytes)
		return -ENOBUFS;
	if (reader->stream)
		return run_read_streamed(reader, index, block, buffer);
	if (reader->fd < 0)
		return -EBADF;
	if (block->stored)
		return run_read_stored(reader, block, block->info.offset, buffer);
	struct run_thread_scratch *scratch = run_scratch();
	if (!scratch)
		return -ENOMEM;
	int error = grow(&scratch->compressed, &scratch->compressed_capacity, compressed);
	bool planes = block->transform != RUN_TRANSFORM_NONE && block->transform != RUN_TRANSFORM_PREFIX_XOR;
	if (!error && planes)
		error = grow(&scratch->plain, &scratch->plain_capacity, bytes);
	if (!error)
		error = run_read_full(reader->fd, scratch->compressed, compressed, block->info.offset);
	if (error)
		return error;
	void *target = planes ? scratch->plain : buffer;
	error = run_decompress(scratch->dctx, target, bytes, scratch->compressed, compressed);
	if (error)
		return error;
	if (block->transform == RUN_TRANSFORM_PREFIX_XOR)
		prefix_xor_decode(buffer, bytes, block->element_bytes, block->prefix_bytes);
	else if (planes) {
		size_t width = block->element_bytes;
		byte_planes_join(scratch->plain, buffer, bytes, width);
		if (block->transform == RUN_TRANSFORM_DELTA) {
			if (!delta_supported(width))
				return -EBADMSG;
			delta_decode(buffer, bytes, width);
		}
	}
	return bytes;
}

void run_reader_prefetch(struct run_reader *reader, size_t first, size_t count)
{
	if (reader->stream || reader->fd < 0 || first >= reader->count || count == 0)
		return;
	size_t last = count > reader->count - first ? reader->count - 1 : first + count - 1;
	uint64_t begin = reader->blocks[first].info.offset;
	uint64_t end = reader->blocks[last].info.offset + reader->blocks[last].info.compressed_bytes;
	posix_fadvise(reader->fd, (off_t)begin, (off_t)(end - begin), POSIX_FADV_WILLNEED);
}

void run_reader_stream_begin(struct run_reader *reader, int fd)
{
	reader->fd = fd;
	reader->next_block = 0;
	reader->stream_offset = 0;
}

int run_reader_stream_end(struct run_reader *reader)
{
	unsigned char extra;
	int error = reader->next_block == reader->count ? 0 : -EBADMSG;
	if (!error) {
		ssize_t got;
		while ((got = read(reader->fd, &extra, 1)) < 0 && errno == EINTR)
			;
		error = got < 0 ? -errno : got > 0 ? -EBADMSG : 0;
	}
	reader->fd = -1;
	return error;
}

bool run_reader_is_stream(const struct run_reader *reader)
{
	return reader->stream;
}

void run_reader_close(struct run_reader *reader)
{
	if (!reader)
		return;
	free(reader->blocks);
	free(reader->index);
	free(reader);
}
