/* SPDX-License-Identifier: MIT */
/* Runs of binary records (see runs.h): creating, filling and finishing run files,
 * reading a run's blocks back in order, and merging runs with the loser tree into a
 * sink (the passes into fewer, longer runs: merge_passes.c). */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../../io/cache_budget.h"
#include "../../io/input_file.h"
#include "../../io/safe_fd.h"
#include "../../io/temp_files.h"
#include "runs.h"
#include "merge.h"
#include "../common/environment.h"
#include "../common/job_context.h"
#include "../common/report.h"
#include "../text/text_lines.h"

uint64_t run_list_bytes(const struct run_list *list)
{
	uint64_t bytes = 0;
	for (size_t i = 0; i < list->count; i++)
		bytes += list->runs[i].bytes;
	return bytes;
}

/* "'PROG' [-d] terminated abnormally", GNU sort's words for either direction. */
static void report_program_failure(const char *program)
{
	char quoted[PATH_MAX + 64];
	report("%s [-d] terminated abnormally", report_shell_quote(program, true, quoted, sizeof quoted));
}

/* The most descriptors counted free: more than any merge takes. */
#define DESCRIPTORS_COUNTED_MAX ((uint64_t)1 << 20)

size_t run_descriptors_free(void)
{
	struct rlimit limit;
	DIR *dir = getrlimit(RLIMIT_NOFILE, &limit) == 0 ? opendir("/proc/self/fd") : NULL;
	if (!dir) /* none left to open it with, or no /proc: counted by taking them */
		return errno == EMFILE ? 0 : input_file_descriptors_free(256);
	uint64_t most = limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur > DESCRIPTORS_COUNTED_MAX
				? DESCRIPTORS_COUNTED_MAX : (uint64_t)limit.rlim_cur;
	uint64_t used = 0;
	struct dirent *entry;
	while ((entry = readdir(dir)) != NULL) {
		char *end;
		unsigned long fd = strtoul(entry->d_name, &end, 10);
		/* the listing's own descriptor is free again once it is closed */
		if (end != entry->d_name && *end == '\0' && fd < most && (int)fd != dirfd(dir))
			used++;
	}
	closedir(dir);
	return most > used ? (size_t)(most - used) : 0;
}

/* What a merge holds beside one descriptor per run it reads (the parallel last merge
 * too: its threads share them). Into a run: the run it writes (its file, or the pipe to
 * PROG, which it may do without); with PROG, while a `PROG -d` starts, its run file and
 * the pipe's other end. The last merge: what the caller says its output takes (an -o
 * file and its temp twin, at once). Beside those, what helps but is not needed, opened
 * after the runs: a writer's io_uring ring, the /proc files a run writer reads for the
 * page cache's budget, and in the last merge a ring per merge thread and the output's
 * twin for direct writes; their users do without where none is free. */
#define MERGE_WRITE_DESCRIPTORS 1
#define PROGRAM_START_DESCRIPTORS 2
#define MERGE_SPARE_DESCRIPTORS 2
/* Merges at once get at least this many runs each (or the fan-in, if smaller), else
 * fewer merges run at once. */
#define MERGE_FAN_IN_FEW 8

/* The runs a merge into a run may read while `merges` such merges share `free`
 * descriptors, the spare ones counted or not; and those the last merge may read. */
static size_t pass_fan_in(size_t free, unsigned merges, bool piped, bool spare)
{
	/* its runs are opened first; then the run it writes, stored as it is where no
	 * descriptor is left for PROG's pipe */
	size_t beside = spare ? MERGE_WRITE_DESCRIPTORS + (piped ? PROGRAM_START_DESCRIPTORS : 0) +
					MERGE_SPARE_DESCRIPTORS
			      : piped ? PROGRAM_START_DESCRIPTORS : MERGE_WRITE_DESCRIPTORS;
	size_t each = free / merges;
	return each > beside ? each - beside : 0;
}

