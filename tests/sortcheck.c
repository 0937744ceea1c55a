/* SPDX-License-Identifier: MIT */
/* sortcheck: a streaming checker for binary sorts, independent of gpusort's code.
 * OUTPUT must be in key order (strictly with -u) and, without -u, a permutation of
 * INPUT (same record count and the same multiset hash of whole records).
 *   sortcheck --type=T [--record-size=R] [--key-offset=O] [--key-size=K] [-r] [-u] INPUT OUTPUT */
#include "config.h"
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct layout {
	char type[8];
	size_t record_size, key_offset, key_size;
	int reverse, unique;
};

static int compare_keys(const struct layout *l, const unsigned char *a, const unsigned char *b)
{
	const char *t = l->type;
	if (!strcmp(t, "u32")) { uint32_t x, y; memcpy(&x, a, 4); memcpy(&y, b, 4); return (x > y) - (x < y); }
	if (!strcmp(t, "i32")) { int32_t x, y; memcpy(&x, a, 4); memcpy(&y, b, 4); return (x > y) - (x < y); }
	if (!strcmp(t, "u64")) { uint64_t x, y; memcpy(&x, a, 8); memcpy(&y, b, 8); return (x > y) - (x < y); }
	if (!strcmp(t, "i64")) { int64_t x, y; memcpy(&x, a, 8); memcpy(&y, b, 8); return (x > y) - (x < y); }
	if (!strcmp(t, "f32") || !strcmp(t, "f64")) {
		double x, y;
		if (t[1] == '3') { float f, g; memcpy(&f, a, 4); memcpy(&g, b, 4); x = f; y = g; }
		else { memcpy(&x, a, 8); memcpy(&y, b, 8); }
		if (isnan(x) || isnan(y))
			return isnan(x) - isnan(y); /* NaNs after every number */
		return (x > y) - (x < y);       /* -0.0 == +0.0 */
	}
	return memcmp(a, b, l->key_size);
}

static uint64_t record_hash(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 33);
}

struct digest { uint64_t count, sum, xor_, sum_sq; };

static void digest_add(struct digest *d, const unsigned char *record, size_t size)
{
	uint64_t h = record_hash(record, size);
	d->count++;
	d->sum += h;
	d->xor_ ^= h;
	d->sum_sq += h * h;
}

static int digest_file(const char *name, const struct layout *l, struct digest *d, int check_order)
{
	FILE *f = fopen(name, "rb");
	if (!f) { perror(name); return 2; }
	size_t block = (4 << 20) / l->record_size + 1;
	unsigned char *buf = malloc(block * l->record_size), *previous = malloc(l->record_size);
	int have_previous = 0;
	size_t got;
	uint64_t index = 0;
	while ((got = fread(buf, l->record_size, block, f)) > 0) {
		for (size_t i = 0; i < got; i++, index++) {
			unsigned char *r = buf + i * l->record_size;
			digest_add(d, r, l->record_size);
			if (check_order && have_previous) {
				int order = compare_keys(l, previous + l->key_offset, r + l->key_offset);
				if (l->reverse)
					order = -order;
				if (order > 0 || (order == 0 && l->unique)) {
					fprintf(stderr, "sortcheck: %s: record %" PRIu64 " out of order\n", name, index);
					return 1;
				}
			}
			memcpy(previous, r, l->record_size);
			have_previous = 1;
		}
	}
	fclose(f);
	free(buf);
	free(previous);
	return 0;
}

int main(int argc, char **argv)
{
	struct layout l = {"u32", 0, 0, 0, 0, 0};
	static const struct option longs[] = {
		{"type", 1, 0, 't'}, {"record-size", 1, 0, 'R'}, {"key-offset", 1, 0, 'O'},
		{"key-size", 1, 0, 'K'}, {0, 0, 0, 0},
	};
	int c;
	while ((c = getopt_long(argc, argv, "ru", longs, NULL)) != -1) {
		switch (c) {
		case 't': snprintf(l.type, sizeof l.type, "%s", optarg); break;
		case 'R': l.record_size = strtoull(optarg, NULL, 0); break;
		case 'O': l.key_offset = strtoull(optarg, NULL, 0); break;
		case 'K': l.key_size = strtoull(optarg, NULL, 0); break;
		case 'r': l.reverse = 1; break;
		case 'u': l.unique = 1; break;
		default: return 2;
		}
	}
	if (argc - optind != 2) {
		fputs("usage: sortcheck [options] INPUT OUTPUT\n", stderr);
		return 2;
	}
	if (!l.key_size)
		l.key_size = l.type[1] == '3' ? 4 : 8;
	if (!l.record_size)
		l.record_size = l.key_offset + l.key_size;
	struct digest in = {0}, out = {0};
	int status = digest_file(argv[optind], &l, &in, 0);
	if (!status)
		status = digest_file(argv[optind + 1], &l, &out, 1);
	if (status)
		return status;
	if (!l.unique && memcmp(&in, &out, sizeof in) != 0) {
		fprintf(stderr, "sortcheck: %s is not a permutation of %s (%" PRIu64 " vs %" PRIu64 " records)\n",
			argv[optind + 1], argv[optind], out.count, in.count);
		return 1;
	}
	printf("sortcheck: %" PRIu64 " records in order%s\n", out.count, l.unique ? "" : ", a permutation of the input");
	return 0;
}
