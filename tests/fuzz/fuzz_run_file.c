/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for run files on damaged disks: a valid run is written with the
 * writer (blocks, transforms and index entries chosen by the input's first bytes),
 * then damaged by the rest of the input (bytes flipped or set, the file cut short or
 * grown), then read whole. Every damage must read as -EBADMSG or as the original data:
 * never a crash, a hang, a leak, a huge allocation, or other data returned as good.
 * A second mode forges the index itself (entries near the limits of the reader's
 * checks, or raw bytes; compressed and behind a valid footer) to reach those checks:
 * there reads must stay inside the index and the caller's buffer, and the writer's
 * own entries must still read back right.
 *
 * Input: 4 header bytes, then the damage: 4-byte operations (op, offset lo, offset hi,
 * value), or in forge mode the forged index (see forge()).
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
#include "io/fault_inject.h"
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

/* Where the writer put each block of the cached image, and how (for forge mode). */
struct pristine_block {
	uint64_t offset, compressed, bytes, records;
	uint32_t transform, entry_bytes;
};
static struct pristine_block pristine_blocks[MAX_BLOCKS];

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
	struct run_reader *reader;
	require(run_reader_open(fd, &reader) == 0);
	for (size_t i = 0; i < run->count; i++) {
		struct run_block_info info;
		require(run_reader_block_info(reader, i, &info) == 0);
		struct pristine_block *b = &pristine_blocks[i];
		b->offset = info.offset, b->compressed = info.compressed_bytes;
		b->bytes = info.bytes, b->records = info.records;
		b->entry_bytes = (uint32_t)info.index_entry_bytes;
		/* the writer's choice (run_writer.c), recorded in the index's transform word */
		size_t width = run->options.element_bytes;
		uint32_t transform = run->options.transform;
		if (info.bytes == 0 || info.bytes % width)
			transform = RUN_TRANSFORM_NONE;
		else if (transform == RUN_TRANSFORM_DELTA && width != 4 && width != 8)
			transform = RUN_TRANSFORM_BYTE_PLANES;
		b->transform = transform | (transform ? (uint32_t)width << 8 : 0);
	}
	run_reader_close(reader);
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

static void put_u32(unsigned char *at, uint32_t value)
{
	for (int i = 0; i < 4; i++)
		at[i] = (unsigned char)(value >> (8 * i));
}

static uint32_t get_u32(const uint8_t *at)
{
	return (uint32_t)at[0] | (uint32_t)at[1] << 8 | (uint32_t)at[2] << 16 | (uint32_t)at[3] << 24;
}

static uint64_t fnv1a64(const unsigned char *data, size_t bytes)
{
	uint64_t hash = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < bytes; i++)
		hash = (hash ^ data[i]) * 0x100000001b3ull;
	return hash;
}

/* A forged index entry: the writer's own entry for a block, or zeros, with at most one
 * field moved to a value around where the reader's checks draw their lines. */
struct forged_entry {
	uint64_t offset, compressed, bytes, records;
	uint32_t transform, entry_bytes;
	size_t entry_written;      /* entry bytes actually stored after it */
	int pristine;              /* the writer's block it copies unchanged, or -1 */
};

/* kind 0..7: 0, the boundary, one past it, one before it, a small value, the top of the
 * field, or the raw value. */
static uint64_t near(uint64_t boundary, uint8_t kind, uint32_t raw)
{
	switch (kind % 8) {
	case 0: return 0;
	case 1: return boundary;
	case 2: return boundary + 1;
	case 3: return boundary ? boundary - 1 : 0;
	case 4: return raw % 64;
	case 5: return UINT64_MAX - raw % 4;
	case 6: return (uint64_t)raw << 32 | raw;
	default: return raw;
	}
}

/* Input for forge mode: flags (bit 0: raw mode, where the next byte is the footer's
 * block count and the rest the index; bit 1: the footer counts one block more than
 * the entries), the entry count (low 3 bits), then per entry 8 bytes (source, field,
 * kind, entry bytes stored, raw u32), and what is left appended to the index as it
 * is. The index goes into a checksummed zstd frame behind a valid footer, so that
 * only the index's own checks stand between it and the reader. */
