/* SPDX-License-Identifier: MIT */
/* keygen: writes binary test inputs. Keys of a type drawn from one of the seeds'
 * distributions, optionally inside larger records whose other bytes encode the record's
 * position (so a checker can tell records apart and see stability).
 *   keygen --type=u64 --count=N [--dist=uniform] [--seed=S] [--record-size=R]
 *          [--key-offset=O] [--key-size=K] [-o FILE]                                  */
#include "config.h"
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "distributions.h"

struct spec {
	const char *type;
	size_t count, record_size, key_offset, key_size;
	uint64_t seed;
	enum distribution dist;
	const char *output;
};

static size_t type_size(const char *type)
{
	if (!strcmp(type, "u32") || !strcmp(type, "i32") || !strcmp(type, "f32"))
		return 4;
	if (!strcmp(type, "u64") || !strcmp(type, "i64") || !strcmp(type, "f64"))
		return 8;
	return 0;
}

/* Turns a raw 64-bit draw into the key's bytes. Signed types are centred so both signs
 * occur; floats are finite values of both signs with -0.0 and a NaN now and then. */
static void encode_key(const struct spec *spec, uint64_t raw, uint64_t position, unsigned char *key)
{
	const char *t = spec->type;
	if (!strcmp(t, "u32") || !strcmp(t, "i32")) {
		uint32_t v = (uint32_t)raw;
		if (t[0] == 'i')
			v ^= 0x80000000u;
		memcpy(key, &v, 4);
	} else if (!strcmp(t, "u64") || !strcmp(t, "i64")) {
		uint64_t v = raw;
		if (t[0] == 'i')
			v ^= 0x8000000000000000ULL;
		memcpy(key, &v, 8);
	} else if (!strcmp(t, "f32") || !strcmp(t, "f64")) {
		double d = ((double)(raw >> 11) / 4503599627370496.0 - 1.0) * 1e6;
		if (position % 997 == 5)
			d = -0.0;
		if (position % 1009 == 7)
			d = NAN;
		if (t[1] == '3') {
			float f = (float)d;
			memcpy(key, &f, 4);
		} else
			memcpy(key, &d, 8);
	} else {
		for (size_t i = 0; i < spec->key_size; i++)
			key[i] = (unsigned char)(raw >> (56 - 8 * (i % 8)));
	}
}

int main(int argc, char **argv)
{
	struct spec spec = {"u32", 0, 0, 0, 0, 1, DIST_UNIFORM, "-"};
	static const struct option longs[] = {
		{"type", 1, 0, 't'}, {"count", 1, 0, 'n'}, {"dist", 1, 0, 'd'}, {"seed", 1, 0, 's'},
		{"record-size", 1, 0, 'R'}, {"key-offset", 1, 0, 'O'}, {"key-size", 1, 0, 'K'},
		{"output", 1, 0, 'o'}, {0, 0, 0, 0},
	};
	int c;
	while ((c = getopt_long(argc, argv, "o:", longs, NULL)) != -1) {
		switch (c) {
		case 't': spec.type = optarg; break;
		case 'n': spec.count = strtoull(optarg, NULL, 0); break;
		case 's': spec.seed = strtoull(optarg, NULL, 0); break;
		case 'R': spec.record_size = strtoull(optarg, NULL, 0); break;
		case 'O': spec.key_offset = strtoull(optarg, NULL, 0); break;
		case 'K': spec.key_size = strtoull(optarg, NULL, 0); break;
		case 'o': spec.output = optarg; break;
		case 'd':
			if (distribution_parse(optarg, &spec.dist) < 0) {
				fprintf(stderr, "keygen: unknown distribution '%s'\n", optarg);
				return 2;
			}
			break;
		default: return 2;
		}
	}
	if (!spec.key_size)
		spec.key_size = type_size(spec.type) ? type_size(spec.type) : 8;
	if (!spec.record_size)
		spec.record_size = spec.key_offset + spec.key_size;
	if (spec.key_offset + spec.key_size > spec.record_size) {
		fputs("keygen: key beyond record\n", stderr);
		return 2;
	}
	FILE *out = strcmp(spec.output, "-") ? fopen(spec.output, "wb") : stdout;
	if (!out) {
		perror(spec.output);
		return 2;
	}
	const size_t block = 1 << 16;
	uint64_t *raw = malloc(block * sizeof *raw);
	unsigned char *records = malloc(block * spec.record_size);
	int bits = type_size(spec.type) == 4 ? 32 : 64;
	/* Draw the whole key sequence in one pass when it fits, so sorted/reverse/bucket
	 * keep their shape; else block by block. */
	uint64_t *all = spec.count <= ((size_t)1 << 28) ? malloc((spec.count ? spec.count : 1) * sizeof *all) : NULL;
	if (all)
		distribution_fill_u64(spec.dist, spec.seed, bits, all, spec.count);
	for (size_t done = 0; done < spec.count; done += block) {
		size_t n = spec.count - done < block ? spec.count - done : block;
		if (!all)
			distribution_fill_u64(spec.dist, spec.seed + done, bits, raw, n);
		for (size_t i = 0; i < n; i++) {
			unsigned char *record = records + i * spec.record_size;
			uint64_t position = done + i;
			for (size_t b = 0; b < spec.record_size; b++)
				record[b] = (unsigned char)(position >> (8 * (b % 8)));
			encode_key(&spec, all ? all[done + i] : raw[i], position, record + spec.key_offset);
		}
		if (fwrite(records, spec.record_size, n, out) != n) {
			perror(spec.output);
			return 2;
		}
	}
	free(all);
	free(raw);
	free(records);
	return fclose(out) ? 2 : 0;
}
