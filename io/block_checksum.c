/* SPDX-License-Identifier: MIT */
/* block_checksum (see block_checksum.h): four independent lanes over 8-byte words, so
 * the multiplications of neighbouring words overlap in the CPU (far faster than any disk),
 * then the lanes, the tail and the length folded together. Each
 * step is a bijection of the lane for a fixed word and of the word for a fixed lane, so
 * any change to one word changes its lane. */
#include "config.h"
#include <string.h>
#include "block_checksum.h"

#define CHECKSUM_MULTIPLIER 0x9e3779b97f4a7c15ull
#define CHECKSUM_MIX 0xff51afd7ed558ccdull

static uint64_t rotate_left(uint64_t value, unsigned bits)
{
	return value << bits | value >> (64 - bits);
}

/* One multiplication per word (the multiplier's throughput is the limit), on the lane's
 * own chain: four lanes keep it busy. */
static uint64_t checksum_step(uint64_t lane, uint64_t word)
{
	return rotate_left(lane ^ word, 27) * CHECKSUM_MULTIPLIER;
}

static uint64_t load_u64(const unsigned char *at)
{
	uint64_t word;
	memcpy(&word, at, sizeof word); /* little-endian hosts only write runs they read */
	return word;
}

uint64_t block_checksum(const void *data, size_t bytes)
{
	const unsigned char *at = data;
	size_t i = 0;
	uint64_t lane0 = 1, lane1 = 2, lane2 = 3, lane3 = 4;
	for (; i + 32 <= bytes; i += 32) {
		lane0 = checksum_step(lane0, load_u64(at + i));
		lane1 = checksum_step(lane1, load_u64(at + i + 8));
		lane2 = checksum_step(lane2, load_u64(at + i + 16));
		lane3 = checksum_step(lane3, load_u64(at + i + 24));
	}
	uint64_t lanes[4] = {lane0, lane1, lane2, lane3};
	uint64_t sum = bytes * CHECKSUM_MIX;
	for (int lane = 0; lane < 4; lane++)
		sum = checksum_step(sum, lanes[lane] * CHECKSUM_MIX);
	for (; i + 8 <= bytes; i += 8)
		sum = checksum_step(sum, load_u64(at + i));
	if (i < bytes) {
		unsigned char tail[8] = {0};
		memcpy(tail, at + i, bytes - i);
		sum = checksum_step(sum, load_u64(tail) ^ (uint64_t)(bytes - i) << 59);
	}
	sum ^= sum >> 33;
	sum *= CHECKSUM_MIX;
	return sum ^ sum >> 29;
}
