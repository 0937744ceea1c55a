/* SPDX-License-Identifier: MIT */
/* Fault injection for the tests: one narrow hook. Each fault point is named once where
 * the product can fail (fault_at), or once on the descriptor where it is opened
 * (fault_tag) for the generic transfers that then ask by descriptor (fault_at_fd).
 * Unarmed, each check is one relaxed load of one flag.
 *
 * The spec (GPUSORT_FAULT, handed over by the settings layer through fault_arm):
 *   "POINT:ERR[:N[+|-M]][,POINT:ERR[:N[+|-M]]...]"
 *   POINT  input_read    reads of an input file (input_file.c)
 *          output_open   creating the output's temp twin or opening the output
 *          output_write  writes of the output (output_file.c)
 *          output_move   -u's reads and writes of the output's own bytes, moved down
 *                        into place after the merge (output_file.c)
 *          range_write   a distributed sort's rank writing (or allocating) its range of
 *                        the output (src/distributed/distributed_output.c)
 *          output_rename the rename of the finished output into place
 *          output_copy   the copy of the finished output into the file it replaces,
 *                        where a rename would lose that file's links, owner or attributes
 *          temp_create   creating a temp file (temp_files.c)
 *          temp_write    writes of a run file (run_writer.c)
 *          temp_read     reads of a run file (run_reader.c)
 *          io_ring       setting up an io_uring queue: as if the kernel refused, so that
 *                        every transfer goes through pread and pwrite (io_ring.c)
 *          compress_start, decompress_start  each try at starting --compress-program's
 *                        PROG, or PROG -d (compress_program.c): as if it could not be
 *                        executed, or with EAGAIN as if no process were left (tried again)
 *          spawn_wait    (SHORT only) the waits between those tries cut to a millisecond
 *          sort_swap     (SHORT only) a sorted chunk's first and last items swapped, and
 *          sort_duplicate (SHORT only) its first item overwritten by its second: bugs
 *                        planted after the engine (src/common/verify.c) for the tests
 *                        of the sort's self-check
 *          text_carry    (SHORT only) the lines read past a text chunk carried into the
 *                        next from the chunk's start instead of its end: a bug planted
 *                        for the test of the self-check's words (src/text/text_lines.c)
 *          distributed_cut (SHORT only) a rank's first cut of its sorted share moved to
 *                        the share's start, sending its first range to rank 1: a bug
 *                        planted for the test of the distributed sort's self-check
 *          run_share     a distributed sort's rank trying to open another rank's run to
 *                        read its range in place: as if it could not (the ranges are
 *                        then sent through MPI, src/distributed/exchange.c)
 *   ERR  an errno name (ENOSPC, EIO, EACCES, EROFS, EDQUOT, EFBIG, EPIPE, ENOMEM, EPERM,
 *        EINTR, EAGAIN, EBADF, ENOSYS)
 *        or a number: the call fails with that error; or SHORT: the transfer moves only
 *        part of the bytes (the caller must carry on with the rest); or STOP: the
 *        process stops itself (SIGSTOP) there, for a test to kill it at that point,
 *        and goes ahead if continued.
 *   N    fail only the Nth call of POINT (counting from 1); N+ the Nth and every later
 *        one (a disk that stays full); N-M the Nth to the Mth; no N: every call.
 * Examples: temp_write:ENOSPC  output_write:EIO:3  input_read:SHORT  temp_read:EIO:2+
 *           compress_start:EAGAIN:2-5  io_ring:ENOSYS */
#ifndef GPUSORT_FAULT_INJECT_H
#define GPUSORT_FAULT_INJECT_H

#include <stdatomic.h>
#include <stdbool.h>

enum fault_point {
	FAULT_NONE, /* a descriptor never tagged */
	FAULT_INPUT_READ,
	FAULT_OUTPUT_OPEN,
	FAULT_OUTPUT_WRITE,
	FAULT_OUTPUT_MOVE,
	FAULT_RANGE_WRITE,
	FAULT_OUTPUT_RENAME,
	FAULT_OUTPUT_COPY,
	FAULT_TEMP_CREATE,
	FAULT_TEMP_WRITE,
	FAULT_TEMP_READ,
	FAULT_IO_RING,
	FAULT_COMPRESS_START,
	FAULT_DECOMPRESS_START,
	FAULT_SPAWN_WAIT,
	FAULT_SORT_SWAP,
	FAULT_SORT_DUPLICATE,
	FAULT_TEXT_CARRY,
	FAULT_DISTRIBUTED_CUT,
	FAULT_RUN_SHARE,
	FAULT_POINTS
};

/* fault_at's answer for a short transfer (errors are negative). */
#define FAULT_SHORT 1
/* A rule's result that stops the process at the point (never returned by fault_at). */
#define FAULT_STOP 2

/* Arms the points of spec (the syntax above; NULL or "" disarms). Call it before the
 * first I/O; the settings layer does, from GPUSORT_FAULT. */
void fault_arm(const char *spec);

extern atomic_bool fault_armed;
int fault_check(enum fault_point point);
enum fault_point fault_tag_of(int fd);
void fault_tag_set(int fd, enum fault_point point);

/* 0: go ahead; FAULT_SHORT: move fewer bytes; a negative errno: fail with it. Counts
 * the call. Thread-safe. */
static inline int fault_at(enum fault_point point)
{
	return atomic_load_explicit(&fault_armed, memory_order_relaxed) ? fault_check(point) : 0;
}

/* Tags fd, where it is opened, with the point its transfers count as. */
static inline void fault_tag(int fd, enum fault_point point)
{
	if (atomic_load_explicit(&fault_armed, memory_order_relaxed))
		fault_tag_set(fd, point);
}

/* fault_at for the point fd was tagged with (0 for a descriptor never tagged). */
static inline int fault_at_fd(int fd)
{
	return atomic_load_explicit(&fault_armed, memory_order_relaxed) ? fault_check(fault_tag_of(fd)) : 0;
}

#endif
