/* SPDX-License-Identifier: MIT */
/* A fast 64-bit checksum of a stored (uncompressed) run block, so that a block written
 * without zstd (and without zstd's content checksum) still reads as damaged when a byte
 * of it changed. It detects corruption; it is not a cryptographic hash. */
#ifndef GPUSORT_BLOCK_CHECKSUM_H
#define GPUSORT_BLOCK_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

uint64_t block_checksum(const void *data, size_t bytes);

#endif