/* The last merge opens its runs (starting their `PROG -d`s) before its output. */
static size_t last_fan_in(size_t free, size_t output_descriptors, unsigned threads, bool piped, bool spare)
{
	size_t beside = piped && output_descriptors < PROGRAM_START_DESCRIPTORS ? PROGRAM_START_DESCRIPTORS
										 : output_descriptors;
	beside += spare ? MERGE_SPARE_DESCRIPTORS + threads : 0;
	return free > beside ? free - beside : 0;
}

size_t run_list_fan_in(const struct run_list *list, size_t fan_in, size_t output_descriptors, unsigned *threads,
		       size_t *last)
{
	size_t free = run_descriptors_free(), few = fan_in < MERGE_FAN_IN_FEW ? fan_in : MERGE_FAN_IN_FEW;
	bool piped = run_list_program(list) != NULL, spare = true;
	unsigned merges = *threads ? *threads : 1;
	while (merges > 1 && pass_fan_in(free, merges, piped, spare) < few)
		merges--;
	size_t pass = pass_fan_in(free, merges, piped, spare);
	if (pass < 2) /* the spare ones left out: every descriptor for the runs */
		pass = pass_fan_in(free, merges, piped, spare = false);
	size_t final = last_fan_in(free, output_descriptors, *threads, piped, spare);
	fan_in = fan_in < pass ? fan_in : pass;
	fan_in = fan_in < 2 ? 2 : fan_in; /* fewer: the merge fails as GNU sort's, by a run's name */
	*last = final < fan_in ? final : fan_in;
	if (*last < 1)
		*last = 1;
	*threads = merges;
	return fan_in;
}

static void run_detach(struct run *run)
{
	if (run->fd < 0)
		return;
	if (run->reader)
		run_reader_detach(run->reader);
	close(run->fd);
	run->fd = -1;
}

/* Opens a finished run's file for its reader, unless it is open or comes through
 * PROG -d (which opens it itself); GNU sort's words where it cannot. */
static int run_attach(struct run *run)
{
	if (run->fd >= 0 || run->piped || !run->reader)
		return 0;
	int fd = fd_safer(open(run->path, O_RDONLY | O_CLOEXEC));
	if (fd < 0) {
		int error = -errno;
		report_file_failure("open failed", run->path, error);
		return error;
	}
	run->fd = fd;
	run_reader_attach(run->reader, fd);
	return 0;
}

int run_list_attach(struct run_list *list, size_t first, size_t k)
{
	for (size_t i = first; i < first + k; i++) {
		int error = run_attach(&list->runs[i]);
		if (error) {
			run_list_detach(list, first, i - first);
			return error;
		}
	}
	return 0;
}

void run_list_detach(struct run_list *list, size_t first, size_t k)
{
	for (size_t i = first; i < first + k; i++)
		run_detach(&list->runs[i]);
}

void run_list_remove_all(struct run_list *list, struct sort_stats *stats)
{
	for (size_t i = 0; i < list->count; i++) {
		struct run *run = &list->runs[i];
		compress_child_finish(&run->child); /* one cut short: its end says nothing */
		run_detach(run);
		if (run->reader)
			run_reader_close(run->reader);
		if (run->path[0])
			temp_file_remove(run->path);
		stats_temp_remove(stats, run->file_bytes);
	}
	free(list->runs);
	list->runs = NULL;
	list->count = 0;
}

/* How many whole records block[0, bytes) holds. */
static size_t records_in(const struct record_order *order, const unsigned char *block, size_t bytes)
{
	return order->record_size ? bytes / order->record_size
				  : text_count_terminators((const char *)block, bytes, order->eol);
}

/* Appends block[0, bytes) of whole records to the run, its first record its index
 * entry (a line without its terminator). */
