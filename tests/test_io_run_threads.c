/* SPDX-License-Identifier: MIT */
/* run_file's writer pipeline and stored blocks: runs of 0, 1, depth - 1, depth,
 * depth + 1 and 2 * depth + 3 blocks written by 1, 2 and 4 compressor threads, copied,
 * handed over (run_writer_append_exchange) or lent (run_writer_append_lent, the lent
 * buffers scribbled over once run_writer_wait_lent returns), compressed or stored, come back block for
 * block in order, with their index entries; a stored block takes its bytes plus an
 * 8-byte checksum; a flipped byte in a stored block or in its checksum reads as
 * -EBADMSG while its neighbours still read; a run cut inside a stored block does not
 * open; a run past the write-behind windows reads back whole; a writer on the
 * caller's thread (on_caller) starts no thread and writes the same runs. Run with and without
 * GPUSORT_FAULT=io_ring:ENOSYS (test_io_run_threads_sync.sh). */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "io/fault_inject.h"
#include "io/run_file.h"
#include "tests/distributions.h"
#include "tests/tap.h"

#define MAX_BLOCKS 64
#define MAX_BLOCK_BYTES 70000

struct block {
	unsigned char data[MAX_BLOCK_BYTES];
	size_t bytes;
	uint64_t records;
	unsigned char entry[12];
	size_t entry_bytes;
};

static struct block blocks[MAX_BLOCKS];
/* Lent blocks come from these, three at a time between waits. */
#define LEND_GROUP 3
static unsigned char lend[LEND_GROUP][MAX_BLOCK_BYTES];

enum hand_mode { COPIED, EXCHANGED, LENT };
static const char *const mode_names[] = {"copied", "handed over", "lent"};
static char path[256];

/* Block i: empty now and then, else text-like (compressible) or random bytes. */
static void make_blocks(uint64_t seed)
{
	for (int i = 0; i < MAX_BLOCKS; i++) {
		struct block *b = &blocks[i];
		b->bytes = i % 7 == 3 ? 0 : 1 + random_next(&seed) % (MAX_BLOCK_BYTES - 1);
		for (size_t j = 0; j < b->bytes; j++)
			b->data[j] = i % 2 ? "0123abc\n"[random_next(&seed) % 8] : (unsigned char)random_next(&seed);
		b->records = random_next(&seed) % 1000;
		b->entry_bytes = random_next(&seed) % sizeof b->entry;
		for (size_t j = 0; j < b->entry_bytes; j++)
			b->entry[j] = (unsigned char)random_next(&seed);
	}
}

static int open_fresh(void)
{
	return open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
}

/* Writes blocks [0, count); exchanged: each handed over in a malloc'ed buffer that the
 * writer swaps for one of its own (and that buffer must be big enough for the next);
 * lent: each from one of the lend buffers, which are overwritten after each wait. */
static int write_run(int fd, const struct run_writer_options *options, int count, enum hand_mode mode,
		     struct run_file_stats *stats)
{
	bool exchange = mode == EXCHANGED;
	struct run_writer *writer;
	int error = run_writer_open(fd, options, &writer);
	if (error)
		return error;
	size_t capacity = MAX_BLOCK_BYTES + RUN_BLOCK_SPARE_BYTES;
	void *mine = exchange ? malloc(capacity) : NULL;
	for (int i = 0; i < count && !error; i++) {
		const struct block *b = &blocks[i];
		if (exchange) {
			if (capacity < MAX_BLOCK_BYTES) {
				error = -EPROTO; /* handed back smaller than handed over */
				break;
			}
			memcpy(mine, b->data, b->bytes);
			/* the entry points into the block handed over, as the run sink's does */
			error = run_writer_append_exchange(writer, &mine, &capacity, b->bytes, b->records, mine,
							   b->entry_bytes < b->bytes ? b->entry_bytes : b->bytes);
		} else if (mode == LENT) {
			unsigned char *mine_lent = lend[i % LEND_GROUP];
			memcpy(mine_lent, b->data, b->bytes);
			error = run_writer_append_lent(writer, mine_lent, b->bytes, b->records, b->entry, b->entry_bytes);
			if (!error && (i % LEND_GROUP == LEND_GROUP - 1 || i == count - 1)) {
				error = run_writer_wait_lent(writer);
				memset(lend, 0x5a, sizeof lend);
			}
		} else {
			error = run_writer_append_block(writer, b->data, b->bytes, b->records, b->entry,
							b->entry_bytes);
		}
	}
	free(mine);
	if (error) {
		run_writer_abort(writer);
		return error;
	}
	error = run_writer_finish(writer, stats);
	if (!error && stats->blocks != (uint64_t)count)
		error = -EPROTO;
	return error;
}

