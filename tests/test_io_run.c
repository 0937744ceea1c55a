/* SPDX-License-Identifier: MIT */
/* run_file: blocks of random sizes with index entries of random lengths come back byte
 * for byte in random order and from two threads at once; the transforms round-trip on
 * sorted u64 and u32 keys and fall back where they cannot apply; an empty run; a run
 * after a prefix in the file; a flipped byte in a block, the index or the footer reads
 * as -EBADMSG, a truncated file too. A stream run (--compress-program's: stored blocks,
 * the index kept in memory) reads back in order only; damage, bytes past its end and a
 * stream cut short read as -EBADMSG. Run with and without GPUSORT_FAULT=io_ring:ENOSYS. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "io/fault_inject.h"
#include "io/block_transform.h"
#include "io/run_file.h"
#include "tests/distributions.h"
#include "tests/tap.h"

#define BLOCKS 40

struct block {
	unsigned char *data;
	size_t bytes;
	uint64_t records;
	unsigned char entry[24];
	size_t entry_bytes;
};

static struct block blocks[BLOCKS];
static char path[256];

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Text-like bytes (compressible) or random ones, by block. */
static void make_blocks(uint64_t seed)
{
	for (int i = 0; i < BLOCKS; i++) {
		struct block *b = &blocks[i];
		b->bytes = i == 5 ? 0 : random_next(&seed) % 300000;
		b->data = malloc(b->bytes + 1);
		for (size_t j = 0; j < b->bytes; j++)
			b->data[j] = i % 3 ? "abcdefgh\n"[random_next(&seed) % 9]
					   : (unsigned char)random_next(&seed);
		b->records = random_next(&seed) % 100000;
		b->entry_bytes = random_next(&seed) % sizeof b->entry;
		for (size_t j = 0; j < b->entry_bytes; j++)
			b->entry[j] = (unsigned char)random_next(&seed);
	}
}

static int open_fresh(void)
{
	return open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
}

static int write_run(int fd, const struct run_writer_options *options, int count)
{
	struct run_writer *writer;
	int error = run_writer_open(fd, options, &writer);
	if (error)
		return error;
	for (int i = 0; i < count && !error; i++)
		error = run_writer_append_block(writer, blocks[i].data, blocks[i].bytes,
						blocks[i].records, blocks[i].entry,
						blocks[i].entry_bytes);
	if (error) {
		run_writer_abort(writer);
		return error;
	}
	struct run_file_stats stats;
	error = run_writer_finish(writer, &stats);
	if (!error && stats.blocks != (uint64_t)count)
		error = -EPROTO;
	return error;
}