static int run_append(struct run_sink *sink, const unsigned char *block, size_t bytes)
{
	if (job_cancelled())
		return -ECANCELED;
	const struct record_order *order = sink->order;
	size_t step, first = record_length(order, block, bytes, &step), records = records_in(order, block, bytes);
	if (block == sink->block) /* the sink's own block goes over without a copy */
		return run_writer_append_exchange(sink->writer, (void **)&sink->block, &sink->block_capacity, bytes,
						  records, block, first);
	return run_writer_append_block(sink->writer, block, bytes, records, block, first);
}

static int run_sink_flush(struct run_sink *sink)
{
	if (sink->filled == 0)
		return 0;
	int error = run_append(sink, sink->block, sink->filled);
	sink->filled = 0;
	return error;
}

/* How much of bytes[0, len) (whole records) fits in room as whole records: 0 when
 * not even the first does. */
static size_t whole_records_within(const struct record_order *order, const unsigned char *bytes, size_t len,
				   size_t room)
{
	if (len <= room)
		return len;
	if (order->record_size)
		return room - room % order->record_size;
	const unsigned char *last = room ? memrchr(bytes, order->eol, room) : NULL;
	return last ? (size_t)(last - bytes) + 1 : 0;
}

/* Whole blocks of records (or of whole lines, each block cut after its last line) lent
 * to the writer straight from the caller's buffer (a chunk's gathered records), rather
 * than copied into the sink's block first: from a buffer this many blocks long, which
 * the sink may hold up while they compress. The merge passes' output, a block at a
 * time, is copied as before, so that merging goes on while the compressors work. */
#define RUN_SINK_LEND_BLOCKS 4

static int run_append_lent(struct run_sink *sink, const unsigned char *block, size_t bytes)
{
	if (job_cancelled())
		return -ECANCELED;
	size_t step, first = record_length(sink->order, block, bytes, &step);
	return run_writer_append_lent(sink->writer, block, bytes, records_in(sink->order, block, bytes), block, first);
}

int run_sink_write(void *context, const unsigned char *records, size_t bytes, size_t count)
{
	(void)count;
	struct run_sink *sink = context;
	stats_progress_add(sink->stats, PROGRESS_SPILL, bytes);
	if (bytes >= RUN_SINK_LEND_BLOCKS * sink->block_bytes) {
		int error = 0;
		if (sink->filled > 0) {
			/* the block begun by the call before, topped up and handed over first */
			size_t take = whole_records_within(sink->order, records, bytes, sink->block_bytes - sink->filled);
			memcpy(sink->block + sink->filled, records, take);
			sink->filled += take;
			records += take;
			bytes -= take;
			if ((error = run_sink_flush(sink)) != 0)
				return error;
		}
		while (bytes >= sink->block_bytes && !error) {
			size_t take = whole_records_within(sink->order, records, bytes, sink->block_bytes);
			if (take == 0)
				break; /* a line longer than a block: a block of its own, below */
			error = run_append_lent(sink, records, take);
			records += take;
			bytes -= take;
		}
		/* the caller's buffer is free again once its blocks are compressed */
		int waited = run_writer_wait_lent(sink->writer);
		if (error || waited)
			return error ? error : waited;
	}
	while (bytes > 0) {
		size_t take = whole_records_within(sink->order, records, bytes, sink->block_bytes - sink->filled);
		if (take == 0 && sink->filled == 0) {
			/* a line longer than a block is a block of its own, from where it lies */
			size_t step;
			record_length(sink->order, records, bytes, &step);
			int error = run_append(sink, records, step);
			if (error)
				return error;
			records += step;
			bytes -= step;
			continue;
		}
		memcpy(sink->block + sink->filled, records, take);
		sink->filled += take;
		records += take;
		bytes -= take;
		if (bytes > 0 || sink->filled == sink->block_bytes) {
			int error = run_sink_flush(sink);
			if (error)
				return error;
		}
	}
	return 0;
}

/* Sorted integer keys alone compress far better as deltas in byte planes (numbers in
 * io/run_writer.c). Records with payload whose key leads them have the key's bytes XORed
 * with the record before's, which raises zstd's ratio on them and lets them go down to
 * its fast level -1 where the compressor is the slower (io/run_file.h); lines are
 * stored as they are. */
