/* SPDX-License-Identifier: MIT */
/* How the next run is written, chosen from what the runs before it measured: the
 * compressor threads' throughput (raw bytes a second, all of them together) against the
 * temp directory's (file bytes a second of the writer thread's time in the writes, the
 * wait for the device included: run files are written behind, see run_file.h, so a page
 * cache does not pass for a fast disk).
 * A temp directory that takes raw bytes faster than zstd makes them by the measured
 * ratio (tmpfs, for keys that compress little; run_level.c says why the ratio) gets
 * stored blocks, until a stored run shows it slower than that; then zstd for good, at a
 * higher level while the compressor has more than twice the time the disk leaves it and
 * the higher level still gains ratio, a lower one (never below the sort's floor) when it
 * is the slower of the two. The levels go floor, 1, 2, 3, where a floor below 1 is one
 * of zstd's fast levels, for blocks whose transform makes up some of the ratio they give
 * up (RUN_TRANSFORM_PREFIX_XOR). Every sort starts at level 1, those too: level -1 leaves
 * literals unencoded, and on records with printable keys its ratio falls below what
 * zstd level 1 makes of the same blocks as they are (gensort-style records, 200 MB in
 * 1 MiB blocks: 6.85 against 7.64). */
#ifndef GPUSORT_RUN_LEVEL_H
#define GPUSORT_RUN_LEVEL_H

#include <stdbool.h>
#include <stdint.h>
#include "run_file.h"

/* Runs smaller than this measure too little to change the choice. */
#define RUN_LEVEL_MIN_BYTES ((uint64_t)4 << 20)
/* A run's file must be this long for its write time to be the disk's (two write-behind
 * windows, see run_file.h); shorter ones leave the disk's rate as it was (unmeasured at
 * first: no stored blocks until a run has measured it). */
#define RUN_LEVEL_MIN_FILE_BYTES ((uint64_t)2 * RUN_WRITE_BEHIND_BYTES)
/* The highest level chosen: above it zstd slows much more than its ratio grows on
 * sorted blocks (numbers in run_writer.c). */
#define RUN_LEVEL_MAX 3

struct run_level {
	int floor;                 /* the lowest level: RUN_DEFAULT_LEVEL or below */
	int level;                 /* the next run's zstd level */
	int level_limit;           /* the highest level worth trying: one whose ratio did
				      not beat the level below caps it there */
	bool stored;               /* the next run stores its blocks */
	bool stored_too_slow;      /* a stored run wrote slower than zstd compresses */
	double compress_rate;      /* raw bytes/s of all compressor threads; 0: not measured */
	double ratio;              /* raw bytes over file bytes, at that level */
	double level_ratio[RUN_LEVEL_MAX + 1]; /* the last ratio measured at each level (a
						  floor below 1 in slot 0) */
	double write_rate;         /* file bytes/s of the temp directory, as the last run saw */
};

/* Runs start at RUN_DEFAULT_LEVEL. floor: the level never to go below, RUN_DEFAULT_LEVEL
 * or one of zstd's negative (fast) levels, which a compressor slower than the disk may
 * need. */
void run_level_init(struct run_level *choice, int floor);
/* The next run's level and whether it is stored, into options. */
void run_level_apply(const struct run_level *choice, struct run_writer_options *options);
/* Learns from a finished run and chooses the next. */
void run_level_update(struct run_level *choice, const struct run_file_stats *stats);

#endif
