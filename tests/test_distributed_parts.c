/* SPDX-License-Identifier: MIT */
/* The distributed sort's parts that need no MPI (src/distributed/): every rank's share
 * of the inputs, for 1 to 9 ranks, is cut at record or line boundaries and the shares
 * in rank order are the inputs exactly; and splitters sampled from every rank's sorted
 * share cut the shares into ranges that, merged range after range, are the stable sort
 * of the whole input, evenly sized also when all keys are equal, and under -u keep
 * equal keys within one range. */
#include "config.h"
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "src/binary/record_items.h"
#include "src/distributed/input_share.h"
#include "src/distributed/local_run.h"
#include "src/distributed/splitters.h"
#include "src/pipeline/record_order.h"
#include "tests/tap.h"

static char dir[] = "/tmp/test_distributed_parts.XXXXXX";

static void write_file(const char *path, const void *data, size_t bytes)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, bytes, f) != bytes || fclose(f) != 0)
		exit(1);
}

static uint64_t state = 12345;
static uint64_t next_random(void)
{
	uint64_t z = (state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The shares of inputs for every size 1..9 against the inputs' bytes (whole). */
static void check_shares(const char *what, const char **names, size_t count, size_t record_size,
			 const unsigned char *whole, size_t whole_bytes)
{
	struct input_list list = {names, count, NULL, NULL};
	unsigned char *joined = malloc(whole_bytes + 1);
	for (int size = 1; size <= 9; size++) {
		size_t at = 0;
		bool boundaries = true, ok = true;
		for (int r = 0; r < size && ok; r++) {
			struct input_share share;
			if (input_share_plan(&list, record_size, '\n', r, size, true, &share) != 0) {
				ok = false;
				break;
			}
			for (size_t i = 0; i < share.count; i++) {
				int fd = open(share.names[i], O_RDONLY);
				uint64_t offset = share.ranges[i].offset, length = share.ranges[i].length;
				if (at + length > whole_bytes || pread(fd, joined + at, length, (off_t)offset) != (ssize_t)length)
					ok = false;
				unsigned char before = '\n';
				if (offset > 0 && pread(fd, &before, 1, (off_t)offset - 1) != 1)
					ok = false;
				if (record_size ? offset % record_size || length % record_size : before != '\n')
					boundaries = false;
				close(fd);
				at += length;
			}
			input_share_free(&share);
		}
		tap_ok(ok && at == whole_bytes && memcmp(joined, whole, whole_bytes) == 0 && boundaries,
		       "%s, %d ranks: the shares are the inputs, cut at record boundaries", what, size);
	}
	free(joined);
}

static void test_shares(void)
{
	char names[4][300];
	const char *list[4] = {names[0], names[1], names[2], names[3]};
	unsigned char *whole = malloc(1 << 20), *text = malloc(1 << 20);
	size_t whole_bytes = 0;
	/* text: short lines, an empty file, a line longer than a share, no last newline */
	size_t sizes[4] = {0};
	for (int f = 0; f < 4; f++) {
		snprintf(names[f], sizeof names[f], "%s/text%d", dir, f);
		size_t n = 0;
		int lines = f == 0 ? 1000 : f == 1 ? 0 : f == 2 ? 11 : 300;
		for (int l = 0; l < lines; l++) {
			int len = f == 2 && l == 0 ? 5000 : (int)(next_random() % 40);
			for (int c = 0; c < len; c++)
				text[n++] = (unsigned char)('a' + next_random() % 26);
			if (!(f == 2 && l == lines - 1))
				text[n++] = '\n';
		}
		write_file(names[f], text, n);
		memcpy(whole + whole_bytes, text, n);
		whole_bytes += n;
		sizes[f] = n;
	}
	check_shares("lines", list, 4, 0, whole, whole_bytes);
	/* records of 12 bytes: 100, none, 37, 1 */
	whole_bytes = 0;
	const size_t records[4] = {100, 0, 37, 1};
	for (int f = 0; f < 4; f++) {
		snprintf(names[f], sizeof names[f], "%s/records%d", dir, f);
		for (size_t i = 0; i < records[f] * 12; i++)
			text[i] = (unsigned char)next_random();
		write_file(names[f], text, records[f] * 12);
		memcpy(whole + whole_bytes, text, records[f] * 12);
		whole_bytes += records[f] * 12;
	}
	check_shares("12-byte records", list, 4, 12, whole, whole_bytes);
	/* standard input cannot be cut: rank 0 reads it whole */
	const char *standard[] = {"-"};
	struct input_list in = {standard, 1, NULL, NULL};
	struct input_share zero, one;
	int e0 = input_share_plan(&in, 0, '\n', 0, 3, true, &zero), e1 = input_share_plan(&in, 0, '\n', 1, 3, true, &one);
	tap_ok(!e0 && !e1 && zero.count == 1 && !zero.ranges && one.count == 0,
	       "standard input: rank 0 reads it whole, the others nothing");
	input_share_free(&zero);
	input_share_free(&one);
	/* a bad record size is refused */
	snprintf(names[0], sizeof names[0], "%s/text0", dir);
	struct input_list bad = {list, 1, NULL, NULL};
	struct input_share none;
	tap_ok(input_share_plan(&bad, 7, '\n', 0, 2, true, &none) != 0 || sizes[0] % 7 == 0,
	       "an input that is not whole records is refused");
	free(whole);
	free(text);
}

/* 16-byte records: a u64 key, then the record's input position. */
struct record16 {
	uint64_t key, position;
};

static int by_key_then_position(const void *x, const void *y)
{
	const struct record16 *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->position > b->position) - (a->position < b->position);
}

/* n records with keys below distinct, in `ranks` shares, sorted each, split: the ranges
 * merged are the stable sort; returns the largest range over the mean. */
static double check_split(const char *what, size_t n, uint64_t distinct, int ranks, bool unique)
{
	struct key_field field = {KEY_U64, 0, 8, false};
	struct record_layout layout;
	record_layout_init(&layout, 16, &field, 1);
	struct record_order order;
	record_order_binary(&order, &layout, unique);
	struct record16 *input = malloc(n * sizeof *input), *expected = malloc(n * sizeof *expected),
			*got = malloc(n * sizeof *got);
	for (size_t i = 0; i < n; i++)
		input[i] = (struct record16){next_random() % distinct, i};
	memcpy(expected, input, n * sizeof *input);
	qsort(expected, n, sizeof *expected, by_key_then_position);
	/* each rank's share sorted (stably: position breaks ties) into its run file */
	struct local_run runs[16];
	unsigned char *all = NULL;
	size_t all_bytes = 0;
	for (int r = 0; r < ranks; r++) {
		size_t from = n * r / ranks, to = n * (r + 1) / ranks;
		qsort(input + from, to - from, sizeof *input, by_key_then_position);
		char path[300];
		snprintf(path, sizeof path, "%s/run%d", dir, r);
		write_file(path, input + from, (to - from) * sizeof *input);
		local_run_open(&runs[r], path, &order);
		unsigned char *encoded;
		size_t bytes;
		splitters_sample(&runs[r], r, 64, &encoded, &bytes);
		all = realloc(all, all_bytes + bytes + 1);
		if (bytes)
			memcpy(all + all_bytes, encoded, bytes);
		all_bytes += bytes;
		free(encoded);
	}
	struct sample *samples, chosen[16];
	size_t count, chosen_count;
	splitters_decode(all, all_bytes, &samples, &count);
	splitters_choose(&order, unique, samples, count, ranks, chosen, &chosen_count);
	uint64_t cuts[16][17];
	/* as many splitters as ranks less one, or none without records (then, as the
	 * driver does, every cut is at the end) */
	bool ok = chosen_count == (n ? (size_t)ranks - 1 : 0);
	for (int r = 0; r < ranks; r++) {
		cuts[r][0] = 0;
		cuts[r][ranks] = runs[r].size;
		for (int d = 1; d < ranks; d++) {
			cuts[r][d] = runs[r].size;
			if ((size_t)d <= chosen_count && splitters_cut(&runs[r], unique, r, &chosen[d - 1], &cuts[r][d]) != 0)
				ok = false;
			if (cuts[r][d] < cuts[r][d - 1] || cuts[r][d] % 16)
				ok = false;
		}
	}
	/* range d: every rank's part d in rank order, merged stably (by key, then position,
	 * which rank order and each run's order agree with) */
	size_t at = 0, largest = 0;
	uint64_t first_key[16], last_key[16];
	bool have[16] = {false};
	for (int d = 0; d < ranks; d++) {
		size_t begin = at;
		for (int r = 0; r < ranks; r++) {
			size_t bytes = (size_t)(cuts[r][d + 1] - cuts[r][d]);
			if (at + bytes / 16 > n || local_run_read(&runs[r], got + at, bytes, cuts[r][d]) != 0)
				ok = false;
			at += bytes / 16;
		}
		qsort(got + begin, at - begin, sizeof *got, by_key_then_position);
		if (at - begin > largest)
			largest = at - begin;
		if (at > begin) {
			have[d] = true;
			first_key[d] = got[begin].key;
			last_key[d] = got[at - 1].key;
		}
	}
	ok = ok && at == n && memcmp(got, expected, n * sizeof *got) == 0;
	if (unique) /* equal keys never on two ranks */
		for (int d = 1, before = -1; d < ranks; d++) {
			if (have[d - 1])
				before = d - 1;
			if (have[d] && before >= 0 && last_key[before] >= first_key[d])
				ok = false;
		}
	tap_ok(ok, "%s: %zu records on %d ranks, ranges merged are the stable sort%s", what, n, ranks,
	       unique ? ", equal keys on one rank" : "");
	for (int r = 0; r < ranks; r++)
		local_run_close(&runs[r]);
	free(samples);
	free(all);
	free(input);
	free(expected);
	free(got);
	return (double)largest / ((double)n / ranks);
}

/* Samples taken elsewhere (a rank's GPU) and encoded from their records and positions
 * are the samples a run file gives for the same records. */
static void test_encode(void)
{
	struct key_field field = {KEY_U64, 0, 8, false};
	struct record_layout layout;
	record_layout_init(&layout, 16, &field, 1);
	struct record_order order;
	record_order_binary(&order, &layout, false);
	struct record16 records[100];
	for (size_t i = 0; i < 100; i++)
		records[i] = (struct record16){i * 3, i};
	char path[300];
	snprintf(path, sizeof path, "%s/encode", dir);
	write_file(path, records, sizeof records);
	struct local_run run;
	unsigned char *from_run = NULL, *from_records = NULL;
	size_t run_bytes = 0, record_bytes = 0, count = 0;
	struct sample *samples = NULL;
	bool ok = local_run_open(&run, path, &order) == 0 && splitters_sample(&run, 3, 10, &from_run, &run_bytes) == 0 &&
		  splitters_decode(from_run, run_bytes, &samples, &count) == 0 && count == 10;
	unsigned char picked[10 * 16];
	uint64_t positions[10];
	for (size_t j = 0; ok && j < count; j++) {
		ok = samples[j].len == 16 && samples[j].rank == 3;
		memcpy(picked + j * 16, samples[j].record, 16);
		positions[j] = samples[j].position;
	}
	ok = ok && splitters_encode(3, picked, 16, positions, count, &from_records, &record_bytes) == 0 &&
	     record_bytes == run_bytes && memcmp(from_records, from_run, run_bytes) == 0;
	tap_ok(ok, "samples encoded from records and positions are those the run file gives (%zu bytes)", record_bytes);
	local_run_close(&run);
	free(samples);
	free(from_run);
	free(from_records);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	test_shares();
	test_encode();
	for (int ranks = 2; ranks <= 7; ranks += 5) {
		double uniform = check_split("uniform keys", 20000, UINT64_MAX, ranks, false);
		tap_ok(uniform < 1.3, "uniform keys, %d ranks: largest range %.2f x the mean", ranks, uniform);
		double equal = check_split("all-equal keys", 20000, 1, ranks, false);
		tap_ok(equal < 1.3, "all-equal keys, %d ranks: largest range %.2f x the mean", ranks, equal);
		double few = check_split("three keys", 20000, 3, ranks, false);
		tap_ok(few < 1.3, "three keys, %d ranks: largest range %.2f x the mean", ranks, few);
		check_split("few keys, -u", 20000, 5, ranks, true);
	}
	check_split("fewer records than ranks", 3, 100, 7, false);
	check_split("no records", 0, 100, 3, false);
	char command[400];
	snprintf(command, sizeof command, "rm -rf '%s'", dir);
	if (system(command) != 0)
		return 1;
	return tap_done();
}