static void run_options_for(const struct record_order *order, struct run_writer_options *options)
{
	memset(options, 0, sizeof *options);
	bool integer = order->kind != PREFIX_CALL, bare = integer && order->key_offset == 0 &&
		order->record_size == (order->kind == PREFIX_U32 || order->kind == PREFIX_I32 ? 4u : 8u);
	if (bare && !order->reverse_prefix) {
		options->transform = RUN_TRANSFORM_DELTA;
		options->element_bytes = order->record_size;
	} else if (!bare && order->record_size > order->fingerprint_size && order->fingerprint_offset == 0 &&
		   order->fingerprint_size > 0 && order->fingerprint_size <= RUN_PREFIX_XOR_MAX_PREFIX &&
		   order->record_size <= RUN_PREFIX_XOR_MAX_ELEMENT) {
		options->transform = RUN_TRANSFORM_PREFIX_XOR;
		options->element_bytes = order->record_size;
		options->prefix_bytes = order->fingerprint_size;
	}
}

int run_begin_at(struct run_list *list, size_t index, const struct record_order *order, size_t block_bytes,
		 struct run_sink *sink, struct sort_stats *stats)
{
	struct run *run = &list->runs[index];
	run->reader = NULL;
	run->file_bytes = 0;
	run->bytes = 0;
	run->child = (struct compress_child){0, -1};
	run->piped = false;
	run->fd = temp_file_create(run->path, sizeof run->path);
	if (run->fd < 0) {
		int error = run->fd;
		report_temp_create_error(run->path, error);
		run->path[0] = '\0';
		return error;
	}
	int writer_fd = run->fd;
	const char *program = run_list_program(list);
	if (program) {
		/* PROG writes the file; we write PROG. With no process left for it even
		 * after its tries, or no descriptor for its pipe, the run goes to the file
		 * without it, as GNU sort does */
		int error = compress_child_start(program, false, run->fd, &run->child);
		if (error != -EAGAIN && error != -EMFILE && error != -ENFILE) {
			close(run->fd);
			run->fd = -1;
			if (error) {
				report_error(error, "couldn't execute compress program: %s", strerror(-error));
				return error;
			}
			run->piped = true;
			writer_fd = run->child.pipe_fd;
		}
	}
	struct run_writer_options options;
	run_options_for(order, &options);
	options.stream = run->piped;
	if (list->level.level == 0)
		run_level_init(&list->level, options.transform == RUN_TRANSFORM_PREFIX_XOR ? RUN_PREFIX_XOR_LEVEL
											     : RUN_DEFAULT_LEVEL);
	run_level_apply(&list->level, &options);
	if (!run->piped) {
		/* what the page cache may still hold of the temp files: left to it */
		uint64_t budget = temp_cache_budget(run->fd, environment_size(ENVIRONMENT_TEMP_CACHE));
		options.cached_bytes = budget > list->cached_bytes ? budget - list->cached_bytes : 0;
	}
	options.threads = list->writer_threads;
	options.depth = list->writer_depth;
	if (program && !run->piped) {
		/* uncompressed, as GNU sort writes it, and by this thread alone: threads
		 * count as processes too, and none are to spare */
		options.stored = true;
		options.transform = RUN_TRANSFORM_NONE;
		options.on_caller = true;
	}
	memset(sink, 0, sizeof *sink);
	sink->order = order;
	sink->stats = stats;
	sink->run_index = index;
	/* fixed-size records: a whole number of them */
	if (order->record_size)
		block_bytes = (block_bytes / order->record_size ? block_bytes / order->record_size : 1) *
			      order->record_size;
	sink->block_bytes = block_bytes;
	sink->block_capacity = block_bytes + RUN_BLOCK_SPARE_BYTES;
	sink->block = malloc(sink->block_capacity);
	int error = sink->block ? run_writer_open(writer_fd, &options, &sink->writer) : -ENOMEM;
	if (error) {
		free(sink->block);
		compress_child_finish(&run->child);
		report_file_error(run->path, error);
	}
	return error;
}

