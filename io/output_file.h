/* SPDX-License-Identifier: MIT */
/* The output: stdout, or a regular file written to a temp twin and put in place only on
 * commit, so a failed sort never leaves a half-written output or harms the old file. An
 * existing file keeps its mode, owner, group, extended attributes (ACLs) and hard links:
 * the twin, given those, is renamed over it; where the twin cannot take them all (more
 * than one link, an owner or attribute we may not give, a directory we may not write:
 * then the twin lives in the -T directory) the twin's bytes are copied into the file
 * itself on commit, with SIGINT, SIGTERM, SIGHUP and SIGPIPE held off meanwhile.
 * Writes are queued behind the caller (io_uring; write where unavailable).
 * Functions return 0 or a negative errno. */
#ifndef GPUSORT_OUTPUT_FILE_H
#define GPUSORT_OUTPUT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct output_file;
struct write_queue;

/* Whether path may be written as the output, without changing anything: an existing file
 * must be writable (-EACCES, -EROFS, -EISDIR otherwise), a new one's directory must let
 * us create it. For a check before any input is read; NULL and "-" pass. */
int output_file_check(const char *path);
/* NULL or "-" is stdout. An existing file is opened for writing here (so a file we may
 * not write fails now) but changed only by commit. */
int output_file_open(const char *path, struct output_file **file);
/* A descriptor the caller opened (and closes), written in place from its offset, as
 * stdout is: for a library job's output_fd. */
int output_file_open_fd(int fd, struct output_file **file);
int output_file_write(struct output_file *file, const void *buffer, size_t len);
/* Bytes that come before everything else (a text file's header lines), written first,
 * in order; the output then takes no writes at offsets (output_file_positional is
 * false), as the records' offsets would no longer start at 0. */
int output_file_write_prefix(struct output_file *file, const void *buffer, size_t len);
/* A transform of the bytes written after this call (not a prefix's): filter(context,
 * in, len, out) writes what becomes of in[0, len) to out, at most len bytes, and
 * returns how many, or OUTPUT_FILTER_UNCHANGED when in is written as it is; it is
 * called in the order of the writes, on their thread. The output then takes no writes
 * at offsets (output_file_positional is false). */
typedef size_t (*output_filter)(void *context, const void *in, size_t len, void *out);
#define OUTPUT_FILTER_UNCHANGED ((size_t)-1)
void output_file_set_filter(struct output_file *file, output_filter filter, void *context);
/* True when the output is a regular file of our own (the temp twin), so that parts of
 * it may be written at known offsets, from several threads, with output_file_write_at. */
bool output_file_positional(const struct output_file *file);
/* The temp twin's path while the output is positional, else NULL: other processes (the
 * distributed sort's ranks) may open it and write their parts at their offsets. */
const char *output_file_temp_path(const struct output_file *file);
/* Writes len bytes at offset, straight from buffer (no queue), safe to call from several
 * threads at once for disjoint ranges; only for a positional output, and not mixed with
 * output_file_write. */
int output_file_write_at(struct output_file *file, const void *buffer, size_t len,
			 off_t offset);
/* Before output_file_write_at, for an output of at most bytes: the twin allocated that
 * far and mapped where that pays (io/file_map.h), so that the writes copy into the page
 * cache without the file's lock, which pwrite takes in turn, thread after thread; the
 * commit cuts the file to the end of what was written. Returns 0 (also where nothing
 * is mapped: the writes stay pwrite's), or a negative errno (no room) to report. */
int output_file_map(struct output_file *file, uint64_t bytes);
/* Bytes of the output that output_file_map mapped (0: none, the writes are pwrite's). */
uint64_t output_file_mapped_bytes(const struct output_file *file);
/* Whether the output is a file of a memory file system (tmpfs), positional. */
bool output_file_in_memory(const struct output_file *file);
/* After output_file_map: threads fault in the mapped pages for the writes to come
 * (file_prefault_start) until output_file_prefault_stop, which the commit and abort
 * call too. */
void output_file_prefault_start(struct output_file *file);
void output_file_prefault_stop(struct output_file *file);
/* A queue of writes to a positional output for one thread (write_queue.h): placed with
 * write_queue_seek, filled with write_queue_buffer and write_queue_submit, waited for
 * with write_queue_wait, closed by the caller before the commit. The writes run behind
 * the thread (io_uring), so a thread that merges a range goes on merging while the
 * kernel copies, or holds back for the disk, the bytes it merged before. */
int output_file_write_queue(struct output_file *file, unsigned depth, size_t slot_bytes,
			    struct write_queue **queue);
/* Whether the writes of an output of bytes, in queues from output_file_write_queue,
 * should go past the page cache (output_file_uncached): an output larger than the
 * dirty data at which the kernel starts writing back (cache_budget.h) goes to the
 * device during the writes anyway, and a copy of every byte into the page cache first
 * costs the writers' CPU. Not on a memory file system, nor where the output is not
 * positional. forced: 1 at any size, 0 never, else by the size (GPUSORT_OUTPUT_DIRECT).
 * Where wanted, the file is first extended to bytes, the length the writes must fill
 * (or at most fill: output_file_cut then sets the length they reached). */
bool output_file_uncached_wanted(struct output_file *file, uint64_t bytes, int forced);
/* Moves len bytes of the positional output from offset from down to offset to (to <=
 * from; the two may overlap) in pieces of piece bytes (io/file_move.h: two buffers of
 * them): the stretches of an output written at offsets that turned out too high (-u's
 * ranges, placed before their duplicates were known). Faults are injected as
 * output_move (fault_inject.h). Returns 0 or a negative errno. */
int output_file_move(struct output_file *file, uint64_t from, uint64_t to, uint64_t len, size_t piece);
/* Sets the positional output's length to bytes (after writes of fewer bytes than
 * output_file_uncached_wanted was told). Returns 0 or a negative errno. */
int output_file_cut(struct output_file *file, uint64_t bytes);
/* Turns a queue to write_queue_direct through the file opened again with O_DIRECT;
 * where it cannot be, the queue writes through the page cache as before. */
void output_file_uncached(struct output_file *file, struct write_queue *queue);
/* Flushes and renames into place, or copies into the existing file; the file is closed
 * either way. */
int output_file_commit(struct output_file *file);
/* Removes the partial file; the old output (if any) stays as it was. A large one's
 * pages go back to the system on a thread of its own, after the return. */
void output_file_abort(struct output_file *file);

#endif
