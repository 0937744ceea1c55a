/* Run files (see run_file.h): blocks compressed one zstd frame each into write_queue
 * buffers, the index kept in memory and written last; the reader loads the index at open
 * and decompresses any block on demand with per-thread zstd contexts. */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>
#include "block_transform.h"
#include "fault_inject.h"
#include "run_file.h"
#include "write_queue.h"

/* Measured on the dev VM (one core, 128 MiB of sorted uniform keys in 1 MiB blocks,
 * zstd 1.5.4; ratio, compress MB/s, decompress MB/s, transform included):
 *   u64 none    level -1: 1.000 4513 10275   level 1: 1.060  969 1317   level 3: 1.060  966 1346
 *   u64 planes  level -1: 1.381 1231  2281   level 1: 1.367 1246 2336   level 3: 1.438  730 2136
 *   u64 delta   level -1: 1.509 1105  1868   level 1: 1.518 1106 1933   level 3: 1.519 1037 1956
 *   u32 none    level -1: 1.000 1175  9891   level 1: 1.199  832 1507   level 3: 1.200  415 1587
 *   u32 planes  level -1: 2.753  722  1771   level 1: 2.689  765 1861   level 3: 2.926  627 1741
 *   u32 delta   level -1: 3.353  858  1227   level 1: 3.513  740 1047   level 3: 3.519  707 1073
 * RUN_TRANSFORM_DELTA pays for key-only records (u64: 1.06 -> 1.52 at a higher compress
 * speed; u32: 1.20 -> 3.51), and level 3 buys nothing over level 1 once it is on. */
#define RUN_MAGIC "GPURUN01"
#define RUN_FOOTER_BYTES 40
#define RUN_ENTRY_FIXED_BYTES 40
#define RUN_WRITE_DEPTH 4

/* ---- shared helpers ---- */

static uint64_t fnv1a64(const unsigned char *data, size_t bytes)
{
	uint64_t hash = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < bytes; i++)
		hash = (hash ^ data[i]) * 0x100000001b3ull;
	return hash;
}

static void put_u64(unsigned char *at, uint64_t value)
{
	for (int i = 0; i < 8; i++)
		at[i] = (unsigned char)(value >> (8 * i));
}

static void put_u32(unsigned char *at, uint32_t value)
{
	for (int i = 0; i < 4; i++)
		at[i] = (unsigned char)(value >> (8 * i));
}

static uint64_t get_u64(const unsigned char *at)
{
	uint64_t value = 0;
	for (int i = 7; i >= 0; i--)
		value = value << 8 | at[i];
	return value;
}

static uint32_t get_u32(const unsigned char *at)
{
	return (uint32_t)at[0] | (uint32_t)at[1] << 8 | (uint32_t)at[2] << 16
	       | (uint32_t)at[3] << 24;
}

static int grow(unsigned char **buffer, size_t *capacity, size_t needed)
{
	if (*capacity >= needed)
		return 0;
	size_t bigger = *capacity ? *capacity : 4096;
	while (bigger < needed)
		bigger *= 2;
	unsigned char *p = realloc(*buffer, bigger);
	if (!p)
		return -ENOMEM;
	*buffer = p;
	*capacity = bigger;
	return 0;
}

/* ---- writer ---- */

struct run_writer {
	struct write_queue *queue;
	ZSTD_CCtx *cctx;
	struct run_writer_options options;
	unsigned char *scratch;     /* the transformed block */
	size_t scratch_capacity;
	unsigned char *index;       /* serialized index entries */
	size_t index_bytes;
	size_t index_capacity;
	struct run_file_stats stats;
	uint64_t base;              /* fd's offset at open: block offsets are absolute */
};

