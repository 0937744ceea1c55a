/* SPDX-License-Identifier: MIT */
/* Generates text-mode benchmark and test inputs fast: LINES lines of 16 random lowercase
 * letters, a tab and a random number below 10^9 (bench/text_bench.sh's shape), from a
 * fixed seed so runs reproduce. Tests narrow it to make ties and duplicates: the first
 * LETTERS letters only, numbers below NUMBERS, and words of 0 to LENGTH letters.
 * Usage: textgen LINES [SEED [LETTERS NUMBERS LENGTH]] > file */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64: a small generator with good bits, enough for test data. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 3 && argc != 6) {
		fprintf(stderr, "usage: textgen LINES [SEED [LETTERS NUMBERS LENGTH]]\n");
		return 2;
	}
	unsigned long long lines = strtoull(argv[1], NULL, 10);
	uint64_t state = argc > 2 ? strtoull(argv[2], NULL, 10) : 42;
	uint64_t letters = argc > 3 ? strtoull(argv[3], NULL, 10) : 26;
	uint64_t numbers = argc > 4 ? strtoull(argv[4], NULL, 10) : 1000000000u;
	int length = argc > 5 ? atoi(argv[5]) : -1; /* -1: always 16 */
	if (letters < 1 || letters > 26 || numbers < 1 || length > 16) {
		fprintf(stderr, "textgen: LETTERS 1-26, NUMBERS >= 1, LENGTH <= 16\n");
		return 2;
	}
	static char block[1 << 20];
	size_t used = 0;
	for (unsigned long long i = 0; i < lines; i++) {
		if (sizeof block - used < 64) {
			if (fwrite(block, 1, used, stdout) != used)
				return 1;
			used = 0;
		}
		/* Letters take 12 bits of a draw each (5 per draw): ((bits & 4095) * letters)
		 * >> 12 is uniform enough for test data. */
		int count = length < 0 ? 16 : (int)(next_random(&state) % (uint64_t)(length + 1));
		uint64_t bits = 0;
		for (int j = 0; j < count; j++) {
			if (j % 5 == 0)
				bits = next_random(&state);
			block[used++] = (char)('a' + (((bits & 4095) * letters) >> 12));
			bits >>= 12;
		}
		block[used++] = '\t';
		used += (size_t)sprintf(block + used, "%llu\n",
					(unsigned long long)(next_random(&state) % numbers));
	}
	if (fwrite(block, 1, used, stdout) != used || fflush(stdout) != 0)
		return 1;
	return 0;
}
