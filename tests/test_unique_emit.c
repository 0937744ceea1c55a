/* SPDX-License-Identifier: MIT */
/* -u as a chunk is put out (src/binary/record_items.c): the repeats of a sorted chunk's
 * records dropped, the first of each run of equal keys kept (the earliest in the input,
 * the sort being stable). A spill finds repeats in the items where they hold the whole
 * key (u32, f32: 8-byte items; u64, f64: 12; 16-byte items with a 64-bit position; a
 * 10-byte key: 16), else, and for an output, in the records (a 16-byte key: 12-byte items
 * of its first 8 bytes). For each, ascending and descending, keys from a few values (and
 * for floats -0.0 and +0.0, which are equal, and NaNs, equal to each other), the records
 * put out must be those of a plain stable sort and -u written here, both as a spill and
 * as an output. */
#include "config.h"
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/item_oracle.h"
#include "tests/tap.h"
#include "kernels/thread_pool.h"
#include "src/binary/record_items.h"
#include "src/common/verify.h"

#define RECORDS 20000
#define RECORD_SIZE 32
#define KEY_OFFSET 3

static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

struct collected {
	unsigned char *bytes;
	size_t len;
};

static int collect(void *context, const unsigned char *bytes, size_t len, size_t count)
{
	(void)count;
	struct collected *c = context;
	memcpy(c->bytes + c->len, bytes, len);
	c->len += len;
	return 0;
}

/* The reference order, written apart from the product's: numbers by value (floats: -0.0
 * equal to +0.0, every NaN equal and after all numbers), bytes by memcmp. */
static enum key_type sort_type;
static size_t sort_size;
static bool sort_descending;
static const unsigned char *sort_records;

static int key_order(const unsigned char *a, const unsigned char *b)
{
	int order;
	if (sort_type == KEY_BYTES) {
		order = memcmp(a, b, sort_size);
	} else if (sort_type == KEY_U32 || sort_type == KEY_U64) {
		uint64_t x = 0, y = 0;
		memcpy(&x, a, sort_size);
		memcpy(&y, b, sort_size);
		order = (x > y) - (x < y);
	} else {
		double x, y;
		if (sort_type == KEY_F32) {
			float p, q;
			memcpy(&p, a, 4);
			memcpy(&q, b, 4);
			x = p, y = q;
		} else {
			memcpy(&x, a, 8);
			memcpy(&y, b, 8);
		}
		order = isnan(x) || isnan(y) ? (int)isnan(x) - (int)isnan(y) : (x > y) - (x < y);
	}
	order = order < 0 ? -1 : order > 0;
	return sort_descending ? -order : order;
}

static int compare_indices(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	int order = key_order(sort_records + i * RECORD_SIZE + KEY_OFFSET, sort_records + j * RECORD_SIZE + KEY_OFFSET);
	return order ? order : (i > j) - (i < j); /* stable */
}

/* Records with keys from a few values (floats among them -0.0, +0.0 and NaNs), each
 * record's other bytes its index. */
static void make_records(unsigned char *records, enum key_type type, size_t size, uint64_t seed)
{
	for (uint32_t i = 0; i < RECORDS; i++) {
		unsigned char *r = records + (size_t)i * RECORD_SIZE;
		memset(r, 0, RECORD_SIZE);
		memcpy(r + RECORD_SIZE - 4, &i, 4);
		uint64_t v = next_random(&seed) % 61;
		if (type == KEY_F32 || type == KEY_F64) {
			double d = v == 0 ? -0.0 : v == 1 ? 0.0 : v == 2 ? NAN : v == 3 ? -NAN : (double)v - 30.5;
			if (type == KEY_F32) {
				float f = (float)d;
				memcpy(r + KEY_OFFSET, &f, 4);
			} else {
				memcpy(r + KEY_OFFSET, &d, 8);
			}
		} else if (type == KEY_BYTES) {
			for (size_t b = 0; b < size; b++)
				r[KEY_OFFSET + b] = b + 1 < size ? (unsigned char)(v * 7 + b) : (unsigned char)v;
		} else {
			memcpy(r + KEY_OFFSET, &v, size);
		}
	}
}

