/* Per-stage times and byte counts for --stats. */
#ifndef GPUSORT_STATS_H
#define GPUSORT_STATS_H

#include <stdint.h>

enum stats_stage {
	STAGE_READ,    /* input bytes read */
	STAGE_PREPARE, /* records or lines turned into items */
	STAGE_SORT,    /* the engine sorting items */
	STAGE_SPILL,   /* runs compressed and written to temp files */
	STAGE_MERGE,   /* runs merged */
	STAGE_WRITE,   /* output bytes gathered and written */
	STAGE_COUNT
};

struct sort_stats {
	double seconds[STAGE_COUNT];
	uint64_t bytes[STAGE_COUNT];
	uint64_t records;
	uint64_t runs;
	uint64_t merge_passes;
	uint64_t temp_bytes;       /* compressed bytes written to temp files */
	uint64_t temp_raw_bytes;   /* the same before compression */
	double started;
	const char *engine;        /* the sort engine's description */
	const char *fallback;      /* why the GPU was not used, or NULL */
};

double stats_now(void);
void stats_begin(struct sort_stats *stats);
/* Adds the time since `since` and the bytes to a stage; returns the current time. */
double stats_add(struct sort_stats *stats, enum stats_stage stage, double since, uint64_t bytes);
/* Writes the table to stderr. */
void stats_print(const struct sort_stats *stats);

#endif
