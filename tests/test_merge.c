/* SPDX-License-Identifier: MIT */
/* The k-way merge (src/pipeline/merge.c and, for integer keys, merge_keys.c) against an
 * oracle: k sorted sources of u32, i32, u64 or i64 keys, bare or in records with other
 * bytes before and after them (at an odd offset too), ascending and -r, with and
 * without -u, for k from 1 to 33, blocks of one record up to many (so refills fall
 * everywhere), keys uniform, few-unique, all equal and already in order, empty sources
 * among them. The output must be the stable merge (equal keys in source order, which
 * the records' other bytes show; under -u the first of each run), the same from the key
 * merge and from the loser tree (the same order given as a prefix function, which the
 * key merge does not take); the
 * self-check must count every record and find no disorder, and must find it when a
 * source is out of order; a source that fails must stop the merge with its error and
 * index. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/tap.h"
#include "src/common/verify.h"
#include "src/pipeline/merge.h"
#include "src/pipeline/merge_keys.h"

static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A source: its keys, handed over block_records at a time; fails with -EIO at its
 * fail_at-th block (0: never). */
struct source {
	unsigned char *bytes;
	size_t count, width, block_records, at, blocks, fail_at;
};

static int source_next(void *context, const unsigned char **bytes, size_t *len)
{
	struct source *s = context;
	if (s->fail_at && ++s->blocks == s->fail_at)
		return -EIO;
	size_t n = s->count - s->at < s->block_records ? s->count - s->at : s->block_records;
	*bytes = s->bytes + s->at * s->width;
	*len = n * s->width;
	s->at += n;
	return 0;
}

struct collected {
	unsigned char *bytes;
	size_t used, capacity;
};

static int collect(void *context, const unsigned char *records, size_t bytes, size_t count)
{
	(void)count;
	struct collected *c = context;
	if (c->used + bytes > c->capacity)
		return -ENOSPC;
	memcpy(c->bytes + c->used, records, bytes);
	c->used += bytes;
	return 0;
}

/* The order the loser tree's twin (below) computes by a call. */
static enum record_prefix_kind called_kind;

/* The same order as a prefix function: PREFIX_CALL, which only the loser tree takes. */
static uint64_t prefix_call(const struct record_order *order, const unsigned char *record, size_t len)
{
	struct record_order direct = *order;
	direct.kind = called_kind;
	return record_prefix(&direct, record, len);
}

/* kind: 0 u32, 1 i32, 2 u64, 3 i64; shape: 0 a bare key, 1 the key then 8 other bytes,
 * 2 8 bytes then the key, 3 5 bytes, the key, 3 bytes (an odd offset). */
static struct record_order order_of(int kind, int shape, bool reverse, bool unique)
{
	struct record_order order;
	memset(&order, 0, sizeof order);
	size_t width = kind < 2 ? 4 : 8;
	order.key_offset = (size_t[]){0, 0, 8, 5}[shape];
	order.record_size = width + (size_t[]){0, 8, 8, 8}[shape];
	order.kind = (enum record_prefix_kind[]){PREFIX_U32, PREFIX_I32, PREFIX_U64, PREFIX_I64}[kind];
	order.reverse_prefix = reverse;
	order.unique = unique;
	order.fingerprint_offset = order.key_offset;
	order.fingerprint_size = width;
	return order;
}

/* The loser tree's twin of order: PREFIX_CALL. */
static struct record_order order_called(const struct record_order *order)
{
	struct record_order called = *order;
	called_kind = order->kind;
	called.kind = PREFIX_CALL;
	called.prefix = prefix_call;
	return called;
}

static const struct record_order *sort_order;
static const unsigned char *sort_base;

