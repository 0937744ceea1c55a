/* SPDX-License-Identifier: MIT */
/* gensort_records: writes N 100-byte records in the shape of the Sort Benchmark's
 * gensort: a 10-byte random binary key, two spaces, the record number as 32 hex digits,
 * two spaces, 52 filler bytes drawn from the record number, "\r\n". The payload
 * compresses as gensort's does; the keys do not.
 *   cc -O2 -o gensort_records bench/gensort_records.c
 *   gensort_records COUNT [SEED] > FILE                                               */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RECORD_BYTES 100
#define RECORDS_PER_WRITE 10000

static uint64_t next_random(uint64_t *state)
{
	/* splitmix64 */
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ z >> 27) * 0x94d049bb133111ebull;
	return z ^ z >> 31;
}

static void make_record(unsigned char *record, uint64_t number, uint64_t *state)
{
	static const char hex[] = "0123456789ABCDEF";
	uint64_t a = next_random(state), b = next_random(state);
	memcpy(record, &a, 8);
	memcpy(record + 8, &b, 2);
	record[10] = record[11] = ' ';
	for (int i = 0; i < 32; i++)
		record[12 + i] = i < 16 ? '0' : (unsigned char)hex[number >> (4 * (31 - i)) & 15];
	record[44] = record[45] = ' ';
	for (int i = 0; i < 52; i++)
		record[46 + i] = (unsigned char)hex[(number + (uint64_t)i / 4) & 15];
	record[98] = '\r';
	record[99] = '\n';
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: gensort_records COUNT [SEED] > FILE\n");
		return 2;
	}
	uint64_t count = strtoull(argv[1], NULL, 10), state = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
	static unsigned char buffer[RECORDS_PER_WRITE * RECORD_BYTES];
	for (uint64_t done = 0; done < count;) {
		size_t n = count - done < RECORDS_PER_WRITE ? (size_t)(count - done) : RECORDS_PER_WRITE;
		for (size_t i = 0; i < n; i++)
			make_record(buffer + i * RECORD_BYTES, done + i, &state);
		if (fwrite(buffer, RECORD_BYTES, n, stdout) != n) {
			perror("gensort_records");
			return 2;
		}
		done += n;
	}
	return fflush(stdout) == 0 ? 0 : 2;
}
