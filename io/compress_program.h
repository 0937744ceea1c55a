/* SPDX-License-Identifier: MIT */
/* --compress-program=PROG: the children a temp file's bytes pass through, as GNU sort
 * runs them. On the way out, PROG reads them from a pipe we write and writes the file
 * (its stdout); on the way back, `PROG -d` reads the file (its stdin) and writes a pipe
 * we read. The descriptors are close-on-exec, so a child holds only its own two and
 * never keeps another child's pipe open (which would hang the reader of that pipe).
 * Functions return 0 or a negative errno. */
#ifndef GPUSORT_COMPRESS_PROGRAM_H
#define GPUSORT_COMPRESS_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* What compress_child_finish returns for a child that exited with a status other than
 * 0 or was killed ("'PROG' [-d] terminated abnormally"). Not an errno. */
#define COMPRESS_CHILD_FAILED (-4097)

struct compress_child {
	pid_t pid;      /* 0: none running */
	int pipe_fd;    /* our end: written (PROG) or read (PROG -d); -1 once closed */
};

/* Starts PROG (found on PATH as execlp finds it), or `PROG -d` when decompress, with
 * file_fd as its stdout (compressing) or its stdin (decompressing, read from the file's
 * current offset); the caller may close file_fd once this returns. While the system
 * has no process to spare (EAGAIN) it tries again after a growing wait, as GNU sort
 * does: up to 4 tries for PROG, 9 for PROG -d (compress_program.c has the waits).
 * Returns 0, or the negative errno that kept it from running (a PROG that does not
 * exist or may not be executed, no pipe left; -EAGAIN: still no process after the
 * last try), with nothing left running. */
int compress_child_start(const char *program, bool decompress, int file_fd, struct compress_child *child);

/* Closes our end of the pipe (if still open) and waits for the child: 0 when it exited
 * with status 0, COMPRESS_CHILD_FAILED otherwise, or a negative errno of waitpid. A
 * child stopped early (our end closed before it was done) may end by SIGPIPE, which
 * counts as failed too. No-op (0) when none is running. */
int compress_child_finish(struct compress_child *child);

/* Reads and drops what `PROG -d` still writes, at most `most` bytes, so that a reader
 * that gave up before the end (the bytes were damaged) lets PROG end on its own, and
 * PROG's end then says whether PROG failed rather than how it took the pipe's closing.
 * Returns 0 at the pipe's end (or with none open), -EFBIG past most, or a negative
 * errno. */
int compress_child_drain(struct compress_child *child, uint64_t most);

#endif
