/* SPDX-License-Identifier: MIT */
/* run_level: the next run's compression from measured rates. A temp directory faster
 * than the compressor by the ratio gets stored blocks, one faster but not by that much
 * does not (compressible records keep zstd on a fast disk); a stored run that wrote
 * slower than the compressor brings zstd back for good; a compressor with more than
 * twice the time the disk leaves it climbs a level at a time to RUN_LEVEL_MAX while the
 * ratio grows, and stops at the level below one that does not gain ratio; one slower
 * than the disk goes back down to RUN_DEFAULT_LEVEL; runs below RUN_LEVEL_MIN_BYTES
 * change nothing. And the level a sort starts at keeps runs of gensort-style records, with
 * binary or printable keys, at or below what zstd level 1 makes of the same blocks. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "io/run_level.h"
#include "tests/tap.h"

#define MIB (1024.0 * 1024.0)

/* A finished run of `bytes` raw bytes: compressed at `ratio` by `threads` threads at
 * compress_rate (raw MiB/s, all threads), written at write_rate (file MiB/s), or stored. */
static struct run_file_stats run(double mib, bool stored, int level, double ratio, double compress_rate,
				 double write_rate)
{
	unsigned threads = 2;
	double bytes = mib * MIB, file = stored ? bytes : bytes / ratio;
	return (struct run_file_stats){
		.bytes = (uint64_t)bytes, .file_bytes = (uint64_t)file, .behind_bytes = (uint64_t)file, .stored = stored,
		.level = stored ? 0 : level, .threads = threads,
		.compress_seconds = stored ? 0 : bytes / (compress_rate * MIB) * threads,
		.write_seconds = file / (write_rate * MIB),
	};
}

#define RECORD_BYTES 100
#define KEY_BYTES 10
#define BLOCK_RECORDS 10444 /* 1 MiB blocks, as the spill writes them */

static int compare_keys(const void *a, const void *b)
{
	return memcmp(a, b, KEY_BYTES);
}

/* count sorted gensort-style records: a 10-byte key (printable, or any bytes), two
 * spaces, the record's number in 32 hex digits, two spaces, 52 filler bytes drawn from
 * the number, CR LF. */
static unsigned char *gensort_records(size_t count, bool printable)
{
	static const char hex[] = "0123456789ABCDEF";
	unsigned char *records = malloc(count * RECORD_BYTES);
	uint64_t state = 7;
	for (size_t i = 0; i < count; i++) {
		unsigned char *r = records + i * RECORD_BYTES;
		for (int k = 0; k < KEY_BYTES; k++) {
			state = state * 6364136223846793005ull + 1442695040888963407ull;
			unsigned byte = (unsigned)(state >> 56);
			r[k] = (unsigned char)(printable ? ' ' + byte % 95 : byte);
		}
		r[10] = r[11] = ' ';
		for (int k = 0; k < 32; k++)
			r[12 + k] = (unsigned char)hex[k < 16 ? 0 : (i >> (4 * (31 - k))) & 15];
		r[44] = r[45] = ' ';
		for (int k = 0; k < 52; k++)
			r[46 + k] = (unsigned char)hex[(i + (size_t)k / 4) & 15];
		r[98] = '\r';
		r[99] = '\n';
	}
	qsort(records, count, RECORD_BYTES, compare_keys);
	return records;
}

/* Issue 14: runs of compressible records keep at least zstd level 1's ratio on the same
 * blocks as they are. A run of sorted records written the way the spill writes them
 * (keys XORed, at the level a sort starts at) against ZSTD_compress at level 1 of each
 * block; the file's index and footer count against the run. */
static void first_level_ratio(bool printable)
{
	size_t count = 3 * BLOCK_RECORDS + 777;
	unsigned char *records = gensort_records(count, printable);
	struct run_level choice;
	run_level_init(&choice, RUN_PREFIX_XOR_LEVEL);
	struct run_writer_options options = {.transform = RUN_TRANSFORM_PREFIX_XOR, .element_bytes = RECORD_BYTES,
					     .prefix_bytes = KEY_BYTES, .threads = 2};
	run_level_apply(&choice, &options);
	FILE *file = tmpfile();
	struct run_writer *writer = NULL;
	struct run_file_stats stats = {0};
	int error = file ? run_writer_open(fileno(file), &options, &writer) : -1;
	size_t zstd_bytes = 0, bound = ZSTD_compressBound(BLOCK_RECORDS * RECORD_BYTES);
	unsigned char *compressed = malloc(bound);
	for (size_t first = 0; first < count && !error; first += BLOCK_RECORDS) {
		size_t n = count - first < BLOCK_RECORDS ? count - first : BLOCK_RECORDS;
		const unsigned char *block = records + first * RECORD_BYTES;
		error = run_writer_append_block(writer, block, n * RECORD_BYTES, n, block, KEY_BYTES);
		size_t got = ZSTD_compress(compressed, bound, block, n * RECORD_BYTES, 1);
		if (ZSTD_isError(got))
			error = -1;
		zstd_bytes += got;
	}
	if (writer && !error)
		error = run_writer_finish(writer, &stats);
	else if (writer)
		run_writer_abort(writer);
	double raw = (double)count * RECORD_BYTES;
	tap_ok(!error && stats.file_bytes > 0 && stats.file_bytes <= zstd_bytes,
	       "%s keys: the run at level %d holds %llu bytes (ratio %.3f), zstd level 1 of the blocks %zu (%.3f)",
	       printable ? "printable" : "binary", options.level, (unsigned long long)stats.file_bytes,
	       stats.file_bytes ? raw / (double)stats.file_bytes : 0, zstd_bytes, zstd_bytes ? raw / (double)zstd_bytes : 0);
	free(compressed);
	free(records);
	if (file)
		fclose(file);
}