/* Every block back, in order, at increasing offsets; stored ones at bytes + 8. */
static bool read_back(int fd, int count, bool exchange, bool stored)
{
	struct run_reader *reader;
	if (run_reader_open(fd, &reader) != 0)
		return false;
	bool good = run_reader_block_count(reader) == (size_t)count;
	unsigned char *buffer = malloc(MAX_BLOCK_BYTES);
	uint64_t next_offset = 0;
	for (int i = 0; i < count && good; i++) {
		const struct block *b = &blocks[i];
		struct run_block_info info;
		const void *entry = exchange ? b->data : b->entry;
		size_t entry_bytes = exchange && b->bytes < b->entry_bytes ? b->bytes : b->entry_bytes;
		good = run_reader_block_info(reader, i, &info) == 0 && info.bytes == b->bytes
		       && info.records == b->records && info.index_entry_bytes == entry_bytes
		       && memcmp(info.index_entry, entry, entry_bytes) == 0 && info.offset == next_offset
		       && (!stored || info.compressed_bytes == b->bytes + 8);
		next_offset = info.offset + info.compressed_bytes;
		ssize_t got = run_reader_read_block(reader, i, buffer, MAX_BLOCK_BYTES);
		good = good && got == (ssize_t)b->bytes && memcmp(buffer, b->data, b->bytes) == 0;
	}
	free(buffer);
	run_reader_close(reader);
	return good;
}

static void flip_byte(int fd, off_t at)
{
	unsigned char byte;
	if (pread(fd, &byte, 1, at) == 1) {
		byte ^= 0x21;
		if (pwrite(fd, &byte, 1, at) != 1)
			tap_diag("cannot write %s", path);
	}
}

static void round_trips(void)
{
	const unsigned thread_counts[] = {1, 2, 4};
	for (size_t t = 0; t < sizeof thread_counts / sizeof *thread_counts; t++) {
		unsigned threads = thread_counts[t], depth = 2 * threads + 2;
		const int counts[] = {0, 1, (int)depth - 1, (int)depth, (int)depth + 1, 2 * (int)depth + 3};
		for (int stored = 0; stored < 2; stored++)
			for (int mode = COPIED; mode <= LENT; mode++) {
				bool exchange = mode == EXCHANGED;
				bool good = true;
				struct run_file_stats stats = {0};
				for (size_t c = 0; c < sizeof counts / sizeof *counts && good; c++) {
					struct run_writer_options options = {.threads = threads, .stored = stored};
					int fd = open_fresh();
					good = write_run(fd, &options, counts[c], mode, &stats) == 0
					       && stats.stored == (bool)stored && stats.threads == threads
					       && read_back(fd, counts[c], exchange, stored);
					if (!good)
						tap_diag("%d blocks failed", counts[c]);
					close(fd);
				}
				tap_ok(good, "%u thread%s, %s, %s: 0, 1, %u, %u, %u and %u blocks round-trip in order",
				       threads, threads > 1 ? "s" : "", stored ? "stored" : "zstd",
				       mode_names[mode], depth - 1, depth, depth + 1, 2 * depth + 3);
			}
	}
	/* two blocks held at once by four threads: the ring turns over many times */
	struct run_writer_options narrow = {.threads = 4, .depth = 2, .level = 3};
	struct run_file_stats stats;
	int fd = open_fresh();
	tap_ok(write_run(fd, &narrow, MAX_BLOCKS, COPIED, &stats) == 0 && stats.level == 3
	       && read_back(fd, MAX_BLOCKS, false, false),
	       "four threads, two blocks deep, level 3: %d blocks in order", MAX_BLOCKS);
	close(fd);
}

/* Lent blocks under the delta transform, which changes a block in place: the writer
 * works on a copy, and the lent buffer is left as it was. */
