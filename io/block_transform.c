/* Byte planes and deltas for run blocks (see block_transform.h). Little-endian hosts
 * only, like the binary formats gpusort reads. */
#include "config.h"
#include <stdint.h>
#include <string.h>
#include "block_transform.h"

void byte_planes_split(const void *from, void *to, size_t bytes, size_t element_bytes)
{
	const unsigned char *in = from;
	unsigned char *out = to;
	size_t count = bytes / element_bytes;
	if (element_bytes == 8) {
		for (size_t i = 0; i < count; i++)
			for (size_t j = 0; j < 8; j++)
				out[j * count + i] = in[i * 8 + j];
		return;
	}
	for (size_t j = 0; j < element_bytes; j++)
		for (size_t i = 0; i < count; i++)
			out[j * count + i] = in[i * element_bytes + j];
}

void byte_planes_join(const void *from, void *to, size_t bytes, size_t element_bytes)
{
	const unsigned char *in = from;
	unsigned char *out = to;
	size_t count = bytes / element_bytes;
	if (element_bytes == 8) {
		for (size_t i = 0; i < count; i++)
			for (size_t j = 0; j < 8; j++)
				out[i * 8 + j] = in[j * count + i];
		return;
	}
	for (size_t j = 0; j < element_bytes; j++)
		for (size_t i = 0; i < count; i++)
			out[i * element_bytes + j] = in[j * count + i];
}

bool delta_supported(size_t element_bytes)
{
	return element_bytes == 4 || element_bytes == 8;
}

void delta_encode(void *data, size_t bytes, size_t element_bytes)
{
	unsigned char *p = data;
	if (element_bytes == 8) {
		uint64_t previous = 0;
		for (size_t at = 0; at + 8 <= bytes; at += 8) {
			uint64_t value;
			memcpy(&value, p + at, 8);
			uint64_t delta = value - previous;
			memcpy(p + at, &delta, 8);
			previous = value;
		}
	} else {
		uint32_t previous = 0;
		for (size_t at = 0; at + 4 <= bytes; at += 4) {
			uint32_t value;
			memcpy(&value, p + at, 4);
			uint32_t delta = value - previous;
			memcpy(p + at, &delta, 4);
			previous = value;
		}
	}
}

void delta_decode(void *data, size_t bytes, size_t element_bytes)
{
	unsigned char *p = data;
	if (element_bytes == 8) {
		uint64_t sum = 0;
		for (size_t at = 0; at + 8 <= bytes; at += 8) {
			uint64_t delta;
			memcpy(&delta, p + at, 8);
			sum += delta;
			memcpy(p + at, &sum, 8);
		}
	} else {
		uint32_t sum = 0;
		for (size_t at = 0; at + 4 <= bytes; at += 4) {
			uint32_t delta;
			memcpy(&delta, p + at, 4);
			sum += delta;
			memcpy(p + at, &sum, 4);
		}
	}
}