/* Oracle order: prefix, then the record's place in the concatenation (sources in order). */
static int oracle_compare(const void *a, const void *b)
{
	size_t width = sort_order->record_size, i = *(const size_t *)a, j = *(const size_t *)b;
	uint64_t x = record_prefix(sort_order, sort_base + i * width, width),
		 y = record_prefix(sort_order, sort_base + j * width, width);
	if (x != y)
		return x < y ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* Makes k sorted sources of random sizes (about total keys in all) in one array. */
static size_t make_sources(const struct record_order *order, size_t k, size_t total, int dist, uint64_t *seed,
			   unsigned char **all, size_t *counts)
{
	size_t width = order->record_size, n = 0;
	for (size_t s = 0; s < k; s++) {
		counts[s] = next_random(seed) % 5 == 0 ? 0 : next_random(seed) % (2 * total / k + 1);
		n += counts[s];
	}
	*all = malloc((n ? n : 1) * width);
	size_t *index = malloc((n ? n : 1) * sizeof *index);
	unsigned char *sorted = malloc((n ? n : 1) * width);
	size_t key_width = order->fingerprint_size;
	for (size_t i = 0; i < n; i++) {
		uint64_t v = next_random(seed);
		if (dist == 1)
			v %= 7;
		else if (dist == 2)
			v = 42;
		else if (dist == 3)
			v = i;
		/* the other bytes: the record's number, so that an unstable merge shows */
		for (size_t b = 0; b < width; b++)
			(*all)[i * width + b] = (unsigned char)(i >> (8 * (b % 4)));
		memcpy(*all + i * width + order->key_offset, &v, key_width);
	}
	/* each source sorted on its own (stably: by the oracle's order) */
	sort_order = order;
	sort_base = *all;
	for (size_t s = 0, first = 0; s < k; first += counts[s], s++) {
		for (size_t i = 0; i < counts[s]; i++)
			index[i] = first + i;
		qsort(index, counts[s], sizeof *index, oracle_compare);
		for (size_t i = 0; i < counts[s]; i++)
			memcpy(sorted + (first + i) * width, *all + index[i] * width, width);
	}
	memcpy(*all, sorted, n * width);
	free(index);
	free(sorted);
	return n;
}

/* The expected output: the stable merge, -u keeping the first of each run. */
static size_t expected_output(const struct record_order *order, const unsigned char *all, size_t n,
			      unsigned char *expected)
{
	size_t width = order->record_size, *index = malloc((n ? n : 1) * sizeof *index), out = 0;
	for (size_t i = 0; i < n; i++)
		index[i] = i;
	sort_order = order;
	sort_base = all;
	qsort(index, n, sizeof *index, oracle_compare);
	for (size_t i = 0; i < n; i++) {
		const unsigned char *record = all + index[i] * width;
		if (order->unique && out &&
		    record_prefix(order, record, width) == record_prefix(order, expected + (out - 1) * width, width))
			continue;
		memcpy(expected + out * width, record, width);
		out++;
	}
	free(index);
	return out;
}

/* Merges with order; returns the merge's result, the output in c, and the self-check's. */
static int run_merge(const struct record_order *order, unsigned char *all, const size_t *counts, size_t k,
		     size_t block_records, size_t fail_source, size_t fail_at, struct collected *c,
		     struct sort_verify *verify, size_t *failed)
{
	struct source *sources = calloc(k, sizeof *sources);
	struct merge_source *ms = calloc(k, sizeof *ms);
	for (size_t s = 0, first = 0; s < k; first += counts[s], s++) {
		sources[s] = (struct source){all + first * order->record_size, counts[s], order->record_size, block_records,
					     0, 0, s == fail_source ? fail_at : 0};
		ms[s] = (struct merge_source){source_next, &sources[s]};
	}
	c->used = 0;
	sort_verify_init(verify, true);
	int error = merge_records(order, verify, ms, k,
				  &(struct merge_sink){collect, NULL, c, 64 * order->record_size, true}, failed);
	free(sources);
	free(ms);
	return error;
}

int main(void)
{
	static const size_t ks[] = {1, 2, 3, 8, 33};
	static const char *const shapes[] = {"", " in records after their key", " in records before their key",
					     " at an odd offset"};
	static const size_t blocks[] = {1, 3, 1000};
	static const char *const kinds[] = {"u32", "i32", "u64", "i64"};
	static const char *const dists[] = {"uniform", "few-unique", "all-equal", "in order"};
	uint64_t seed = 12345;
	for (int kind = 0; kind < 4; kind++)
		for (int shape = 0; shape < 4; shape++)
		for (int flags = 0; flags < 4; flags++)
			for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
				for (int dist = 0; dist < 4; dist++) {
					bool reverse = flags & 1, unique = flags & 2;
					size_t k = ks[ki], block = blocks[(ki + (size_t)dist) % 3], counts[33], failed;
					struct record_order order = order_of(kind, shape, reverse, unique),
							    called = order_called(&order);
					unsigned char *all;
					size_t n = make_sources(&order, k, 3000, dist, &seed, &all, counts);
					unsigned char *expected = malloc((n ? n : 1) * order.record_size);
					size_t want = expected_output(&order, all, n, expected);
					size_t room = (n ? n : 1) * order.record_size;
					struct collected keys = {malloc(room), 0, room}, tree = {malloc(room), 0, room};
					struct sort_verify v1, v2;
					int e1 = run_merge(&order, all, counts, k, block, k, 0, &keys, &v1, &failed);
					int e2 = run_merge(&called, all, counts, k, block, k, 0, &tree, &v2, &failed);
					bool same = e1 == 0 && e2 == 0 && keys.used == want * order.record_size &&
						    memcmp(keys.bytes, expected, keys.used) == 0 && tree.used == keys.used &&
						    memcmp(tree.bytes, keys.bytes, keys.used) == 0;
					bool checked = v1.output_count == n && v1.disorder == 0 && v2.output_count == n &&
						       v1.output_sum == v2.output_sum;
					tap_ok(merge_keys_eligible(&order) && !merge_keys_eligible(&called) && same && checked,
					       "%s%s%s%s, k=%zu, %s, blocks of %zu: %zu records, %zu out, as the loser tree, counted",
					       kinds[kind], shapes[shape], reverse ? " -r" : "", unique ? " -u" : "", k, dists[dist],
					       block, n, want);
					free(all);
					free(expected);
					free(keys.bytes);
					free(tree.bytes);
				}

	/* a source out of order: the self-check counts the disorder */
	{
		struct record_order order = order_of(2, 0, false, false);
		uint64_t keys[6] = {1, 5, 9, 4, 2, 8}; /* source 0: 1 5 9; source 1: 4 2 8 */
		size_t counts[2] = {3, 3}, failed;
		struct collected c = {malloc(64), 0, 64};
		struct sort_verify v;
		int error = run_merge(&order, (unsigned char *)keys, counts, 2, 2, 2, 0, &c, &v, &failed);
		tap_ok(error == 0 && v.disorder > 0, "a source out of order: disorder %llu found",
		       (unsigned long long)v.disorder);
		free(c.bytes);
	}
	/* a source that fails: its error and its index */
	for (size_t at = 1; at <= 3; at++) {
		struct record_order order = order_of(0, 0, false, false);
		unsigned char *all = NULL;
		size_t counts[5], failed = 99, n = 0;
		/* source 3 with keys for several blocks, so that its later blocks are asked for */
		do {
			free(all);
			n = make_sources(&order, 5, 2000, 0, &seed, &all, counts);
		} while (counts[3] < 30);
		struct collected c = {malloc((n + 1) * 8), 0, (n + 1) * 8};
		struct sort_verify v;
		int error = run_merge(&order, all, counts, 5, 7, 3, at, &c, &v, &failed);
		tap_ok(error == -EIO && failed == 3, "source 3 fails at its block %zu: error %d, failed source %zu", at,
		       error, failed);
		free(all);
		free(c.bytes);
	}
	return tap_done();
}