static void lent_with_transform(void)
{
	enum { VALUES = 4096, COUNT = 5 };
	static uint64_t values[COUNT][VALUES], lent_copy[COUNT][VALUES];
	uint64_t seed = 11, at = 0;
	for (int b = 0; b < COUNT; b++)
		for (int i = 0; i < VALUES; i++)
			values[b][i] = at += random_next(&seed) % 1000;
	memcpy(lent_copy, values, sizeof values);
	struct run_writer_options options = {.threads = 2, .transform = RUN_TRANSFORM_DELTA, .element_bytes = 8};
	struct run_writer *writer;
	int fd = open_fresh();
	int error = run_writer_open(fd, &options, &writer);
	for (int b = 0; b < COUNT && !error; b++)
		error = run_writer_append_lent(writer, lent_copy[b], sizeof lent_copy[b], VALUES, NULL, 0);
	if (!error)
		error = run_writer_wait_lent(writer);
	bool untouched = memcmp(lent_copy, values, sizeof values) == 0;
	memset(lent_copy, 0x5a, sizeof lent_copy);
	struct run_file_stats stats;
	if (!error)
		error = run_writer_finish(writer, &stats);
	else
		run_writer_abort(writer);
	struct run_reader *reader = NULL;
	bool good = !error && untouched && run_reader_open(fd, &reader) == 0;
	static uint64_t back[VALUES];
	for (int b = 0; b < COUNT && good; b++)
		good = run_reader_read_block(reader, b, back, sizeof back) == (ssize_t)sizeof back
		       && memcmp(back, values[b], sizeof back) == 0;
	run_reader_close(reader);
	close(fd);
	tap_ok(good, "lent blocks under the delta transform: the lent buffers unchanged, the run reads back (%d)",
	       error);
}

static void damaged_stored_blocks(void)
{
	struct run_writer_options options = {.stored = true, .threads = 2};
	struct run_file_stats stats;
	int fd = open_fresh();
	int error = write_run(fd, &options, 10, COPIED, &stats);
	struct run_reader *reader = NULL;
	if (!error)
		error = run_reader_open(fd, &reader);
	tap_ok(!error, "a stored run of 10 blocks opens (%d)", error);
	if (error) {
		close(fd);
		return;
	}
	unsigned char *buffer = malloc(MAX_BLOCK_BYTES);
	struct run_block_info info;
	run_reader_block_info(reader, 4, &info);
	flip_byte(fd, (off_t)(info.offset + info.bytes / 2));
	ssize_t got = run_reader_read_block(reader, 4, buffer, MAX_BLOCK_BYTES);
	tap_ok(got == -EBADMSG, "a flipped byte in stored block 4: -EBADMSG (%zd)", got);
	got = run_reader_read_block(reader, 5, buffer, MAX_BLOCK_BYTES);
	tap_ok(got == (ssize_t)blocks[5].bytes && memcmp(buffer, blocks[5].data, blocks[5].bytes) == 0,
	       "stored block 5 still reads");
	flip_byte(fd, (off_t)(info.offset + info.bytes / 2));
	flip_byte(fd, (off_t)(info.offset + info.bytes + 3));
	got = run_reader_read_block(reader, 4, buffer, MAX_BLOCK_BYTES);
	tap_ok(got == -EBADMSG, "a flipped byte in its checksum: -EBADMSG (%zd)", got);
	flip_byte(fd, (off_t)(info.offset + info.bytes + 3));
	got = run_reader_read_block(reader, 4, buffer, MAX_BLOCK_BYTES);
	tap_ok(got == (ssize_t)blocks[4].bytes && memcmp(buffer, blocks[4].data, blocks[4].bytes) == 0,
	       "restored, it reads again");
	run_reader_close(reader);
	if (ftruncate(fd, (off_t)(info.offset + info.bytes)) != 0)
		tap_diag("cannot truncate %s", path);
	tap_ok(run_reader_open(fd, &reader) == -EBADMSG, "cut inside stored block 4: -EBADMSG");
	free(buffer);
	close(fd);
}

/* A run of 40 stored blocks of 1 MiB: past two write-behind windows, so its writes go
 * to the device while the run goes on (sync_file_range); every byte still comes back. */
