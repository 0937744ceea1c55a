/* The choice of the next run's compression (see run_level.h). A run costs about
 * raw / compress_rate + raw / ratio / disk_rate with zstd (spilled at the slower of
 * compressor and disk, read back at ratio times fewer bytes; decompression is several
 * times faster than compression), and 2 * raw / disk_rate stored (written and read back
 * whole): storing wins when disk_rate > (2 - 1 / ratio) * compress_rate, the disk faster
 * than the compressor by the bytes the merge would read back for it. */
#include "config.h"
#include "run_level.h"

/* A run whose writes cost the writer thread no time at all: a disk this fast. */
#define RUN_LEVEL_UNMEASURED_WRITE_RATE 1e12

void run_level_init(struct run_level *choice)
{
	*choice = (struct run_level){.level = RUN_DEFAULT_LEVEL};
}

void run_level_apply(const struct run_level *choice, struct run_writer_options *options)
{
	options->level = choice->level;
	options->stored = choice->stored;
}

void run_level_update(struct run_level *choice, const struct run_file_stats *stats)
{
	if (stats->bytes < RUN_LEVEL_MIN_BYTES || stats->file_bytes == 0)
		return;
	/* shorter runs never waited for the device: they timed the page cache */
	if (stats->file_bytes >= RUN_LEVEL_MIN_FILE_BYTES)
		choice->write_rate = stats->write_seconds > 0 ? (double)stats->file_bytes / stats->write_seconds
							      : RUN_LEVEL_UNMEASURED_WRITE_RATE;
	if (!stats->stored && stats->compress_seconds > 0) {
		double threads = stats->threads ? (double)stats->threads : 1.0;
		choice->compress_rate = (double)stats->bytes / (stats->compress_seconds / threads);
		choice->ratio = (double)stats->bytes / (double)stats->file_bytes;
	}
	if (choice->compress_rate <= 0 || choice->write_rate <= 0)
		return;
	double ratio = choice->ratio > 1 ? choice->ratio : 1;
	bool faster_disk = choice->write_rate > (2 - 1 / ratio) * choice->compress_rate;
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
	if (choice->compress_rate > 2 * compressed_disk_rate && choice->level < RUN_LEVEL_MAX)
		choice->level++;
	else if (choice->compress_rate < compressed_disk_rate && choice->level > RUN_DEFAULT_LEVEL)
		choice->level--;
}