int run_writer_open(int fd, const struct run_writer_options *options,
		    struct run_writer **result)
{
	struct run_writer *writer = calloc(1, sizeof *writer);
	if (!writer)
		return -ENOMEM;
	if (options)
		writer->options = *options;
	if (writer->options.level == 0)
		writer->options.level = RUN_DEFAULT_LEVEL;
	if (writer->options.element_bytes == 0)
		writer->options.transform = RUN_TRANSFORM_NONE;
	writer->cctx = ZSTD_createCCtx();
	int error = writer->cctx ? 0 : -ENOMEM;
	if (!error && (ZSTD_isError(ZSTD_CCtx_setParameter(writer->cctx, ZSTD_c_compressionLevel,
							    writer->options.level))
		       || ZSTD_isError(ZSTD_CCtx_setParameter(writer->cctx, ZSTD_c_checksumFlag, 1))))
		error = -EINVAL;
	off_t base = lseek(fd, 0, SEEK_CUR);
	writer->base = base > 0 ? base : 0;
	if (!error)
		error = write_queue_open(fd, RUN_WRITE_DEPTH, 1 << 20, "temp_write", &writer->queue);
	if (error) {
		run_writer_abort(writer);
		return error;
	}
	*result = writer;
	return 0;
}

/* Compresses src into a queue buffer as one frame and submits it; *written its size. */
static int run_write_frame(struct run_writer *writer, const void *src, size_t bytes,
			   size_t *written)
{
	void *buffer;
	size_t bound = ZSTD_compressBound(bytes);
	int error = write_queue_buffer(writer->queue, bound, &buffer);
	if (error)
		return error;
	size_t compressed = ZSTD_compress2(writer->cctx, buffer, bound, src, bytes);
	if (ZSTD_isError(compressed))
		return ZSTD_getErrorCode(compressed) == ZSTD_error_memory_allocation ? -ENOMEM : -EIO;
	*written = compressed;
	return write_queue_submit(writer->queue, compressed);
}

static enum run_transform run_block_transform(const struct run_writer *writer, size_t bytes)
{
	size_t width = writer->options.element_bytes;
	enum run_transform transform = writer->options.transform;
	/* An empty block has nothing to transform (and no scratch buffer to do it in). */
	if (transform == RUN_TRANSFORM_NONE || bytes == 0 || bytes % width != 0)
		return RUN_TRANSFORM_NONE;
	if (transform == RUN_TRANSFORM_DELTA && !delta_supported(width))
		return RUN_TRANSFORM_BYTE_PLANES;
	return transform;
}

int run_writer_append_block(struct run_writer *writer, const void *data, size_t bytes,
			    uint64_t records, const void *index_entry, size_t entry_bytes)
{
	if (entry_bytes > UINT32_MAX || writer->options.element_bytes > (1u << 24) - 1)
		return -EINVAL;
	enum run_transform transform = run_block_transform(writer, bytes);
	const void *source = data;
	if (transform != RUN_TRANSFORM_NONE) {
		size_t width = writer->options.element_bytes;
		int error = grow(&writer->scratch, &writer->scratch_capacity, bytes * 2);
		if (error)
			return error;
		const void *planes_from = data;
		if (transform == RUN_TRANSFORM_DELTA) {
			unsigned char *copy = writer->scratch + bytes;
			memcpy(copy, data, bytes);
			delta_encode(copy, bytes, width);
			planes_from = copy;
		}
		byte_planes_split(planes_from, writer->scratch, bytes, width);
		source = writer->scratch;
	}
	uint64_t offset = writer->base + write_queue_bytes(writer->queue);
	size_t compressed;
	int error = run_write_frame(writer, source, bytes, &compressed);
	if (error)
		return error;
	error = grow(&writer->index, &writer->index_capacity,
		     writer->index_bytes + RUN_ENTRY_FIXED_BYTES + entry_bytes);
	if (error)
		return error;
	unsigned char *entry = writer->index + writer->index_bytes;
	put_u64(entry, offset);
	put_u64(entry + 8, compressed);
	put_u64(entry + 16, bytes);
	put_u64(entry + 24, records);
	/* transform in the low byte, the element width above it */
	put_u32(entry + 32, transform | (uint32_t)(transform ? writer->options.element_bytes : 0) << 8);
	put_u32(entry + 36, (uint32_t)entry_bytes);
	if (entry_bytes)
		memcpy(entry + RUN_ENTRY_FIXED_BYTES, index_entry, entry_bytes);
	writer->index_bytes += RUN_ENTRY_FIXED_BYTES + entry_bytes;
	writer->stats.blocks++;
	writer->stats.records += records;
	writer->stats.bytes += bytes;
	return 0;
}

