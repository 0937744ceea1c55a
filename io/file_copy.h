/* SPDX-License-Identifier: MIT */
/* Copying one open file's bytes over another's: how the output is committed when the
 * file it replaces cannot be replaced by a rename (see output_file.h). Returns 0 or a
 * negative errno. */
#ifndef GPUSORT_FILE_COPY_H
#define GPUSORT_FILE_COPY_H

/* Waits for a write lock on the whole of fd (open for writing), an open file
 * description's lock (F_OFD_SETLKW), so that two copies into one file never interleave:
 * held until fd is closed. Where the file system has no locks (ENOLCK) there is none,
 * and 0. */
int file_copy_lock(int fd);
/* Makes to_fd (open for writing) hold exactly the bytes of from_fd (open for reading),
 * from offset 0. The room for them is reserved first (fallocate, the size kept; where
 * the file system cannot reserve, its free space is checked), so that a full file
 * system or quota fails the copy (-ENOSPC, -EDQUOT) before one old byte is changed;
 * then they are written over the old ones, and to_fd is cut to from_fd's length. A
 * failure after that first step (an I/O error) leaves to_fd part old, part new.
 * Faults are injected as "output_copy", the reservation's first. */
int file_copy_contents(int from_fd, int to_fd);

#endif
