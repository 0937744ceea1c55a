/* SPDX-License-Identifier: MIT */
/* Reading a known number of bytes: at an offset (pread) or from a stream's current
 * place, carrying on after short reads and EINTR. */
#ifndef GPUSORT_READ_FULL_H
#define GPUSORT_READ_FULL_H

#include "fault_inject.h"

#include <stddef.h>
#include <stdint.h>

/* The offset that reads from the descriptor's current place (read, not pread). */
#define READ_AT_STREAM UINT64_MAX

/* Reads all `bytes` into buffer: 0, a negative errno, or -ENODATA when the file or
 * stream ends first. Each read is first offered to the fault point (FAULT_NONE: none). */
int read_full(int fd, void *buffer, size_t bytes, uint64_t offset, enum fault_point point);

#endif
