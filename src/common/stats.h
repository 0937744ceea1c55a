/* SPDX-License-Identifier: MIT */
/* Per-stage times and byte counts for --stats, and the --progress line they feed. */
#ifndef GPUSORT_STATS_H
#define GPUSORT_STATS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
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

/* --progress counts the bytes through each stage as they go, on whichever thread moves
 * them: the input read, sorted (chunk by chunk, and within a chunk by the steps its
 * sort reports through the thread pool), spilled as runs, and the output written. */
enum progress_stage { PROGRESS_READ, PROGRESS_SORT, PROGRESS_SPILL, PROGRESS_WRITE, PROGRESS_STAGES };

struct thread_pool;
struct sort_progress {
	int64_t total;                               /* input bytes, -1 when unknown */
	atomic_uint_least64_t moved[PROGRESS_STAGES];
	atomic_uint_least64_t steps;                 /* the pool's steps (thread_pool_progress) */
	atomic_uint_least64_t chunk_bytes;           /* the chunk being sorted (0: none) */
	atomic_uint_least64_t chunk_steps;           /* the steps its sort takes */
	atomic_uint_least64_t chunk_from;            /* steps when it began */
	atomic_bool spills;                          /* chunks go to runs: a stage more */
	atomic_bool read_all;                        /* the input has ended: its size is known */
	struct thread_pool *pool;                    /* the pool counting steps into it */
	/* the drawing thread's own */
	double shown;                                /* the fraction drawn last (it never falls) */
	double first_moved[PROGRESS_STAGES];         /* when each stage was first seen moving */
	bool stop;
	pthread_t thread;
};

/* zstd levels counted apart in --stats (higher ones count as the last) */
#define STATS_SPILL_LEVELS 10

struct sort_stats {
	double seconds[STAGE_COUNT];
	uint64_t bytes[STAGE_COUNT];
	uint64_t records;
	uint64_t runs;
	uint64_t merge_passes;
	uint64_t temp_bytes;       /* compressed bytes written to temp files */
	uint64_t temp_raw_bytes;   /* the same before compression */
	uint64_t temp_live_bytes;  /* temp bytes on disk now (the runs not yet removed) */
	uint64_t temp_peak_bytes;  /* the most that were on disk at once */
	/* how runs were written (io/run_level.h): runs per zstd level, index 0 the runs
	 * stored uncompressed; the compressors' time (all threads added up) on the raw bytes
	 * they compressed, and the temp directory's time with writes in flight */
	uint64_t spill_level_runs[STATS_SPILL_LEVELS];
	uint64_t spill_fast_runs[STATS_SPILL_LEVELS]; /* at zstd's fast level -index (index 0 unused) */
	uint64_t spill_program_runs; /* runs written through --compress-program's PROG */
	uint64_t spill_program_unstarted_runs; /* and those stored without it: no process left */
	uint64_t spill_compressed_bytes;
	double spill_compress_seconds;
	unsigned spill_threads;
	uint64_t spill_written_bytes;
	double spill_write_seconds;
	uint64_t spill_cached_bytes; /* of those, left to the page cache (io/cache_budget.h) */
	uint64_t output_mapped_bytes; /* the output's bytes copied through a mapping (io/file_map.h) */
	uint64_t output_uncached_bytes; /* the output's bytes written past the page cache (O_DIRECT) */
	uint64_t output_moved_bytes;    /* -u: the output's bytes moved down into place after the merge */
	double started;
	bool progress;             /* --progress on a terminal: the line is drawn (see below) */
	struct sort_progress line;
	const char *engine;        /* the sort engine's description */
	double engine_seconds;     /* opening it (a GPU: creating the CUDA context) */
	double engine_wait_seconds; /* of that, the sort's wait for it (opened during the read) */
	const char *fallback;      /* why the GPU was not used, or NULL */
	/* the self-check (verify.h): whether it ran, and its time per thread, spent inside
	 * the stages above (it rides on their passes) */
	bool verified;
	double verify_seconds;
	uint64_t verified_records;
};

double stats_now(void);
void stats_begin(struct sort_stats *stats);
/* Adds the time since `since` and the bytes to a stage; returns the current time. */
double stats_add(struct sort_stats *stats, enum stats_stage stage, double since, uint64_t bytes);
/* A stage that encloses others (a merge around the reads of its inputs and the writes
 * of its output, an output's gathering around its writes) takes the time they leave:
 * note stats_seconds_recorded() when it begins, and stats_add_enclosing() adds the
 * time since `since` less what every stage recorded meanwhile, so no second is
 * counted twice and the rows add up. Returns the current time. */
double stats_seconds_recorded(const struct sort_stats *stats);
double stats_add_enclosing(struct sort_stats *stats, enum stats_stage stage, double since,
			   double recorded_before, uint64_t bytes);
/* Temp files: bytes added when a run is finished, removed when it is deleted. */
void stats_temp_add(struct sort_stats *stats, uint64_t bytes);
void stats_temp_remove(struct sort_stats *stats, uint64_t bytes);

/* Starts the progress line when wanted and stderr is a terminal; total_bytes is the
 * input's size (-1 when unknown). A thread redraws it four times a second, also while
 * a stage moves no bytes (a slow pipe): the stage, its bytes, and the time left from
 * the bytes every stage still has to move. Call from the thread driving the sort. */
void stats_progress_start(struct sort_stats *stats, bool wanted, int64_t total_bytes);
/* The pool counts the steps of the sorts it runs into the line (thread_pool.h), until
 * stats_progress_finish. */
void stats_progress_watch(struct sort_stats *stats, struct thread_pool *pool);
/* Bytes moved through a stage, any thread; nothing without a line. */
void stats_progress_add(struct sort_stats *stats, enum progress_stage stage, uint64_t bytes);
/* A chunk of bytes input bytes begins its sort, of about steps steps (thread_pool_progress
 * calls: a sort of n items makes n); its end counts it sorted whole. */
void stats_progress_chunk_begin(struct sort_stats *stats, uint64_t bytes, uint64_t steps);
void stats_progress_chunk_end(struct sort_stats *stats);
/* The input goes to runs: spilling is a stage of the sort. */
void stats_progress_spills(struct sort_stats *stats);
/* The input has ended: what was read is its size, where it was not known (a pipe). */
void stats_progress_read_all(struct sort_stats *stats);
/* Stops the thread. After a sort that completed, the line is drawn a last time at
 * 100% and kept (a newline ends it); otherwise it is erased. Does nothing twice. */
void stats_progress_finish(struct sort_stats *stats, bool completed);
/* Takes the progress line off the terminal, if one is drawn, and holds it off until
 * stats_progress_resume(), so that a message prints on a line of its own; the next
 * redraw puts the line back below it. Any thread. */
void stats_progress_interrupt(void);
void stats_progress_resume(void);

/* Writes the table to stderr. */
void stats_print(const struct sort_stats *stats);
/* Puts "LABEL: " after "gpusort: stats: " on every line the calling job's stats_print
 * prints from now on (NULL or "": nothing); the label is the job's (job_context.h). */
void stats_set_label(const char *label);

#endif
