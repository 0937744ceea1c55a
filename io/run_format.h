/* SPDX-License-Identifier: MIT */
/* The run file's format as its writer (run_writer.c) and reader (run_reader.c) share
 * it: the magic, the fixed sizes of the footer and of an index entry, little-endian
 * fields, the index's hash; private to io/ (run_file.h is the interface). */
#ifndef GPUSORT_RUN_FORMAT_H
#define GPUSORT_RUN_FORMAT_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "run_file.h"

#define RUN_MAGIC "GPURUN01"
#define RUN_FOOTER_BYTES 40
#define RUN_ENTRY_FIXED_BYTES 40

static inline uint64_t fnv1a64(const unsigned char *data, size_t bytes)
{
	uint64_t hash = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < bytes; i++)
		hash = (hash ^ data[i]) * 0x100000001b3ull;
	return hash;
}

static inline void put_u64(unsigned char *at, uint64_t value)
{
	for (int i = 0; i < 8; i++)
		at[i] = (unsigned char)(value >> (8 * i));
}

static inline void put_u32(unsigned char *at, uint32_t value)
{
	for (int i = 0; i < 4; i++)
		at[i] = (unsigned char)(value >> (8 * i));
}

static inline uint64_t get_u64(const unsigned char *at)
{
	uint64_t value = 0;
	for (int i = 7; i >= 0; i--)
		value = value << 8 | at[i];
	return value;
}

static inline uint32_t get_u32(const unsigned char *at)
{
	return (uint32_t)at[0] | (uint32_t)at[1] << 8 | (uint32_t)at[2] << 16
	       | (uint32_t)at[3] << 24;
}

static inline int grow(unsigned char **buffer, size_t *capacity, size_t needed)
{
	if (*capacity >= needed)
		return 0;
	size_t bigger = *capacity ? *capacity : 4096;
	while (bigger < needed)
		bigger *= 2;
	unsigned char *p = realloc(*buffer, bigger);
	if (!p)
		return -ENOMEM;
	*buffer = p;
	*capacity = bigger;
	return 0;
}

/* A reader over the index of a run written to a stream (run_writer_finish_stream),
 * taking index (malloc'd) whatever it returns: 0 or a negative errno. */
int run_reader_adopt_index(unsigned char *index, size_t index_bytes, size_t count, uint64_t stream_bytes,
			   struct run_reader **result);

#endif
