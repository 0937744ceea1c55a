/* SPDX-License-Identifier: MIT */
/* The self-check of an in-memory sort's output (src/common/verify.h) where it checks the
 * records and lines put out piece by piece: two neighbours swapped in the sorted order,
 * or one item written over by its neighbour, are caught wherever they fall, inside a
 * piece, across two pieces, across two slices or chunks, at either end; and a correct
 * order passes. Records of 100 bytes, ascending and descending, by a 10-byte key
 * (16-byte items), a u64 key and a 16-byte key (12-byte items: the key, or its first 8
 * bytes, over the position); lines of under 8 bytes, of equal first 8 bytes and of
 * distinct ones, plain and -r. */
#include "config.h"
#include <errno.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/item_oracle.h"
#include "tests/tap.h"
#include "kernels/thread_pool.h"
#include "src/binary/record_items.h"
#include "src/common/verify.h"
#include "src/text/text_compare.h"
#include "src/text/text_emit.h"
#include "src/text/text_order.h"

#define RECORDS 40000
#define RECORD_SIZE 100
#define LINES 20000

static int discard(void *context, const unsigned char *bytes, size_t len, size_t count)
{
	(void)context, (void)bytes, (void)len, (void)count;
	return 0;
}

static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

enum plant { PLANT_NONE, PLANT_SWAP, PLANT_DUPLICATE };

static void plant(void *items, size_t width, size_t at, enum plant how)
{
	unsigned char *a = (unsigned char *)items + at * width, *b = a + width, swap[16];
	if (how == PLANT_SWAP) {
		memcpy(swap, a, width);
		memcpy(a, b, width);
		memcpy(b, swap, width);
	} else if (how == PLANT_DUPLICATE) {
		memcpy(a, b, width);
	}
}

/* The keys the records are sorted by, and the item width each gives. */
static const struct {
	enum key_type type;
	size_t size;
	const char *name;
	size_t width;
} record_keys[] = {
	{KEY_BYTES, 10, "10-byte key", ITEM_U128},
	{KEY_U64, 8, "u64 key", ITEM_U96},
	{KEY_BYTES, 16, "16-byte key", ITEM_U96},
};

/* Sorts the records by key k, plants the bug at item `at`, puts them out; the check's
 * verdict. */
static int records_verdict(struct thread_pool *pool, unsigned char *records, size_t k, bool descending, size_t at,
			   enum plant how)
{
	struct key_field field = {.type = record_keys[k].type, .offset = 3, .size = record_keys[k].size,
				  .descending = descending};
	struct record_layout layout;
	struct sort_verify verify;
	record_layout_init(&layout, RECORD_SIZE, &field, 1);
	sort_verify_init(&verify, true);
	verify.by_position = true;
	layout.pool = pool;
	layout.verify = &verify;
	enum record_form form = record_form_choose(&layout, RECORDS);
	size_t width = record_form_width(form);
	if (width != record_keys[k].width)
		return -EPROTO;
	void *items = malloc(RECORDS * width);
	if (!items)
		return -ENOMEM;
	record_items_build(&layout, form, records, RECORDS, items);
	item_oracle_sort((enum item_width)width, items, RECORDS);
	record_items_finish_ties(&layout, form, records, items, RECORDS);
	plant(items, width, at, how);
	int error = record_items_emit(&layout, form, records, items, RECORDS, false,
				      &(struct emit_output){.sink = discard, .to_output = true});
	free(items);
	char what[160];
	return error ? error : sort_verify_finish(&verify, what, sizeof what);
}

static struct text_order *sorting_order;
static const struct text_lines *sorting_lines;

static int compare_lines(const void *a, const void *b)
{
	size_t alen, blen;
	const char *x = text_line(sorting_lines, *(const uint64_t *)a, &alen);
	const char *y = text_line(sorting_lines, *(const uint64_t *)b, &blen);
	return text_compare_lines(sorting_order, x, alen, y, blen);
}

static int lines_verdict(struct thread_pool *pool, struct text_lines *lines, bool reverse, size_t at, enum plant how)
{
	struct text_keys keys;
	struct text_order order;
	struct sort_verify verify;
	char letters[8];
	memset(&keys, 0, sizeof keys);
	keys.reverse = reverse;
	keys.field_separator = -1;
	if (text_order_init(&order, &keys, false, false, letters, sizeof letters))
		return -EINVAL;
	sort_verify_init(&verify, true);
	verify.by_position = true;
	struct fingerprint print = {0, 0}; /* the lines are their indices */
	fingerprint_add_positions(&print, 0, lines->count);
	sort_verify_input(&verify, &print);
	uint64_t *sorted = malloc(lines->count * sizeof *sorted);
	if (!sorted)
		return -ENOMEM;
	for (size_t i = 0; i < lines->count; i++)
		sorted[i] = i;
	sorting_order = &order, sorting_lines = lines;
	qsort(sorted, lines->count, sizeof *sorted, compare_lines);
	plant(sorted, sizeof *sorted, at, how);
	int error = text_lines_emit(&order, lines, sorted, lines->count, pool, &verify,
				    &(struct emit_output){.sink = discard, .to_output = true});
	free(sorted);
	text_order_free(&order);
	char what[160];
	return error ? error : sort_verify_finish(&verify, what, sizeof what);
}

