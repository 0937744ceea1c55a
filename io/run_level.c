/* SPDX-License-Identifier: MIT */
/* The choice of the next run's compression (see run_level.h).
 * Stored blocks save the compressor's time in the spill, but every stored run puts the
 * ratio's worth of bytes more on the temp directory: written, held in the page cache (or
 * a memory cgroup, or tmpfs's memory), and read back by the merge, on the disk that the
 * output needs at the same time. Storing is chosen only where the disk takes the raw
 * bytes faster than the compressor by at least that ratio:
 *     write_rate > ratio * compress_rate
 * Keys that compress little (random u64 keys, ratio about 1.5) get stored blocks on
 * tmpfs as before (the rule was write_rate > (2 - 1/ratio) * compress_rate, within 15%
 * of this one there); compressible records (ratio 6 and more) keep zstd on any disk,
 * where the rule before stored some of their runs on a disk that a host caches, and the
 * sort ended at a lower ratio.
 * A higher level is kept only while it gains ratio: on sorted records with a text
 * payload level 2 and 3 compress to less than level 1 at half its speed. */
#include "config.h"
#include "run_level.h"

/* A run whose writes cost the writer thread no time at all: a disk this fast. */
#define RUN_LEVEL_UNMEASURED_WRITE_RATE 1e12

void run_level_init(struct run_level *choice, int floor)
{
	if (floor > RUN_DEFAULT_LEVEL || floor == 0)
		floor = RUN_DEFAULT_LEVEL;
	*choice = (struct run_level){.floor = floor, .level = RUN_DEFAULT_LEVEL, .level_limit = RUN_LEVEL_MAX};
}

/* The ladder of levels: floor, then 1, 2, 3 (zstd's 0 means its default, 3). */
static int level_above(int level)
{
	return level < 1 ? 1 : level + 1;
}

static int level_below(const struct run_level *choice, int level)
{
	return level > 1 ? level - 1 : choice->floor;
}

static int level_slot(int level)
{
	return level < 1 ? 0 : level;
}

void run_level_apply(const struct run_level *choice, struct run_writer_options *options)
{
	options->level = choice->level;
	options->stored = choice->stored;
}

/* A compressed run's ratio at its level: a level above the floor that does not beat the
 * one below it caps the levels there. */
static void run_level_learn_ratio(struct run_level *choice, int level)
{
	if (level < choice->floor || level > RUN_LEVEL_MAX || (level < 1 && level != choice->floor))
		return;
	choice->level_ratio[level_slot(level)] = choice->ratio;
	int lower = level_below(choice, level);
	double below = level > choice->floor ? choice->level_ratio[level_slot(lower)] : 0;
	if (below > 0 && choice->ratio <= below && choice->level_limit > lower)
		choice->level_limit = lower;
}

void run_level_update(struct run_level *choice, const struct run_file_stats *stats)
{
	if (stats->bytes < RUN_LEVEL_MIN_BYTES || stats->file_bytes == 0)
		return;
	/* runs that wrote less behind never waited for the device: they timed the page
	 * cache (and those left to it all along tell nothing of the disk) */
	if (stats->behind_bytes >= RUN_LEVEL_MIN_FILE_BYTES)
		choice->write_rate = stats->write_seconds > 0 ? (double)stats->behind_bytes / stats->write_seconds
							      : RUN_LEVEL_UNMEASURED_WRITE_RATE;
	if (!stats->stored && stats->compress_seconds > 0) {
		double threads = stats->threads ? (double)stats->threads : 1.0;
		choice->compress_rate = (double)stats->bytes / (stats->compress_seconds / threads);
		choice->ratio = (double)stats->bytes / (double)stats->file_bytes;
		run_level_learn_ratio(choice, stats->level);
	}
	if (choice->level > choice->level_limit)
		choice->level = choice->level_limit;
	if (choice->compress_rate <= 0 || choice->write_rate <= 0)
		return;
	double ratio = choice->ratio > 1 ? choice->ratio : 1;
	bool faster_disk = choice->write_rate > ratio * choice->compress_rate;
	if (stats->stored && !faster_disk)
		choice->stored_too_slow = true;
	if (faster_disk && !choice->stored_too_slow) {
		choice->stored = true;
		return;
	}
	bool was_stored = choice->stored;
	choice->stored = false;
	/* back from stored: first the level measured last */
	if (was_stored)
		return;
	/* the raw bytes a second the disk takes with zstd at the measured ratio */
	double compressed_disk_rate = choice->ratio * choice->write_rate;
	if (choice->compress_rate > 2 * compressed_disk_rate && choice->level < choice->level_limit)
		choice->level = level_above(choice->level);
	else if (choice->compress_rate < compressed_disk_rate && choice->level > choice->floor)
		choice->level = level_below(choice, choice->level);
}