/* Starts a new run file and a sink writing into it. */
int run_begin(struct run_list *list, const struct record_order *order, size_t block_bytes,
	      struct run_sink *sink, struct sort_stats *stats)
{
	struct run *grown = realloc(list->runs, (list->count + 1) * sizeof *grown);
	if (!grown)
		return -ENOMEM;
	list->runs = grown;
	list->runs[list->count].fd = -1;
	int error = run_begin_at(list, list->count, order, block_bytes, sink, stats);
	if (list->runs[list->count].path[0])
		list->count++;
	return error;
}

/* What the run measured: into --stats, and into the choice of the next run's level. */
static void run_end_stats(struct run_list *list, const struct run *run, struct sort_stats *stats,
			  const struct run_file_stats *file_stats)
{
	stats->runs++;
	if (run->piped) {
		stats->spill_program_runs++;
		stats->spill_written_bytes += file_stats->bytes;
		stats->spill_write_seconds += file_stats->write_seconds;
		return;
	}
	if (run_list_program(list))
		stats->spill_program_unstarted_runs++;
	int level = file_stats->stored ? 0 : file_stats->level;
	if (level >= STATS_SPILL_LEVELS)
		level = STATS_SPILL_LEVELS - 1;
	if (level < 0)
		stats->spill_fast_runs[-level < STATS_SPILL_LEVELS ? -level : STATS_SPILL_LEVELS - 1]++;
	else
		stats->spill_level_runs[level]++;
	if (!file_stats->stored) {
		stats->spill_compressed_bytes += file_stats->bytes;
		stats->spill_compress_seconds += file_stats->compress_seconds;
	}
	if (file_stats->threads > stats->spill_threads)
		stats->spill_threads = file_stats->threads;
	stats->spill_written_bytes += file_stats->file_bytes;
	stats->spill_write_seconds += file_stats->write_seconds;
	list->cached_bytes += file_stats->file_bytes - file_stats->behind_bytes;
	stats->spill_cached_bytes += file_stats->file_bytes - file_stats->behind_bytes;
	if (!run_list_program(list)) /* the level is zstd's, which PROG's runs never use */
		run_level_update(&list->level, file_stats);
}

/* Finishes a run written through PROG: its blocks into the pipe, then PROG's end (a
 * PROG that failed, the likely reason for a write that failed, is what is reported);
 * the run's size is its file's, PROG's output. */
static int run_finish_piped(struct run_list *list, struct run *run, struct run_sink *sink, int error,
			    struct run_file_stats *file_stats)
{
	bool given = error != 0;
	if (!error)
		error = run_writer_finish_stream(sink->writer, file_stats, &run->reader);
	else
		run_writer_abort(sink->writer);
	int ended = compress_child_finish(&run->child);
	if (ended == COMPRESS_CHILD_FAILED && !given) {
		report_program_failure(run_list_program(list));
		return ended;
	}
	if (!error)
		error = ended;
	if (error) {
		report_file_failure("write failed", run->path, error);
		return error;
	}
	struct stat st;
	if (stat(run->path, &st) == 0)
		file_stats->file_bytes = (uint64_t)st.st_size;
	return 0;
}