/* Every block in a shuffled order: info and bytes as written. */
static bool read_all_shuffled(struct run_reader *reader, uint64_t seed)
{
	int order[BLOCKS];
	for (int i = 0; i < BLOCKS; i++)
		order[i] = i;
	for (int i = BLOCKS - 1; i > 0; i--) {
		int j = random_next(&seed) % (i + 1), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	size_t room = run_reader_max_block_bytes(reader);
	unsigned char *buffer = malloc(room + 1);
	bool good = run_reader_block_count(reader) == BLOCKS;
	for (int k = 0; k < BLOCKS && good; k++) {
		int i = order[k];
		struct run_block_info info;
		good = run_reader_block_info(reader, i, &info) == 0 && info.bytes == blocks[i].bytes
		       && info.records == blocks[i].records
		       && info.index_entry_bytes == blocks[i].entry_bytes
		       && memcmp(info.index_entry, blocks[i].entry, blocks[i].entry_bytes) == 0;
		ssize_t got = run_reader_read_block(reader, i, buffer, room);
		good = good && got == (ssize_t)blocks[i].bytes
		       && memcmp(buffer, blocks[i].data, blocks[i].bytes) == 0;
	}
	free(buffer);
	return good;
}

static void *reader_thread(void *reader)
{
	static uint64_t seeds;
	return read_all_shuffled(reader, __atomic_add_fetch(&seeds, 1, __ATOMIC_RELAXED))
	       ? reader : NULL;
}

static void flip_byte(int fd, off_t at)
{
	unsigned char byte;
	pread(fd, &byte, 1, at);
	byte ^= 0x5a;
	pwrite(fd, &byte, 1, at);
}

/* byte_planes_join (16 elements at a time where it can) against its definition,
 * element by element, for every count around the 16-element steps, and split after it. */
static void byte_planes_against_definition(void)
{
	bool ok = true;
	for (size_t count = 0; count <= 70 && ok; count++) {
		size_t width = 8, bytes = count * width;
		unsigned char *planes = malloc(bytes + 1), *joined = malloc(bytes + 1), *split = malloc(bytes + 1);
		for (size_t b = 0; b < bytes; b++)
			planes[b] = (unsigned char)(b * 131 + count * 7 + 1);
		byte_planes_join(planes, joined, bytes, width);
		for (size_t i = 0; i < count && ok; i++)
			for (size_t j = 0; j < width; j++)
				ok = ok && joined[i * width + j] == planes[j * count + i];
		byte_planes_split(joined, split, bytes, width);
		ok = ok && memcmp(split, planes, bytes) == 0;
		free(planes);
		free(joined);
		free(split);
	}
	tap_ok(ok, "byte planes of 8-byte elements joined as defined (0 to 70 elements), split back");
}

static void transform_round_trip(enum run_transform transform, size_t width, size_t count, size_t prefix,
				 int level, const char *what)
{
	size_t bytes = count * width;
	uint64_t *keys = malloc(count * sizeof *keys);
	unsigned char *data = malloc(bytes + 8), *back = malloc(bytes + 8);
	distribution_fill_u64(DIST_UNIFORM, 42, 64, keys, count);
	qsort(keys, count, sizeof *keys, compare_u64);
	for (size_t i = 0; i < count; i++)
		memcpy(data + i * width, (unsigned char *)&keys[i] + (width < 8 ? 8 - width : 0),
		       width < 8 ? width : 8);
	if (width > 8)
		for (size_t i = 0; i < count; i++)
			memset(data + i * width + 8, (int)i, width - 8);
	int fd = open_fresh();
	struct run_writer_options options = {
		.level = level, .transform = transform, .element_bytes = width, .prefix_bytes = prefix};
	struct run_writer *writer;
	int error = run_writer_open(fd, &options, &writer);
	/* The second block is cut to a non-multiple of the width: stored untransformed. */
	size_t first = bytes / 2 / width * width, cut = bytes - first - (width > 1 ? 1 : 0);
	if (!error)
		error = run_writer_append_block(writer, data, first, first / width, NULL, 0);
	if (!error)
		error = run_writer_append_block(writer, data + first, cut, cut / width, NULL, 0);
	struct run_file_stats stats = {0};
	if (!error)
		error = run_writer_finish(writer, &stats);
	struct run_reader *reader;
	if (!error)
		error = run_reader_open(fd, &reader);
	ssize_t got1 = -1, got2 = -1;
	if (!error) {
		got1 = run_reader_read_block(reader, 0, back, bytes);
		got2 = run_reader_read_block(reader, 1, back + first, bytes);
		run_reader_close(reader);
	}
	tap_ok(!error && got1 == (ssize_t)first && got2 == (ssize_t)cut
	       && memcmp(back, data, first + cut) == 0,
	       "%s: round trip (%zu bytes into %llu)", what, first + cut,
	       (unsigned long long)stats.file_bytes);
	close(fd);
	free(keys);
	free(data);
	free(back);
}

/* Reads the stream's blocks 0 .. count-1 in order: 0 when each is its block, else the
 * first failure. */
static ssize_t stream_read_in_order(struct run_reader *reader, int fd, size_t count)
{
	lseek(fd, 0, SEEK_SET);
	run_reader_stream_begin(reader, fd);
	size_t room = run_reader_max_block_bytes(reader);
	unsigned char *buffer = malloc(room ? room : 1);
	ssize_t result = 0;
	for (size_t i = 0; i < count && result == 0; i++) {
		struct run_block_info info;
		ssize_t got = run_reader_read_block(reader, i, buffer, room);
		run_reader_block_info(reader, i, &info);
		if (got < 0)
			result = got;
		else if ((size_t)got != blocks[i].bytes || memcmp(buffer, blocks[i].data, got) != 0
			 || info.records != blocks[i].records || info.index_entry_bytes != blocks[i].entry_bytes
			 || memcmp(info.index_entry, blocks[i].entry, info.index_entry_bytes) != 0)
			result = -EPROTO;
	}
	free(buffer);
	return result;
}

static void stream_run(void)
{
	int fd = open_fresh();
	struct run_writer *writer;
	struct run_writer_options options = {.stream = true, .transform = RUN_TRANSFORM_DELTA, .element_bytes = 8};
	int error = run_writer_open(fd, &options, &writer);
	for (int i = 0; i < BLOCKS && !error; i++)
		error = run_writer_append_block(writer, blocks[i].data, blocks[i].bytes, blocks[i].records,
						blocks[i].entry, blocks[i].entry_bytes);
	struct run_file_stats stats;
	struct run_reader *reader = NULL;
	if (!error)
		error = run_writer_finish_stream(writer, &stats, &reader);
	tap_ok(error == 0 && reader && run_reader_is_stream(reader) && run_reader_block_count(reader) == BLOCKS,
	       "a stream run: %d blocks written, its index handed over (%d)", BLOCKS, error);
	if (error)
		return;
	uint64_t stored = 0;
	for (int i = 0; i < BLOCKS; i++)
		stored += blocks[i].bytes + 8;
	tap_ok(stats.stored && (uint64_t)lseek(fd, 0, SEEK_END) == stored && stats.file_bytes == stored,
	       "stored blocks and their checksums, nothing after them (%llu bytes)", (unsigned long long)stored);
	ssize_t got = stream_read_in_order(reader, fd, BLOCKS);
	tap_ok(got == 0, "every block and index entry back, in order (%zd)", got);
	tap_ok(run_reader_stream_end(reader) == 0, "the stream ends after the last block");
	tap_ok(stream_read_in_order(reader, fd, BLOCKS) == 0 && run_reader_stream_end(reader) == 0,
	       "a stream begun again reads again");
	lseek(fd, 0, SEEK_SET);
	run_reader_stream_begin(reader, fd);
	tap_ok(run_reader_read_block(reader, 2, blocks[2].data, blocks[2].bytes) == -ESPIPE,
	       "a block out of order: -ESPIPE");
	run_reader_prefetch(reader, 0, 4); /* nothing to ask of a stream */

	off_t at = (off_t)(blocks[0].bytes + blocks[1].bytes + blocks[2].bytes + 24 + blocks[3].bytes / 2);
	flip_byte(fd, at);
	got = stream_read_in_order(reader, fd, BLOCKS);
	tap_ok(got == -EBADMSG, "a flipped byte in block 3: -EBADMSG (%zd)", got);
	flip_byte(fd, at);
	lseek(fd, 0, SEEK_END);
	write(fd, "x", 1);
	got = stream_read_in_order(reader, fd, BLOCKS);
	tap_ok(got == 0 && run_reader_stream_end(reader) == -EBADMSG, "a byte after the last block: -EBADMSG");
	ftruncate(fd, (off_t)stored - 3);
	got = stream_read_in_order(reader, fd, BLOCKS);
	tap_ok(got == -EBADMSG, "a stream cut short: -EBADMSG (%zd)", got);
	stream_read_in_order(reader, fd, 0);
	tap_ok(run_reader_stream_end(reader) == -EBADMSG, "a stream ended before its last block: -EBADMSG");
	run_reader_close(reader);
	close(fd);
}

int main(void)
{
	/* the faults a wrapper script asks for (io_ring: no io_uring) */
	fault_arm(getenv("GPUSORT_FAULT"));
	snprintf(path, sizeof path, "/tmp/test_io_run.%d", (int)getpid());
	make_blocks(1);
	int fd = open_fresh();
	tap_ok(write_run(fd, NULL, BLOCKS) == 0, "writes %d blocks of random sizes", BLOCKS);
	struct run_reader *reader;
	int error = run_reader_open(fd, &reader);
	tap_ok(error == 0, "opens (%d)", error);
	if (error)
		return tap_done();
	uint64_t records = 0;
	for (int i = 0; i < BLOCKS; i++)
		records += blocks[i].records;
	tap_ok(run_reader_records(reader) == records, "record count is the sum");
	tap_ok(read_all_shuffled(reader, 7), "every block and index entry back, in random order");
	pthread_t threads[2];
	void *results[2];
	for (int t = 0; t < 2; t++)
		pthread_create(&threads[t], NULL, reader_thread, reader);
	for (int t = 0; t < 2; t++)
		pthread_join(threads[t], &results[t]);
	tap_ok(results[0] && results[1], "two threads reading one reader at once");
	unsigned char small[16];
	tap_ok(run_reader_read_block(reader, BLOCKS, small, 16) == -EINVAL,
	       "a block past the end: -EINVAL");
	struct run_block_info info;
	run_reader_block_info(reader, 1, &info);
	tap_ok(run_reader_read_block(reader, 1, small, 0) == -ENOBUFS || info.bytes == 0,
	       "a buffer too small: -ENOBUFS");

	/* A damaged block: only that block fails. */
	run_reader_block_info(reader, 3, &info);
	flip_byte(fd, info.offset + info.compressed_bytes / 2);
	unsigned char *buffer = malloc(run_reader_max_block_bytes(reader));
	size_t room = run_reader_max_block_bytes(reader);
	ssize_t got = run_reader_read_block(reader, 3, buffer, room);
	tap_ok(got == -EBADMSG, "a flipped byte in block 3: -EBADMSG (%zd)", got);
	got = run_reader_read_block(reader, 4, buffer, room);
	tap_ok(got == (ssize_t)blocks[4].bytes && memcmp(buffer, blocks[4].data, got) == 0,
	       "block 4 still reads");
	flip_byte(fd, info.offset + info.compressed_bytes / 2);
	/* The last byte of a frame is its checksum. */
	flip_byte(fd, info.offset + info.compressed_bytes - 1);
	tap_ok(run_reader_read_block(reader, 3, buffer, room) == -EBADMSG,
	       "a flipped checksum byte: -EBADMSG");
	flip_byte(fd, info.offset + info.compressed_bytes - 1);
	run_reader_block_info(reader, BLOCKS - 1, &info);
	run_reader_close(reader);

	off_t size = lseek(fd, 0, SEEK_END);
	off_t index_at = info.offset + info.compressed_bytes;
	flip_byte(fd, index_at + (size - 40 - index_at) / 2);
	tap_ok(run_reader_open(fd, &reader) == -EBADMSG, "a flipped byte in the index: -EBADMSG");
	flip_byte(fd, index_at + (size - 40 - index_at) / 2);
	flip_byte(fd, size - 20);
	tap_ok(run_reader_open(fd, &reader) == -EBADMSG, "a flipped byte in the footer: -EBADMSG");
	flip_byte(fd, size - 20);
	tap_ok(run_reader_open(fd, &reader) == 0, "restored, it opens again");
	run_reader_close(reader);
	ftruncate(fd, size - 1);
	tap_ok(run_reader_open(fd, &reader) == -EBADMSG, "a truncated run: -EBADMSG");
	close(fd);

	fd = open_fresh();
	tap_ok(write_run(fd, NULL, 0) == 0 && run_reader_open(fd, &reader) == 0
	       && run_reader_block_count(reader) == 0 && run_reader_records(reader) == 0,
	       "an empty run: no blocks");
	run_reader_close(reader);
	close(fd);

	fd = open_fresh();
	write(fd, "prefix", 6);
	struct run_writer_options level = { .level = 3 };
	tap_ok(write_run(fd, &level, BLOCKS) == 0 && run_reader_open(fd, &reader) == 0
	       && read_all_shuffled(reader, 9), "a run after a prefix, level 3: reads back");
	run_reader_close(reader);
	close(fd);

	stream_run();
	byte_planes_against_definition();
	transform_round_trip(RUN_TRANSFORM_DELTA, 8, 300001, 0, 0, "delta u64");
	transform_round_trip(RUN_TRANSFORM_DELTA, 4, 300001, 0, 0, "delta u32");
	transform_round_trip(RUN_TRANSFORM_BYTE_PLANES, 8, 300001, 0, 0, "byte planes u64");
	transform_round_trip(RUN_TRANSFORM_DELTA, 12, 100001, 0, 0, "delta on 12-byte records (planes only)");
	transform_round_trip(RUN_TRANSFORM_BYTE_PLANES, 100, 10001, 0, 0, "byte planes on 100-byte records");
	transform_round_trip(RUN_TRANSFORM_PREFIX_XOR, 100, 10001, 10, RUN_PREFIX_XOR_LEVEL,
			     "10-byte keys of 100-byte records XORed, zstd level -1");
	transform_round_trip(RUN_TRANSFORM_PREFIX_XOR, 12, 100001, 12, 1, "whole 12-byte elements XORed");
	transform_round_trip(RUN_TRANSFORM_PREFIX_XOR, 8, 30001, 9, 1, "a prefix longer than the element: none");
	transform_round_trip(RUN_TRANSFORM_PREFIX_XOR, 70000, 20, 8, 1, "elements above 64 KiB: none");

	unlink(path);
	free(buffer);
	for (int i = 0; i < BLOCKS; i++)
		free(blocks[i].data);
	return tap_done();
}