/* Lines of three kinds, all different: under 8 bytes; "sameword" and a number (the
 * first words tie); 16 random letters and a number. */
static int make_lines(struct text_lines *lines)
{
	uint64_t state = 11;
	size_t capacity = (size_t)LINES * 32;
	lines->data = malloc(capacity);
	lines->starts = malloc((LINES + 1) * sizeof *lines->starts);
	if (!lines->data || !lines->starts)
		return -ENOMEM;
	size_t size = 0;
	for (size_t i = 0; i < LINES; i++) {
		lines->starts[i] = size;
		char *line = lines->data + size;
		int len = 0;
		if (i % 3 == 0) {
			for (size_t v = i / 3 + 1; v; v /= 5) /* base 5: at most 7 letters */
				line[len++] = (char)('a' + v % 5);
		} else if (i % 3 == 1) {
			len = sprintf(line, "sameword%zu", i);
		} else {
			for (; len < 16; len++)
				line[len] = (char)('a' + next_random(&state) % 26);
			len += sprintf(line + len, "%zu", i);
		}
		line[len] = '\n';
		size += (size_t)len + 1;
	}
	lines->starts[LINES] = size;
	lines->size = lines->capacity = size;
	lines->count = LINES;
	lines->eol = '\n';
	return 0;
}

int main(void)
{
	setlocale(LC_ALL, "C");
	struct thread_pool *pool;
	if (thread_pool_create(2, &pool))
		return 1;
	unsigned char *records = malloc((size_t)RECORDS * RECORD_SIZE);
	struct text_lines lines = {0};
	if (!records || make_lines(&lines))
		return 1;
	uint64_t state = 7;
	for (size_t i = 0; i < (size_t)RECORDS * RECORD_SIZE; i++)
		records[i] = (unsigned char)next_random(&state);
	/* pieces of 131072 / 100 = 1310 records, slices of 16384; pieces of 1024 lines,
	 * chunks of 16384 */
	const size_t record_places[] = {0, 1, 700, 1309, 1310, 2619, 16383, 16384 + 1309, RECORDS - 2};
	const size_t line_places[] = {0, 1, 500, 1023, 1024, 2047, 16383, 16384 + 1023, LINES - 2};
	for (size_t k = 0; k < sizeof record_keys / sizeof *record_keys; k++)
		for (int descending = 0; descending <= 1; descending++) {
			const char *key = record_keys[k].name, *direction = descending ? "descending" : "ascending";
			tap_ok(records_verdict(pool, records, k, descending, 0, PLANT_NONE) == 0,
			       "records by a %s, %s: a correct order passes", key, direction);
			for (size_t p = 0; p < sizeof record_places / sizeof *record_places; p++) {
				size_t at = record_places[p];
				tap_ok(records_verdict(pool, records, k, descending, at, PLANT_SWAP) == -EBADMSG,
				       "records by a %s, %s: items %zu and %zu swapped are caught", key, direction, at,
				       at + 1);
				tap_ok(records_verdict(pool, records, k, descending, at, PLANT_DUPLICATE) == -EBADMSG,
				       "records by a %s, %s: item %zu over %zu is caught", key, direction, at + 1, at);
			}
		}
	for (int reverse = 0; reverse <= 1; reverse++) {
		const char *direction = reverse ? "-r" : "plain";
		tap_ok(lines_verdict(pool, &lines, reverse, 0, PLANT_NONE) == 0, "lines, %s: a correct order passes",
		       direction);
		for (size_t p = 0; p < sizeof line_places / sizeof *line_places; p++) {
			size_t at = line_places[p];
			tap_ok(lines_verdict(pool, &lines, reverse, at, PLANT_SWAP) == -EBADMSG,
			       "lines, %s: lines %zu and %zu of the order swapped are caught", direction, at, at + 1);
			tap_ok(lines_verdict(pool, &lines, reverse, at, PLANT_DUPLICATE) == -EBADMSG,
			       "lines, %s: line %zu of the order over %zu is caught", direction, at + 1, at);
		}
	}
	free(records);
	free(lines.data);
	free(lines.starts);
	thread_pool_destroy(pool);
	return tap_done();
}
