/* SPDX-License-Identifier: MIT */
/* The seeds' input distributions, reproducible from a seed: uniform, normal, Poisson,
 * bucket, sorted, reverse, all-equal and few-unique keys of 32 or 64 bits. */
#ifndef GPUSORT_DISTRIBUTIONS_H
#define GPUSORT_DISTRIBUTIONS_H

#include <stddef.h>
#include <stdint.h>

enum distribution {
	DIST_UNIFORM,
	DIST_NORMAL,
	DIST_POISSON,
	DIST_BUCKET,
	DIST_SORTED,
	DIST_REVERSE,
	DIST_ALL_EQUAL,
	DIST_FEW_UNIQUE,
	DIST_COUNT
};

const char *distribution_name(enum distribution distribution);
/* Returns 0, or -1 for an unknown name. */
int distribution_parse(const char *name, enum distribution *distribution);

/* Fills keys with n values of `bits` significant bits (32 or 64). */
void distribution_fill_u64(enum distribution distribution, uint64_t seed, int bits,
			   uint64_t *keys, size_t n);
void distribution_fill_u32(enum distribution distribution, uint64_t seed, uint32_t *keys, size_t n);

/* splitmix64: the generator behind every distribution, exposed for tests. */
uint64_t random_next(uint64_t *state);

#endif