static void long_run_written_behind(void)
{
	const size_t block = 1 << 20, count = 40;
	unsigned char *data = malloc(block), *back = malloc(block);
	struct run_writer_options options = {.stored = true, .threads = 2};
	struct run_writer *writer;
	int fd = open_fresh();
	int error = run_writer_open(fd, &options, &writer);
	uint64_t seed = 5;
	for (size_t b = 0; b < count && !error; b++) {
		for (size_t j = 0; j < block; j += 8) {
			uint64_t word = random_next(&seed) ^ b;
			memcpy(data + j, &word, 8);
		}
		error = run_writer_append_block(writer, data, block, 1, &b, sizeof b);
	}
	struct run_file_stats stats = {0};
	if (!error)
		error = run_writer_finish(writer, &stats);
	struct run_reader *reader = NULL;
	if (!error)
		error = run_reader_open(fd, &reader);
	seed = 5;
	bool good = !error && run_reader_block_count(reader) == count && stats.write_seconds > 0;
	for (size_t b = 0; b < count && good; b++) {
		for (size_t j = 0; j < block; j += 8) {
			uint64_t word = random_next(&seed) ^ b;
			memcpy(data + j, &word, 8);
		}
		good = run_reader_read_block(reader, b, back, block) == (ssize_t)block && memcmp(back, data, block) == 0;
	}
	tap_ok(good, "40 MiB written behind (%.3f s in the writes): every block back (%d)", stats.write_seconds, error);
	run_reader_close(reader);
	close(fd);
	free(data);
	free(back);
}

/* The process's threads, io_uring's kernel workers (iou-*) left out. */
static int user_threads(void)
{
	DIR *tasks = opendir("/proc/self/task");
	if (!tasks)
		return -1;
	int count = 0;
	for (struct dirent *task; (task = readdir(tasks)) != NULL;) {
		if (task->d_name[0] == '.')
			continue;
		char comm_path[300], comm[32] = "";
		snprintf(comm_path, sizeof comm_path, "/proc/self/task/%s/comm", task->d_name);
		FILE *file = fopen(comm_path, "r");
		if (file) {
			if (!fgets(comm, sizeof comm, file))
				comm[0] = '\0';
			fclose(file);
		}
		count += strncmp(comm, "iou-", 4) != 0;
	}
	closedir(tasks);
	return count;
}

/* on_caller: no thread started (where none can be), every block still back in order,
 * stored or compressed, however handed over. */
static void on_caller_round_trips(void)
{
	const int counts[] = {0, 1, 5, 40};
	for (int stored = 0; stored < 2; stored++)
		for (int mode = COPIED; mode <= LENT; mode++) {
			bool good = true;
			for (size_t c = 0; c < sizeof counts / sizeof *counts && good; c++) {
				struct run_writer_options options = {.threads = 4, .stored = stored, .on_caller = true};
				struct run_file_stats stats = {0};
				int fd = open_fresh();
				good = write_run(fd, &options, counts[c], mode, &stats) == 0 && stats.stored == (bool)stored
				       && read_back(fd, counts[c], mode == EXCHANGED, stored);
				close(fd);
			}
			tap_ok(good, "on the caller, %s, %s: 0, 1, 5 and 40 blocks round-trip in order",
			       stored ? "stored" : "zstd", mode_names[mode]);
		}
	struct run_writer_options options = {.threads = 4, .on_caller = true};
	struct run_writer *writer;
	int fd = open_fresh(), before = user_threads();
	int error = run_writer_open(fd, &options, &writer);
	for (int i = 0; i < 8 && !error; i++)
		error = run_writer_append_block(writer, blocks[i].data, blocks[i].bytes, blocks[i].records,
						blocks[i].entry, blocks[i].entry_bytes);
	int during = user_threads();
	if (!error)
		error = run_writer_finish(writer, NULL);
	tap_ok(!error && before > 0 && during == before && read_back(fd, 8, false, false),
	       "on the caller: no thread started (%d threads before, %d while writing 8 blocks)", before, during);
	close(fd);
	/* the count sees a threaded writer's threads */
	options.on_caller = false;
	fd = open_fresh();
	error = run_writer_open(fd, &options, &writer);
	during = user_threads();
	if (!error)
		error = run_writer_finish(writer, NULL);
	tap_ok(!error && during > before, "a threaded writer, for contrast: %d threads while open", during);
	close(fd);
}

int main(void)
{
	/* the faults a wrapper script asks for (io_ring: no io_uring) */
	fault_arm(getenv("GPUSORT_FAULT"));
	snprintf(path, sizeof path, "%s/test_io_run_threads.%d", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
		 (int)getpid());
	make_blocks(11);
	round_trips();
	on_caller_round_trips();
	lent_with_transform();
	damaged_stored_blocks();
	long_run_written_behind();
	unlink(path);
	return tap_done();
}