int main(void)
{
	struct run_level choice;
	struct run_writer_options options = {0};

	run_level_init(&choice, RUN_DEFAULT_LEVEL);
	run_level_apply(&choice, &options);
	tap_ok(options.level == RUN_DEFAULT_LEVEL && !options.stored, "the first run: level %d, compressed",
	       RUN_DEFAULT_LEVEL);

	struct run_file_stats fast_disk = run(64, false, 1, 1.5, 800, 3000);
	run_level_update(&choice, &fast_disk);
	tap_ok(choice.stored, "a disk taking 3000 MiB/s, a compressor making 800: stored");
	struct run_file_stats stored_fast = run(64, true, 0, 1, 800, 2500);
	run_level_update(&choice, &stored_fast);
	tap_ok(choice.stored, "a stored run still writing faster than the compressor: stored again");
	struct run_file_stats stored_slow = run(64, true, 0, 1, 800, 300);
	run_level_update(&choice, &stored_slow);
	run_level_apply(&choice, &options);
	tap_ok(!options.stored && options.level == 1,
	       "a stored run writing at 300 MiB/s: back to zstd at the level measured (%d)", options.level);
	run_level_update(&choice, &fast_disk);
	tap_ok(!choice.stored, "then a compressed run that never waited for the disk: still zstd");

	run_level_init(&choice, RUN_DEFAULT_LEVEL);
	struct run_file_stats not_by_enough = run(256, false, 1, 6, 800, 1000);
	run_level_update(&choice, &not_by_enough);
	tap_ok(!choice.stored && choice.write_rate > 0, "a disk at 1000 MiB/s, a compressor at 800 with ratio 6: zstd (the merge "
	       "would read 6 times the bytes back)");

	run_level_init(&choice, RUN_DEFAULT_LEVEL);
	struct run_file_stats records_fast_disk = run(256, false, 1, 6.5, 1300, 2600);
	run_level_update(&choice, &records_fast_disk);
	tap_ok(!choice.stored && choice.level == RUN_DEFAULT_LEVEL,
	       "records at ratio 6.5, a disk at 2600 MiB/s, a compressor at 1300: zstd level %d (storing would put "
	       "6.5 times the bytes on the disk)", choice.level);
	struct run_file_stats records_memory = run(256, false, 1, 6.5, 1300, 20000);
	run_level_update(&choice, &records_memory);
	tap_ok(choice.stored, "the same records and a temp directory at 20000 MiB/s: stored");

	run_level_init(&choice, RUN_DEFAULT_LEVEL);
	int levels[5];
	for (int i = 0; i < 5; i++) {
		/* each level gains a little ratio */
		struct run_file_stats slow_disk = run(64, false, choice.level, 1.5 + 0.05 * choice.level, 4000, 100);
		run_level_update(&choice, &slow_disk);
		levels[i] = choice.level;
	}
	tap_ok(levels[0] == 2 && levels[1] == 3 && levels[4] == RUN_LEVEL_MAX && !choice.stored,
	       "a compressor 25 times faster than a 100 MiB/s disk: levels %d %d %d %d %d", levels[0],
	       levels[1], levels[2], levels[3], levels[4]);
	for (int i = 0; i < 4; i++) {
		struct run_file_stats slow_compressor = run(64, false, choice.level, 1.5 + 0.05 * choice.level, 200, 180);
		run_level_update(&choice, &slow_compressor);
		levels[i] = choice.level;
	}
	tap_ok(levels[0] == 2 && levels[1] == 1 && levels[3] == RUN_DEFAULT_LEVEL && !choice.stored,
	       "a compressor slower than the disk takes at its ratio: down to level %d, not stored (%d %d %d %d)",
	       RUN_DEFAULT_LEVEL, levels[0], levels[1], levels[2], levels[3]);

	run_level_init(&choice, RUN_DEFAULT_LEVEL);
	for (int i = 0; i < 4; i++) {
		/* records whose ratio falls at level 2 (6.52 at level 1, 6.50 at 2) */
		double ratio = choice.level == 1 ? 6.52 : 6.50;
		struct run_file_stats worse_higher = run(256, false, choice.level, ratio, 4000, 50);
		run_level_update(&choice, &worse_higher);
		levels[i] = choice.level;
	}
	tap_ok(levels[0] == 2 && levels[1] == 1 && levels[2] == 1 && levels[3] == 1 && choice.level_limit == 1,
	       "a level that loses ratio: back to level 1 and no higher (%d %d %d %d)", levels[0], levels[1], levels[2],
	       levels[3]);

	/* a floor below 1 (RUN_TRANSFORM_PREFIX_XOR's runs): level 1 first, up to 3, down to the floor */
	run_level_init(&choice, RUN_PREFIX_XOR_LEVEL);
	run_level_apply(&choice, &options);
	int first = options.level;
	for (int i = 0; i < 3; i++) {
		struct run_file_stats slow_disk = run(256, false, choice.level, 6.0 + 0.1 * choice.level, 4000, 100);
		run_level_update(&choice, &slow_disk);
		levels[i] = choice.level;
	}
	for (int i = 3; i < 5; i++) {
		struct run_file_stats slow_compressor = run(256, false, choice.level, 6.0 + 0.1 * choice.level, 200, 180);
		run_level_update(&choice, &slow_compressor);
		levels[i] = choice.level;
	}
	for (int i = 0; i < 3; i++) {
		struct run_file_stats slow_compressor = run(256, false, choice.level, 6.0 + 0.1 * choice.level, 200, 180);
		run_level_update(&choice, &slow_compressor);
	}
	tap_ok(first == RUN_DEFAULT_LEVEL && levels[0] == 2 && levels[1] == 3 && levels[2] == 3 && levels[3] == 2 &&
		       levels[4] == 1 && choice.level == RUN_PREFIX_XOR_LEVEL,
	       "from level %d: up %d %d %d, down %d %d, then no lower than %d (%d)", first, levels[0], levels[1],
	       levels[2], levels[3], levels[4], RUN_PREFIX_XOR_LEVEL, choice.level);

	run_level_init(&choice, RUN_DEFAULT_LEVEL);
	struct run_file_stats tiny = run(1, false, 1, 1.5, 100, 100000);
	run_level_update(&choice, &tiny);
	tap_ok(!choice.stored && choice.level == RUN_DEFAULT_LEVEL && choice.compress_rate == 0,
	       "a run of 1 MiB measures nothing");
	struct run_file_stats short_file = run(12, false, 1, 1.5, 800, 100000);
	run_level_update(&choice, &short_file);
	tap_ok(!choice.stored && choice.compress_rate > 0 && choice.write_rate == 0,
	       "a run whose file is 8 MiB times the compressor, not the disk: no stored blocks yet");
	struct run_file_stats no_wait = run(64, false, 1, 1.5, 800, 1);
	no_wait.write_seconds = 0;
	run_level_update(&choice, &no_wait);
	tap_ok(choice.stored, "a run whose writes never held the writer up: stored next");

	run_level_init(&choice, RUN_DEFAULT_LEVEL);
	struct run_file_stats cached = run(256, false, 1, 1.5, 800, 100000);
	cached.behind_bytes = 0;
	run_level_update(&choice, &cached);
	tap_ok(!choice.stored && choice.write_rate == 0 && choice.compress_rate > 0,
	       "a run left to the page cache (io/cache_budget.h) times no disk: compressed, the disk unmeasured");
	struct run_file_stats partly = run(256, false, 1, 1.5, 800, 300);
	partly.write_seconds = 4 * MIB / (300 * MIB);
	partly.behind_bytes = 4 << 20;
	run_level_update(&choice, &partly);
	tap_ok(choice.write_rate == 0, "one that wrote 4 MiB behind its allowance: still unmeasured");
	partly.behind_bytes = 64 << 20;
	partly.write_seconds = 64 / 300.0;
	run_level_update(&choice, &partly);
	tap_ok(choice.write_rate > 299 * MIB && choice.write_rate < 301 * MIB,
	       "one that wrote 64 MiB behind in the time 300 MiB/s takes: the disk's rate is its (%.0f MiB/s)",
	       choice.write_rate / MIB);
	first_level_ratio(false);
	first_level_ratio(true);
	return tap_done();
}
