/* SPDX-License-Identifier: MIT */
/* Moving a stretch of a file's bytes down to a lower offset of the same file, the two
 * places possibly overlapping: how -u's ranges, written where they would start without
 * -u, come into place (output_file_move). Returns 0 or a negative errno. */
#ifndef GPUSORT_FILE_MOVE_H
#define GPUSORT_FILE_MOVE_H

#include <stddef.h>
#include <stdint.h>

/* Moves len bytes of fd (open for reading and writing) from offset from to offset to
 * (to <= from), front to back in pieces of piece bytes: each piece is read whole before
 * it is written, and the next one is read (on a thread of its own) while this one is
 * written, which is safe as a piece's new place ends where the next one's old place
 * begins, or below. Large pieces are read and written on several threads
 * (parallel_io.h). Faults are injected as fd's tag (fault_inject.h). Uses two buffers of piece bytes. */
int file_move_down(int fd, uint64_t from, uint64_t to, uint64_t len, size_t piece);

#endif
