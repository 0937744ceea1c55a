/* SPDX-License-Identifier: MIT */
/* Key generators for the seeds' distributions (see distributions.h). The bucket
 * distribution follows Dehne and Zaboli: the key range is cut into p parts and each of
 * p groups of n/p keys draws n/p^2 keys uniformly from every part. */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "distributions.h"

static const char *const names[DIST_COUNT] = {
	"uniform", "normal", "poisson", "bucket", "sorted", "reverse", "all-equal", "few-unique",
};

const char *distribution_name(enum distribution distribution)
{
	return distribution < DIST_COUNT ? names[distribution] : "?";
}

int distribution_parse(const char *name, enum distribution *distribution)
{
	for (int i = 0; i < DIST_COUNT; i++)
		if (strcmp(name, names[i]) == 0) {
			*distribution = (enum distribution)i;
			return 0;
		}
	return -1;
}

uint64_t random_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double random_unit(uint64_t *state)
{
	return (random_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* Knuth's method for small means, a normal approximation for large ones. */
static uint64_t random_poisson(uint64_t *state, double mean)
{
	if (mean > 500.0) {
		double u1 = random_unit(state) + 1e-300, u2 = random_unit(state);
		double z = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
		double value = mean + sqrt(mean) * z;
		return value < 0 ? 0 : (uint64_t)value;
	}
	double limit = exp(-mean), product = random_unit(state);
	uint64_t k = 0;
	while (product > limit) {
		product *= random_unit(state);
		k++;
	}
	return k;
}

void distribution_fill_u64(enum distribution distribution, uint64_t seed, int bits,
			   uint64_t *keys, size_t n)
{
	uint64_t state = seed * 0x2545f4914f6cdd1dULL + 1;
	uint64_t mask = bits >= 64 ? ~0ULL : ((1ULL << bits) - 1);
	double range = bits >= 64 ? 18446744073709551615.0 : (double)mask;
	switch (distribution) {
	case DIST_UNIFORM:
		for (size_t i = 0; i < n; i++)
			keys[i] = random_next(&state) & mask;
		break;
	case DIST_NORMAL:
		for (size_t i = 0; i < n; i++) {
			double u1 = random_unit(&state) + 1e-300, u2 = random_unit(&state);
			double z = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
			double value = range / 2 + z * range / 16;
			keys[i] = value <= 0 ? 0 : value >= range ? mask : (uint64_t)value;
		}
		break;
	case DIST_POISSON:
		for (size_t i = 0; i < n; i++)
			keys[i] = random_poisson(&state, 1.0e6) & mask;
		break;
	case DIST_BUCKET: {
		size_t p = 64, group = n / p ? n / p : 1;
		uint64_t part = mask / p + 1;
		for (size_t i = 0; i < n; i++) {
			size_t within = i % group;
			size_t piece = (within * p) / group;
			keys[i] = piece * part + random_next(&state) % part;
		}
		break;
	}
	case DIST_SORTED:
	case DIST_REVERSE: {
		uint64_t step = n ? mask / n : 0;
		if (step == 0)
			step = 1;
		for (size_t i = 0; i < n; i++) {
			size_t rank = distribution == DIST_SORTED ? i : n - 1 - i;
			keys[i] = (rank * step) & mask;
		}
		break;
	}
	case DIST_ALL_EQUAL: {
		uint64_t value = random_next(&state) & mask;
		for (size_t i = 0; i < n; i++)
			keys[i] = value;
		break;
	}
	case DIST_FEW_UNIQUE: {
		uint64_t values[16];
		for (int k = 0; k < 16; k++)
			values[k] = random_next(&state) & mask;
		for (size_t i = 0; i < n; i++)
			keys[i] = values[random_next(&state) % 16];
		break;
	}
	default:
		memset(keys, 0, n * sizeof *keys);
	}
}

void distribution_fill_u32(enum distribution distribution, uint64_t seed, uint32_t *keys, size_t n)
{
	const size_t block = 4096;
	uint64_t buffer[4096];
	/* Generate in one pass over the whole range so block boundaries do not change the
	 * distribution: sorted and bucket depend on n. */
	uint64_t *wide = malloc(n * sizeof *wide);
	if (wide) {
		distribution_fill_u64(distribution, seed, 32, wide, n);
		for (size_t i = 0; i < n; i++)
			keys[i] = (uint32_t)wide[i];
		free(wide);
		return;
	}
	for (size_t done = 0; done < n; done += block) {
		size_t count = n - done < block ? n - done : block;
		distribution_fill_u64(distribution, seed + done, 32, buffer, count);
		for (size_t i = 0; i < count; i++)
			keys[done + i] = (uint32_t)buffer[i];
	}
}