/* Finishes the sink's run and opens it for reading. */
int run_end(struct run_list *list, struct run_sink *sink, int error)
{
	struct run *run = &list->runs[sink->run_index];
	if (!error)
		error = run_sink_flush(sink);
	struct run_file_stats file_stats = {0};
	if (run->piped) {
		error = run_finish_piped(list, run, sink, error, &file_stats);
		free(sink->block);
		if (error)
			return error;
	} else {
		if (!error)
			error = run_writer_finish(sink->writer, &file_stats);
		else
			run_writer_abort(sink->writer);
		free(sink->block);
		const char *failed = "write failed";
		if (!error && (error = run_reader_open(run->fd, &run->reader)) != 0)
			failed = "read failed";
		if (error) {
			report_file_failure(failed, run->path, error);
			return error;
		}
		/* its index stays here, its file only its path until a merge reads it */
		run_detach(run);
	}
	run_end_stats(list, run, sink->stats, &file_stats);
	run->file_bytes = file_stats.file_bytes;
	run->bytes = file_stats.bytes;
	stats_temp_add(sink->stats, file_stats.file_bytes);
	sink->stats->temp_bytes += file_stats.file_bytes;
	sink->stats->temp_raw_bytes += file_stats.bytes;
	return 0;
}

void run_abandon(struct run_sink *sink)
{
	run_writer_abort(sink->writer);
	free(sink->block);
	sink->block = NULL;
	/* a PROG writing the run is waited for by run_list_remove_all */
}

/* Reads a run's blocks in order, for the merge. */
struct run_source {
	struct run *run;
	const char *program;        /* the run comes through `program -d`, or NULL */
	bool attached;              /* its file opened for this merge */
	size_t next_block;
	unsigned char *buffer;
	size_t buffer_bytes;
};

/* Starts the `PROG -d` a piped run is read from, on its file from the start. */
static int run_source_start(struct run_source *source)
{
	struct run *run = source->run;
	int fd = fd_safer(open(run->path, O_RDONLY | O_CLOEXEC));
	if (fd < 0) {
		int error = -errno;
		report_file_failure("open failed", run->path, error);
		return error;
	}
	int error = compress_child_start(source->program, true, fd, &run->child);
	close(fd);
	if (error == -EMFILE || error == -ENFILE) {
		/* no descriptor for its pipe: as GNU sort, the run could not be opened */
		report_file_failure("open failed", run->path, error);
		return error;
	}
	if (error == -EAGAIN) {
		/* no process left after its tries: the run cannot be read (GNU's words) */
		char quoted[PATH_MAX + 64];
		report_error(error, "couldn't create process for %s -d: %s",
		       report_shell_quote(source->program, true, quoted, sizeof quoted), strerror(-error));
		return error;
	}
	if (error) {
		report_error(error, "couldn't execute compress program (with -d): %s", strerror(-error));
		return error;
	}
	run_reader_stream_begin(run->reader, run->child.pipe_fd);
	return 0;
}

/* A piped run's stream is over (error: how reading it failed, or 0 at its end): `PROG
 * -d` waited for, and what went wrong reported, PROG's failure first (it explains the
 * rest). Damaged bytes stop the reading before PROG is done: PROG is let finish first,
 * or it would die of the pipe closed on it and be blamed for what its bytes showed. */
static int run_source_stop(struct run_source *source, int error)
{
	struct run *run = source->run;
	if (!error)
		error = run_reader_stream_end(run->reader);
	/* a stream holds the records and a checksum a block: far less than this */
	uint64_t stream_most = 2 * run->bytes + ((uint64_t)1 << 20);
	bool ran_to_its_end = error != -EBADMSG || compress_child_drain(&run->child, stream_most) == 0;
	int ended = compress_child_finish(&run->child);
	if (ended == COMPRESS_CHILD_FAILED && ran_to_its_end) {
		report_program_failure(source->program);
		return ended;
	}
	if (!error)
		error = ended;
	if (error)
		report_file_failure("read failed", source->run->path, error);
	return error;
}

static int run_source_next(void *context, const unsigned char **records, size_t *len)
{
	struct run_source *source = context;
	*len = 0;
	if (job_cancelled())
		return -ECANCELED;
	if (source->next_block >= run_reader_block_count(source->run->reader))
		return source->program && source->run->child.pid ? run_source_stop(source, 0) : 0;
	/* the block after the next one starts coming from the disk while these merge */
	if (source->next_block == 0)
		run_reader_prefetch(source->run->reader, 0, RUN_PREFETCH_BLOCKS + 1);
	else
		run_reader_prefetch(source->run->reader, source->next_block + RUN_PREFETCH_BLOCKS, 1);
	ssize_t bytes = run_reader_read_block(source->run->reader, source->next_block++,
					      source->buffer, source->buffer_bytes);
	if (bytes < 0 && source->program)
		return run_source_stop(source, (int)bytes);
	if (bytes < 0) {
		report_file_failure("read failed", source->run->path, (int)bytes);
		return (int)bytes;
	}
	*records = source->buffer;
	*len = (size_t)bytes;
	return 0;
}