static const struct {
	enum key_type type;
	size_t size;
	enum record_form form; /* 0: the layout's choice */
	const char *name;
} keys[] = {
	{KEY_U32, 4, 0, "u32 key (8-byte items)"},
	{KEY_F32, 4, 0, "f32 key (8-byte items)"},
	{KEY_U64, 8, 0, "u64 key (12-byte items)"},
	{KEY_F64, 8, 0, "f64 key (12-byte items)"},
	{KEY_U64, 8, FORM_KEY64_POS64, "u64 key (16-byte items, 64-bit positions)"},
	{KEY_BYTES, 10, 0, "10-byte key (16-byte items)"},
	{KEY_BYTES, 16, 0, "16-byte key (12-byte items of its first 8 bytes)"},
};

/* Whether emit with -u, as a spill and as an output, puts out the reference's records. */
static bool unique_case(struct thread_pool *pool, size_t k, bool descending, uint64_t seed)
{
	unsigned char *records = malloc((size_t)RECORDS * RECORD_SIZE);
	uint32_t *order = malloc(RECORDS * sizeof *order);
	unsigned char *want = malloc((size_t)RECORDS * RECORD_SIZE);
	struct collected got = {malloc((size_t)RECORDS * RECORD_SIZE), 0};
	make_records(records, keys[k].type, keys[k].size, seed);
	/* the reference: a stable sort, then the first of each run of equal keys */
	sort_type = keys[k].type, sort_size = keys[k].size, sort_descending = descending, sort_records = records;
	for (uint32_t i = 0; i < RECORDS; i++)
		order[i] = i;
	qsort(order, RECORDS, sizeof *order, compare_indices);
	size_t kept = 0;
	for (size_t i = 0; i < RECORDS; i++) {
		const unsigned char *r = records + (size_t)order[i] * RECORD_SIZE;
		if (i > 0 && key_order(records + (size_t)order[i - 1] * RECORD_SIZE + KEY_OFFSET, r + KEY_OFFSET) == 0)
			continue;
		memcpy(want + kept++ * RECORD_SIZE, r, RECORD_SIZE);
	}
	struct key_field field = {.type = keys[k].type, .offset = KEY_OFFSET, .size = keys[k].size,
				  .descending = descending};
	struct record_layout layout;
	record_layout_init(&layout, RECORD_SIZE, &field, 1);
	layout.pool = pool;
	enum record_form form = keys[k].form ? keys[k].form : record_form_choose(&layout, RECORDS);
	size_t width = record_form_width(form);
	void *items = malloc(RECORDS * width);
	record_items_build(&layout, form, records, RECORDS, items);
	item_oracle_sort((enum item_width)width, items, RECORDS);
	record_items_finish_ties(&layout, form, records, items, RECORDS);
	bool ok = true;
	for (int to_output = 0; to_output <= 1; to_output++) {
		struct sort_verify verify;
		sort_verify_init(&verify, true);
		verify.by_position = to_output;
		layout.verify = &verify;
		got.len = 0;
		int error = record_items_emit(&layout, form, records, items, RECORDS, true,
					      &(struct emit_output){.sink = collect, .context = &got, .to_output = to_output});
		if (error || got.len != kept * RECORD_SIZE || memcmp(got.bytes, want, got.len) != 0) {
			tap_diag("%s%s, %s: error %d, %zu records put out, %zu wanted", keys[k].name,
				 descending ? " descending" : "", to_output ? "output" : "spill", error,
				 got.len / RECORD_SIZE, kept);
			ok = false;
		}
	}
	free(items);
	free(records);
	free(order);
	free(want);
	free(got.bytes);
	return ok;
}

int main(void)
{
	struct thread_pool *pool;
	if (thread_pool_create(3, &pool) != 0) {
		tap_plan_skip_all("no thread pool");
		return 0;
	}
	size_t n = sizeof keys / sizeof *keys;
	tap_plan((int)(2 * n));
	for (size_t k = 0; k < n; k++)
		for (int descending = 0; descending <= 1; descending++)
			tap_ok(unique_case(pool, k, descending, 100 + k * 2 + (size_t)descending),
			       "%s%s: -u keeps the first of each key, as a spill and as an output", keys[k].name,
			       descending ? ", descending" : "");
	thread_pool_destroy(pool);
	return tap_done();
}