int run_writer_finish(struct run_writer *writer, struct run_file_stats *stats)
{
	uint64_t index_offset = writer->base + write_queue_bytes(writer->queue);
	size_t index_frame;
	int error = run_write_frame(writer, writer->index, writer->index_bytes, &index_frame);
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
	if (!error && stats)
		*stats = writer->stats;
	run_writer_abort(writer);
	return error;
}

void run_writer_abort(struct run_writer *writer)
{
	if (!writer)
		return;
	write_queue_close(writer->queue);
	ZSTD_freeCCtx(writer->cctx);
	free(writer->scratch);
	free(writer->index);
	free(writer);
}

/* ---- reader ---- */

struct run_block {
	struct run_block_info info;
	enum run_transform transform;
	size_t element_bytes;
};

struct run_reader {
	int fd;
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

/* pread all of it; a file that ends early is damaged (-EBADMSG). */
static int run_pread(int fd, void *buffer, size_t bytes, uint64_t offset)
{
	unsigned char *p = buffer;
	size_t have = 0;
	while (have < bytes) {
		int fault = fault_inject("temp_read");
		if (fault < 0)
			return fault;
		size_t want = bytes - have;
		if (fault == FAULT_SHORT && want > 1)
			want /= 2;
		ssize_t got = pread(fd, p + have, want, offset + have);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			return -EBADMSG;
		have += got;
	}
	return 0;
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
		block->transform = get_u32(at + 32) & 0xff;
		block->element_bytes = get_u32(at + 32) >> 8;
		block->info.index_entry_bytes = get_u32(at + 36);
		block->info.index_entry = at + RUN_ENTRY_FIXED_BYTES;
		at += RUN_ENTRY_FIXED_BYTES;
		if ((size_t)(end - at) < block->info.index_entry_bytes
		    || block->info.offset > index_offset
		    || block->info.compressed_bytes > index_offset - block->info.offset
		    || block->transform > RUN_TRANSFORM_DELTA || block->info.bytes > SIZE_MAX / 2
		    || block->info.bytes > frame_content_limit(block->info.compressed_bytes)
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
	int error = run_pread(reader->fd, footer, sizeof footer, footer_offset);
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
	error = run_pread(reader->fd, frame, index_frame, index_offset);
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

ssize_t run_reader_read_block(struct run_reader *reader, size_t index, void *buffer,
			      size_t buffer_bytes)
{
	if (index >= reader->count)
		return -EINVAL;
	const struct run_block *block = &reader->blocks[index];
	size_t bytes = block->info.bytes, compressed = block->info.compressed_bytes;
	if (buffer_bytes < bytes)
		return -ENOBUFS;
	struct run_thread_scratch *scratch = run_scratch();
	if (!scratch)
		return -ENOMEM;
	int error = grow(&scratch->compressed, &scratch->compressed_capacity, compressed);
	if (!error && block->transform != RUN_TRANSFORM_NONE)
		error = grow(&scratch->plain, &scratch->plain_capacity, bytes);
	if (!error)
		error = run_pread(reader->fd, scratch->compressed, compressed, block->info.offset);
	if (error)
		return error;
	void *target = block->transform == RUN_TRANSFORM_NONE ? buffer : scratch->plain;
	error = run_decompress(scratch->dctx, target, bytes, scratch->compressed, compressed);
	if (error)
		return error;
	if (block->transform != RUN_TRANSFORM_NONE) {
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

void run_reader_close(struct run_reader *reader)
{
	if (!reader)
		return;
	free(reader->blocks);
	free(reader->index);
	free(reader);
}