/* Runs made ready for one merge (see merge_runs_begin). */
struct run_merge {
	struct run_list *list;
	size_t first, k;
	struct run_source *contexts;
	struct merge_source *sources;
};

void merge_runs_end(struct run_merge *merge)
{
	if (!merge)
		return;
	for (size_t i = 0; merge->contexts && i < merge->k; i++) {
		struct run *run = &merge->list->runs[merge->first + i];
		/* one that did not reach its end (an error elsewhere) is stopped */
		compress_child_finish(&run->child);
		if (merge->contexts[i].attached)
			run_detach(run);
		free(merge->contexts[i].buffer);
	}
	free(merge->contexts);
	free(merge->sources);
	free(merge);
}

int merge_runs_begin(struct run_list *list, size_t first, size_t k, struct run_merge **result, size_t *failed)
{
	size_t failing = k;
	struct run_merge *merge = calloc(1, sizeof *merge);
	if (merge)
		*merge = (struct run_merge){list, first, k, calloc(k ? k : 1, sizeof *merge->contexts),
					    calloc(k ? k : 1, sizeof *merge->sources)};
	int error = merge && merge->contexts && merge->sources ? 0 : -ENOMEM;
	struct run_source *contexts = merge ? merge->contexts : NULL;
	/* the runs not open yet are opened for this merge and closed after it */
	for (size_t i = 0; i < k && !error; i++) {
		contexts[i].attached = list->runs[first + i].fd < 0;
		if ((error = run_list_attach(list, first + i, 1)) != 0) {
			contexts[i].attached = false;
			failing = i;
		}
	}
	for (size_t i = 0; i < k && !error; i++) {
		struct run_source *context = &contexts[i];
		context->run = &list->runs[first + i];
		context->program = context->run->piped ? run_list_program(list) : NULL;
		context->buffer_bytes = run_reader_max_block_bytes(context->run->reader);
		context->buffer = malloc(context->buffer_bytes ? context->buffer_bytes : 1);
		if (!context->buffer)
			error = -ENOMEM;
		merge->sources[i].next_block = run_source_next;
		merge->sources[i].context = context;
	}
	if (error == -ENOMEM && failing == k)
		report_errno(-ENOMEM);
	/* every run's `PROG -d` at once: the loser tree takes from each in turn */
	for (size_t i = 0; i < k && !error; i++)
		if (contexts[i].program && (error = run_source_start(&contexts[i])) != 0)
			failing = i;
	if (failed)
		*failed = error ? failing : k;
	if (error) {
		merge_runs_end(merge);
		merge = NULL;
	}
	*result = merge;
	return error;
}

int merge_runs_into(struct run_merge *merge, const struct record_order *order, struct sort_verify *verify,
		    bool to_output, size_t block_bytes, record_sink sink, void *sink_context, size_t *failed)
{
	const struct merge_sink into = {sink, NULL, sink_context, block_bytes, to_output};
	return merge_records(order, verify, merge->sources, merge->k, &into, failed);
}

int merge_runs(const struct record_order *order, struct sort_verify *verify, struct run_list *list, size_t first,
	       size_t k, const struct merge_sink *sink, size_t *failed)
{
	struct run_merge *merge;
	int error = merge_runs_begin(list, first, k, &merge, failed);
	if (!error)
		error = merge_records(order, verify, merge->sources, merge->k, sink, failed);
	merge_runs_end(merge);
	return error;
}