static void forge(const struct run *run, const unsigned char *pristine, size_t size,
		  const uint8_t *rest, size_t rest_size)
{
	/* the pristine footer says where its index began */
	uint64_t index_offset = 0;
	if (size >= FOOTER_BYTES)
		for (int i = 7; i >= 0; i--)
			index_offset = index_offset << 8 | pristine[size - FOOTER_BYTES + 8 + i];
	require(index_offset <= size);
	uint8_t flags = rest_size > 0 ? rest[0] : 0;
	uint8_t entries = rest_size > 1 ? rest[1] & 7 : 0;
	const uint8_t *p = rest + (rest_size > 1 ? 2 : rest_size), *end = rest + rest_size;

	unsigned char *index = malloc(8 * (40 + MAX_ENTRY) + rest_size + 1);
	size_t index_bytes = 0, built_bytes = 0;
	struct forged_entry forged[8];
	uint64_t count;
	uint8_t built = 0;
	if (flags & 1) {
		count = rest_size > 1 ? rest[1] : 0;
		memcpy(index, p, (size_t)(end - p));
		index_bytes = (size_t)(end - p);
	} else {
		for (; built < entries && end - p >= 8; built++, p += 8) {
			struct forged_entry *f = &forged[built];
			memset(f, 0, sizeof *f);
			f->pristine = -1;
			if (p[0] & 1 && run->count) {
				f->pristine = (p[0] >> 1) % run->count;
				const struct pristine_block *b = &pristine_blocks[f->pristine];
				f->offset = b->offset, f->compressed = b->compressed;
				f->bytes = b->bytes, f->records = b->records;
				f->transform = b->transform, f->entry_bytes = b->entry_bytes;
			}
			uint32_t raw = get_u32(p + 4);
			uint64_t room = f->offset <= index_offset ? index_offset - f->offset : 0;
			switch (p[1] % 8) {
			case 1: f->offset = near(index_offset, p[2], raw); break;
			case 2: f->compressed = near(room, p[2], raw); break;
			case 3: f->bytes = near((f->compressed / 4 + 1) << 17, p[2], raw); break;
			case 4: f->records = near(UINT64_MAX, p[2], raw); break;
			case 5: f->transform = (uint32_t)near(2, p[2], raw); break;
			case 6: f->transform = (f->transform & 0xff) | (uint32_t)near(8, p[2], raw) << 8; break;
			case 7: f->entry_bytes = (uint32_t)near(p[3] % (MAX_ENTRY + 1), p[2], raw); break;
			}
			if (p[1] % 8)
				f->pristine = -1; /* changed: anything may come back but a crash */
			f->entry_written = f->pristine >= 0 ? f->entry_bytes : p[3] % (MAX_ENTRY + 1);
			unsigned char *at = index + index_bytes;
			put_u64(at, f->offset);
			put_u64(at + 8, f->compressed);
			put_u64(at + 16, f->bytes);
			put_u64(at + 24, f->records);
			put_u32(at + 32, f->transform);
			put_u32(at + 36, f->entry_bytes);
			if (f->pristine >= 0)
				memcpy(at + 40, run->blocks[f->pristine].entry, f->entry_written);
			else
				memset(at + 40, 0x5a, f->entry_written);
			index_bytes += 40 + f->entry_written;
		}
		built_bytes = index_bytes;
		memcpy(index + index_bytes, p, (size_t)(end - p));
		index_bytes += (size_t)(end - p);
		count = built + (flags >> 1 & 1);
	}

	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	require(cctx);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
	size_t bound = ZSTD_compressBound(index_bytes);
	unsigned char *image = malloc(index_offset + bound + FOOTER_BYTES);
	memcpy(image, pristine, index_offset);
	size_t frame = ZSTD_compress2(cctx, image + index_offset, bound, index, index_bytes);
	require(!ZSTD_isError(frame));
	ZSTD_freeCCtx(cctx);
	free(index);
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
		if (info.bytes > buffer_bytes) {
			require(got == -ENOBUFS);
			continue;
		}
		require(got == -EBADMSG || (size_t)got == info.bytes);
		/* the writer's own entry, unchanged: its block reads back as written */
		if (i < built && forged[i].pristine >= 0 && index_bytes == built_bytes) {
			const struct block *b = &run->blocks[forged[i].pristine];
			require((size_t)got == b->bytes);
			require(b->bytes == 0 || memcmp(buffer, b->data, b->bytes) == 0);
		}
	}
	free(buffer);
	run_reader_close(reader);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* plain pread/pwrite: io_uring setup per input would dominate the time */
	fault_arm("io_ring:ENOSYS");
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
		forge(&run, pristine, pristine_size, data + 4, size - 4);
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
