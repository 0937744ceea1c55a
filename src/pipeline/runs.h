/* SPDX-License-Identifier: MIT */
/* Runs of sorted records (either mode) in temp files: a run list, a sink that cuts sorted records into
 * compressed run blocks (each block's first key is its index entry), and merges of runs
 * into a sink or, pass by pass, into fewer runs. */
#ifndef GPUSORT_BINARY_RUNS_H
#define GPUSORT_BINARY_RUNS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../../io/compress_program.h"
#include "../../io/run_file.h"
#include "../../io/run_level.h"
#include "merge.h"
#include "../binary/record_items.h"
#include "../common/stats.h"

/* A merge reading block b of a run has asked the kernel for blocks up to b + this
 * (run_reader_prefetch), so the disk works while the merge does. */
#define RUN_PREFETCH_BLOCKS 2

/* A finished run holds no descriptor (fd -1) between merges: its index stays in memory
 * (the reader) and its file is known by its path, a registered temp file (removed on a
 * signal), opened again by the merge that reads it (run_list_attach).
 * A run of a list with a compress program (--compress-program) is written through
 * PROG and read back through `PROG -d`, in order only (piped): its file holds PROG's
 * output; child is the PROG writing it, or the `PROG -d` a merge reads it from. Where
 * PROG could not be started for want of processes, the run is written without it, as
 * GNU sort does: a run file of blocks stored uncompressed, read as any other run. */
struct run {
	char path[PATH_MAX]; /* empty: the slot holds no file */
	int fd;              /* while it is written, and while a merge reads it */
	struct run_reader *reader;
	struct compress_child child;
	bool piped;          /* written through PROG: read back through PROG -d */
	uint64_t file_bytes;
	uint64_t bytes;      /* its records' bytes, uncompressed */
};

/* What a job says of its runs, the temp files a sort spills to and merges from. Every
 * run list carries it (and the lists merged from it), so that a setting added here
 * reaches the run writer and reader without a new parameter on the way. */
struct run_settings {
	const char **temp_dirs;  /* -T, in order; none: $TMPDIR, else /tmp (temp_files_init) */
	size_t temp_dir_count;
	const char *compress_program; /* --compress-program's PROG, or NULL: zstd in-process */
};

struct run_list {
	struct run *runs;
	size_t count;
	/* how its runs are written: compressor threads and blocks in flight per writer
	 * (0: run_file's defaults), and the level chosen from the runs so far */
	unsigned writer_threads;
	unsigned writer_depth;
	struct run_level level;
	const struct run_settings *settings; /* the job's */
	uint64_t cached_bytes;      /* file bytes its runs left to the page cache, not
				       written behind (io/cache_budget.h) */
};

/* The list's --compress-program, or NULL (no settings: none). */
static inline const char *run_list_program(const struct run_list *list)
{
	return list->settings ? list->settings->compress_program : NULL;
}

/* Collects sorted records into blocks of whole records and appends them to a run file. */
struct run_sink {
	const struct record_order *order;
	struct run_writer *writer;
	unsigned char *block;       /* block_bytes + RUN_BLOCK_SPARE_BYTES allocated */
	size_t block_capacity;
	size_t block_bytes;
	size_t filled;
	size_t run_index;           /* its run in the list */
	struct sort_stats *stats;
};

/* The records' bytes in all runs of the list (what merging them reads). */
uint64_t run_list_bytes(const struct run_list *list);

/* Closes and removes every run of the list and empties it. */
void run_list_remove_all(struct run_list *list, struct sort_stats *stats);

/* Starts a new run file at the end of list and a sink writing into it. */
int run_begin(struct run_list *list, const struct record_order *order, size_t block_bytes,
	      struct run_sink *sink, struct sort_stats *stats);
/* The same for the run in slot index of list, which holds it already (a merge pass's
 * output, one slot per group). */
int run_begin_at(struct run_list *list, size_t index, const struct record_order *order, size_t block_bytes,
		 struct run_sink *sink, struct sort_stats *stats);

/* record_sink: appends count sorted records to the sink's run. */
int run_sink_write(void *context, const unsigned char *records, size_t bytes, size_t count);

/* Finishes the sink's run (or abandons it when error is set) and opens it for reading.
 * Returns error, or the first error of finishing. */
int run_end(struct run_list *list, struct run_sink *sink, int error);

/* Abandons the sink's run without a word, where what failed to fill it has been
 * reported by its own name; run_list_remove_all() removes its file. */
void run_abandon(struct run_sink *sink);

/* Merges runs [first, first + k) of list into sink (merge.h) with one loser tree. Runs not open are opened here and
 * closed at its end; runs through a compress program are read through a `PROG -d`
 * each, started here and waited for when its run ends.
 * *failed (when not NULL): below k when a run failed, which has been reported; k when
 * the sink or memory did (see merge_records). */
int merge_runs(const struct record_order *order, struct sort_verify *verify, struct run_list *list, size_t first,
	       size_t k, const struct merge_sink *sink, size_t *failed);

/* merge_runs in three steps, for a caller that opens the output between the runs and
 * their merge (so that what the output opens beside what it needs takes only the
 * descriptors the runs leave): merge_runs_begin opens the runs not open and starts
 * their `PROG -d`s, reporting a failure (*failed: the run, or k for memory), and
 * hands over *merge (NULL on failure); merge_runs_into merges them into sink (once);
 * merge_runs_end closes what begin opened and waits for the PROGs (NULL: nothing). */
struct run_merge;
int merge_runs_begin(struct run_list *list, size_t first, size_t k, struct run_merge **merge, size_t *failed);
int merge_runs_into(struct run_merge *merge, const struct record_order *order, struct sort_verify *verify,
		    bool to_output, size_t block_bytes, record_sink sink, void *sink_context, size_t *failed);
void merge_runs_end(struct run_merge *merge);

/* The descriptors this process may still open: RLIMIT_NOFILE's soft limit less those
 * open below it. */
size_t run_descriptors_free(void);

/* A finished run holds no descriptor: its reader keeps the index, and its file is
 * opened only while a merge reads it (merge_runs opens those not open and closes them
 * after). run_list_attach opens runs [first, first + k) (not those read through PROG
 * -d, which opens them itself), or none, reporting GNU sort's "open failed" by the
 * run's name; run_list_detach closes them. */
int run_list_attach(struct run_list *list, size_t first, size_t k);
void run_list_detach(struct run_list *list, size_t first, size_t k);

/* The fan-in the descriptors free now allow, for merges of the list's runs: fan_in (what
 * memory allows) at most, for *threads merges into runs at once, each holding a
 * descriptor per run it reads, the run it writes and, with a compress program, the
 * pipes of the PROG it starts; *threads becomes fewer where that leaves each merge but a
 * few runs. *last: the runs the last merge may take beside its output, which holds
 * output_descriptors. What only helps (io_uring rings) is counted while descriptors are
 * plenty and left to do without when they are short. At least 2 (*last at least 1):
 * where even those are not free, the merge fails as GNU sort's does, "open failed"
 * naming a run. */
size_t run_list_fan_in(const struct run_list *list, size_t fan_in, size_t output_descriptors, unsigned *threads,
		       size_t *last);

/* Merges groups of fan_in runs into new runs until no more than last (at most fan_in)
 * are left, up to threads groups at once (each within the fan-in's memory per thread). */
int merge_passes(const struct record_order *order, struct sort_verify *verify, struct run_list *list,
		 size_t fan_in, size_t last, size_t block_bytes, unsigned threads, struct sort_stats *stats);

#endif
