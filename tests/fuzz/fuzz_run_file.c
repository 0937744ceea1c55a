/* libFuzzer harness for run files on damaged disks: a valid run is written with the
 * writer (blocks, transforms and index entries chosen by the input's first bytes),
 * then damaged by the rest of the input (bytes flipped or set, the file cut short or
 * grown), then read whole. Every damage must read as -EBADMSG or as the original data:
 * never a crash, a hang, a leak, a huge allocation, or other data returned as good.
 * A second mode forges the index itself (any bytes, compressed and with a valid
 * footer) to reach the index checks; there reads must stay inside the caller's buffer.
 *
 * Input: 4 header bytes, then the damage: 4-byte operations (op, offset lo, offset hi,
 * value), or in forge mode the index's block count (2 bytes) and raw index bytes.
 * Run: tests/fuzz/fuzz_run_file CORPUS_DIR */
#define _GNU_SOURCE
#include "config.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>
#include "io/run_file.h"

#define MAX_BLOCKS 7
#define MAX_ENTRY 16
#define FOOTER_BYTES 40
/* The most a forged index may make the harness hand the reader as a buffer. */
#define BUFFER_CAP (1u << 20)

#define require(condition) \
	do { \
		if (!(condition)) { \
			fprintf(stderr, "fuzz_run_file: %s:%d: check failed: %s\n", __FILE__, \
				__LINE__, #condition); \
			abort(); \
		} \
	} while (0)

struct block {
	unsigned char *data;
	size_t bytes;
	uint64_t records;
	unsigned char entry[MAX_ENTRY];
	size_t entry_bytes;
};

struct run {
	struct block blocks[MAX_BLOCKS];
	size_t count;
	struct run_writer_options options;
};

static uint64_t next(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

/* The run the header describes: byte 0 block count (bits 0-2), transform (3-4),
 * forge mode (5), element width (6-7: 4 8 3 16); byte 1 seed; byte 2 data style;
 * byte 3 size scale. */
static void make_run(const uint8_t *header, struct run *run)
{
	static const size_t widths[] = { 4, 8, 3, 16 };
	memset(run, 0, sizeof *run);
	run->count = header[0] & 7;
	run->options.transform = (enum run_transform)((header[0] >> 3 & 3) % 3);
	run->options.element_bytes = widths[header[0] >> 6];
	run->options.level = 1;
	uint64_t state = 0x9e3779b97f4a7c15ull ^ header[1] ^ (uint64_t)header[2] << 8;
	size_t scale = (size_t)header[3] * 64 + 1;
	for (size_t i = 0; i < run->count; i++) {
		struct block *b = &run->blocks[i];
		b->bytes = next(&state) % scale;
		if (header[2] & 1) /* whole elements, so the transform applies */
			b->bytes -= b->bytes % run->options.element_bytes;
		b->data = malloc(b->bytes ? b->bytes : 1);
		uint64_t key = next(&state) % 1000;
		size_t byte;
		for (size_t j = 0; j < b->bytes; j++) {
			switch (header[2] >> 1 & 3) {
			case 0: /* sorted little-endian keys */
				if (j % run->options.element_bytes == 0)
					key += next(&state) % 50;
				byte = j % run->options.element_bytes;
				b->data[j] = byte < 8 ? (unsigned char)(key >> (8 * byte)) : 0;
				break;
			case 1: /* text */
				b->data[j] = (unsigned char)"abc 123\n"[next(&state) % 8];
				break;
			case 2: /* runs of one byte */
				b->data[j] = (unsigned char)(j / 97);
				break;
			default:
				b->data[j] = (unsigned char)next(&state);
			}
		}
		b->records = next(&state) % 100000;
		b->entry_bytes = next(&state) % (MAX_ENTRY + 1);
		for (size_t j = 0; j < b->entry_bytes; j++)
			b->entry[j] = (unsigned char)next(&state);
	}
}

static void free_run(struct run *run)
{
	for (size_t i = 0; i < run->count; i++)
		free(run->blocks[i].data);
}

/* The file image of a run, written by the writer; the last one is kept, since the
 * fuzzer mostly changes the damage and not the run. */
static int fd = -1;
static uint8_t cached_header[4];
static unsigned char *cached_image;
static size_t cached_size;

static void read_image(unsigned char **image, size_t *size)
{
	off_t end = lseek(fd, 0, SEEK_END);
	require(end >= 0);
	*size = (size_t)end;
	*image = malloc(*size ? *size : 1);
	require(pread(fd, *image, *size, 0) == (ssize_t)*size);
}

static void write_image(const unsigned char *image, size_t size)
{
	require(ftruncate(fd, 0) == 0);
	require(size == 0 || pwrite(fd, image, size, 0) == (ssize_t)size);
}

static const unsigned char *pristine_image(const uint8_t *header, const struct run *run,
					   size_t *size)
{
	if (cached_image && memcmp(cached_header, header, 4) == 0) {
		*size = cached_size;
		return cached_image;
	}
	free(cached_image);
	cached_image = NULL;
	require(ftruncate(fd, 0) == 0 && lseek(fd, 0, SEEK_SET) == 0);
	struct run_writer *writer;
	require(run_writer_open(fd, &run->options, &writer) == 0);
	for (size_t i = 0; i < run->count; i++) {
		const struct block *b = &run->blocks[i];
		require(run_writer_append_block(writer, b->data, b->bytes, b->records, b->entry,
						b->entry_bytes) == 0);
	}
	struct run_file_stats stats;
	require(run_writer_finish(writer, &stats) == 0);
	read_image(&cached_image, &cached_size);
	require(stats.file_bytes == cached_size && stats.blocks == run->count);
	memcpy(cached_header, header, 4);
	*size = cached_size;
	return cached_image;
}

/* Damage: op bit 7 counts the offset from the end; op & 3: 0 xor, 1 set, 2 cut the
 * file at the offset, 3 insert the value there. */
static unsigned char *damage(const unsigned char *pristine, size_t size, const uint8_t *ops,
			     size_t ops_size, size_t *damaged_size)
{
	size_t capacity = size + ops_size / 4 + 1;
	unsigned char *image = malloc(capacity);
	memcpy(image, pristine, size);
	for (size_t at = 0; at + 4 <= ops_size; at += 4) {
		uint8_t op = ops[at], value = ops[at + 3];
		size_t offset = (size_t)ops[at + 1] | (size_t)ops[at + 2] << 8;
		if (size == 0 && (op & 3) != 3)
			continue;
		if (op & 0x80)
			offset = size - 1 - offset % (size ? size : 1);
		offset %= size + 1;
		switch (op & 3) {
		case 0:
			if (offset < size)
				image[offset] ^= value ? value : 1;
			break;
		case 1:
			if (offset < size)
				image[offset] = value;
			break;
		case 2:
			size = offset;
			break;
		case 3:
			memmove(image + offset + 1, image + offset, size - offset);
			image[offset] = value;
			size++;
			break;
		}
	}
	*damaged_size = size;
	return image;
}

static void check_damaged(const struct run *run)
{
	struct run_reader *reader;
	int error = run_reader_open(fd, &reader);
	if (error) {
		require(error == -EBADMSG);
		return;
	}
	/* Open: the index must be the one written, since it is checksummed. */
	require(run_reader_block_count(reader) == run->count);
	uint64_t records = 0;
	size_t max_bytes = 0;
	for (size_t i = 0; i < run->count; i++) {
		const struct block *b = &run->blocks[i];
		struct run_block_info info;
		require(run_reader_block_info(reader, i, &info) == 0);
		require(info.bytes == b->bytes && info.records == b->records);
		require(info.index_entry_bytes == b->entry_bytes);
		require(b->entry_bytes == 0 || memcmp(info.index_entry, b->entry, b->entry_bytes) == 0);
		records += b->records;
		if (b->bytes > max_bytes)
			max_bytes = b->bytes;
	}
	require(run_reader_records(reader) == records);
	require(run_reader_max_block_bytes(reader) == max_bytes);
	unsigned char *buffer = malloc(max_bytes + 1);
	for (size_t i = 0; i < run->count; i++) {
		const struct block *b = &run->blocks[i];
		ssize_t got = run_reader_read_block(reader, i, buffer, max_bytes + 1);
		if (got < 0) {
			require(got == -EBADMSG);
			continue;
		}
		require((size_t)got == b->bytes);
		require(b->bytes == 0 || memcmp(buffer, b->data, b->bytes) == 0);
	}
	require(run_reader_read_block(reader, run->count, buffer, max_bytes + 1) == -EINVAL);
	free(buffer);
	run_reader_close(reader);
}

static volatile unsigned char entry_sink;

static void put_u64(unsigned char *at, uint64_t value)
{
	for (int i = 0; i < 8; i++)
		at[i] = (unsigned char)(value >> (8 * i));
}

static uint64_t fnv1a64(const unsigned char *data, size_t bytes)
{
	uint64_t hash = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < bytes; i++)
		hash = (hash ^ data[i]) * 0x100000001b3ull;
	return hash;
}

/* The pristine blocks, then the input's index as a checksummed zstd frame and a footer
 * that matches it: only the index's own checks stand between it and the reader. */
static void forge(const unsigned char *pristine, size_t size, const uint8_t *rest,
		  size_t rest_size)
{
	/* the pristine footer says where its index began */
	uint64_t index_offset = 0;
	if (size >= FOOTER_BYTES)
		for (int i = 7; i >= 0; i--)
			index_offset = index_offset << 8 | pristine[size - FOOTER_BYTES + 8 + i];
	require(index_offset <= size);
	uint64_t count = rest_size >= 2 ? (uint64_t)rest[0] | (uint64_t)rest[1] << 8 : 0;
	const uint8_t *index = rest_size >= 2 ? rest + 2 : rest;
	size_t index_bytes = rest_size >= 2 ? rest_size - 2 : 0;

	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	require(cctx);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
	size_t bound = ZSTD_compressBound(index_bytes);
	unsigned char *image = malloc(index_offset + bound + FOOTER_BYTES);
	memcpy(image, pristine, index_offset);
	size_t frame = ZSTD_compress2(cctx, image + index_offset, bound, index, index_bytes);
	require(!ZSTD_isError(frame));
	ZSTD_freeCCtx(cctx);
	unsigned char *footer = image + index_offset + frame;
	memcpy(footer, "GPURUN01", 8);
	put_u64(footer + 8, index_offset);
	put_u64(footer + 16, frame);
	put_u64(footer + 24, count);
	put_u64(footer + 32, fnv1a64(footer, 32));
	write_image(image, index_offset + frame + FOOTER_BYTES);
	free(image);

	struct run_reader *reader;
	int error = run_reader_open(fd, &reader);
	if (error) {
		require(error == -EBADMSG);
		return;
	}
	size_t blocks = run_reader_block_count(reader);
	require(blocks == count);
	size_t max_bytes = run_reader_max_block_bytes(reader);
	size_t buffer_bytes = max_bytes < BUFFER_CAP ? max_bytes : BUFFER_CAP;
	unsigned char *buffer = malloc(buffer_bytes + 1);
	for (size_t i = 0; i < blocks; i++) {
		struct run_block_info info;
		require(run_reader_block_info(reader, i, &info) == 0);
		require(info.bytes <= max_bytes);
		require(info.offset <= index_offset
			&& info.compressed_bytes <= index_offset - info.offset);
		/* the entry must lie inside the index: ASan checks these reads */
		for (size_t j = 0; j < info.index_entry_bytes; j++)
			entry_sink ^= ((const unsigned char *)info.index_entry)[j];
		ssize_t got = run_reader_read_block(reader, i, buffer, buffer_bytes);
		if (info.bytes > buffer_bytes)
			require(got == -ENOBUFS);
		else
			require(got == -EBADMSG || (size_t)got == info.bytes);
	}
	free(buffer);
	run_reader_close(reader);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* plain pread/pwrite: io_uring setup per input would dominate the time */
	setenv("GPUSORT_IO", "sync", 1);
	fd = memfd_create("fuzz_run_file", MFD_CLOEXEC);
	require(fd >= 0);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	struct run run;
	make_run(data, &run);
	size_t pristine_size;
	const unsigned char *pristine = pristine_image(data, &run, &pristine_size);
	if (data[0] & 0x20) {
		forge(pristine, pristine_size, data + 4, size - 4);
	} else {
		size_t damaged_size;
		unsigned char *image = damage(pristine, pristine_size, data + 4, size - 4,
					      &damaged_size);
		write_image(image, damaged_size);
		free(image);
		check_damaged(&run);
	}
	free_run(&run);
	return 0;
}
