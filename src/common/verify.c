/* SPDX-License-Identifier: MIT */
/* The self-check of every sort (see verify.h). */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "../../io/fault_inject.h"
#include "verify.h"

void sort_verify_init(struct sort_verify *verify, bool enabled)
{
	memset(verify, 0, sizeof *verify);
	verify->enabled = enabled;
	verify->ordered = true;
	verify->expected = -1;
}

/* The sums of p and of p^2 over 0 <= p < n, modulo 2^64 (n < 2^63): each product's
 * factors divided by 2 and 3 first, where they divide, so nothing is lost to the wrap. */
static uint64_t positions_sum(uint64_t n)
{
	return n % 2 == 0 ? (n / 2) * (n - 1) : n * ((n - 1) / 2);
}

static uint64_t positions_sum_of_squares(uint64_t n)
{
	if (n == 0)
		return 0;
	uint64_t a = n, b = n - 1, c = 2 * n - 1; /* n (n - 1) (2n - 1) / 6 */
	if (a % 2 == 0)
		a /= 2;
	else
		b /= 2;
	if (a % 3 == 0)
		a /= 3;
	else if (b % 3 == 0)
		b /= 3;
	else
		c /= 3;
	return a * b * c;
}

static uint64_t positions_fingerprint(uint64_t n)
{
	/* the sum of p (p + K) (fingerprint_key): the sum of squares plus K times the sum */
	return positions_sum_of_squares(n) + FINGERPRINT_KEY_ODD * positions_sum(n);
}

void fingerprint_add_positions(struct fingerprint *print, uint64_t begin, uint64_t end)
{
	print->count += end - begin;
	print->sum += positions_fingerprint(end) - positions_fingerprint(begin);
}

uint64_t fingerprint_hash_bytes(const void *bytes, size_t size)
{
	const unsigned char *p = bytes;
	uint64_t hash = 0x243f6a8885a308d3ull ^ size, word = 0;
	if (size >= 8) {
		/* one multiply a word (the full mix only at the end): text lines are long. For a
		 * given word, h -> (h ^ word) * K is a bijection (K odd), so two inputs of one
		 * length that differ in a single word always hash apart, with a chain of 4
		 * cycles a word where a shift and xor more made it 6 (text's spill hashes every
		 * line in and out, so this is on its path). The last word
		 * overlaps the one before it rather than being copied byte by byte. */
		const unsigned char *last = p + size - 8;
		for (; p < last; p += 8) {
			memcpy(&word, p, 8);
			hash = (hash ^ word) * 0x9e3779b97f4a7c15ull;
		}
		memcpy(&word, last, 8);
	} else if (size >= 4) {
		uint32_t low, high;
		memcpy(&low, p, 4);
		memcpy(&high, p + size - 4, 4);
		word = (uint64_t)high << 32 | low;
	} else if (size > 0) {
		word = (uint64_t)p[0] << 16 | (uint64_t)p[size / 2] << 8 | p[size - 1];
	}
	return fingerprint_mix(hash ^ word);
}

void sort_verify_input(struct sort_verify *verify, const struct fingerprint *print)
{
	atomic_fetch_add_explicit(&verify->input_count, print->count, memory_order_relaxed);
	atomic_fetch_add_explicit(&verify->input_sum, print->sum, memory_order_relaxed);
}

void sort_verify_output(struct sort_verify *verify, const struct fingerprint *print, uint64_t disorder)
{
	atomic_fetch_add_explicit(&verify->output_count, print->count, memory_order_relaxed);
	atomic_fetch_add_explicit(&verify->output_sum, print->sum, memory_order_relaxed);
	if (disorder)
		atomic_fetch_add_explicit(&verify->disorder, disorder, memory_order_relaxed);
}

/* Where a byte at position `at` of the stream goes in its word, as a load puts it. */
static inline unsigned word_shift(uint64_t at)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return 8 * (7 - (unsigned)(at % 8));
#else
	return 8 * (unsigned)(at % 8);
#endif
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
/* CPU_FEATURE_ACTIVE's own, with an unsigned shift: glibc's shifts an int 1 by up to
 * 31 places (AVX512VL's bit), which UBSan reports. */
static bool feature_active(unsigned index)
{
	const struct cpuid_feature *leaf = __x86_get_cpuid_feature_leaf(index / 128);
	unsigned bit = index % 128;
	return (leaf->active_array[bit / 32] >> (bit % 32)) & 1u;
}

int verify_vector_level(void)
{
	if (feature_active(x86_cpu_AVX512F) && feature_active(x86_cpu_AVX512BW) &&
	    feature_active(x86_cpu_AVX512CD) && feature_active(x86_cpu_AVX512DQ) &&
	    feature_active(x86_cpu_AVX512VL) && feature_active(x86_cpu_AVX2) && feature_active(x86_cpu_BMI2) &&
	    feature_active(x86_cpu_FMA))
		return 2;
	return feature_active(x86_cpu_AVX2) ? 1 : 0;
}
#endif

VERIFY_LOOP uint64_t stream_words_loop(const void *bytes, size_t size, uint64_t offset)
{
	const unsigned char *p = bytes;
	uint64_t sum = 0, words = 0;
	size_t at = 0;
	for (; at < size && (offset + at) % 8 != 0; at++)
		sum += (uint64_t)p[at] << word_shift(offset + at);
	for (; at + 8 <= size; at += 8) {
		uint64_t word;
		memcpy(&word, p + at, 8);
		words += word;
	}
	for (; at < size; at++)
		sum += (uint64_t)p[at] << word_shift(offset + at);
	return sum + words;
}
VERIFY_CLONED(uint64_t, stream_words, (const void *bytes, size_t size, uint64_t offset), (bytes, size, offset))

void sort_verify_words(struct sort_verify *verify, uint64_t read, uint64_t scanned)
{
	atomic_fetch_add_explicit(&verify->read_words, read, memory_order_relaxed);
	atomic_fetch_add_explicit(&verify->scanned_words, scanned, memory_order_relaxed);
}

uint64_t sort_verify_clock(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

void sort_verify_time(struct sort_verify *verify, uint64_t started)
{
	atomic_fetch_add_explicit(&verify->nanoseconds, sort_verify_clock() - started, memory_order_relaxed);
}

int sort_verify_finish(struct sort_verify *verify, char *what, size_t what_size)
{
	if (!verify->enabled)
		return 0;
	uint64_t in = atomic_load(&verify->input_count), out = atomic_load(&verify->output_count);
	uint64_t disorder = atomic_load(&verify->disorder);
	if (verify->expected >= 0 && in < (uint64_t)verify->expected)
		snprintf(what, what_size, "read %llu records of the %llu the input holds", (unsigned long long)in,
			 (unsigned long long)verify->expected);
	else if (atomic_load(&verify->read_words) != atomic_load(&verify->scanned_words))
		snprintf(what, what_size, "the lines sorted differ from the bytes read (checksum of the input's words)");
	else if (verify->ordered && disorder)
		snprintf(what, what_size, "the sorted output is out of order at %llu place%s",
			 (unsigned long long)disorder, disorder == 1 ? "" : "s");
	else if (in != out)
		snprintf(what, what_size, "the sort put out %llu records of %llu", (unsigned long long)out,
			 (unsigned long long)in);
	else if (atomic_load(&verify->input_sum) != atomic_load(&verify->output_sum))
		snprintf(what, what_size, "the records put out differ from those read (checksum of %llu records)",
			 (unsigned long long)in);
	else
		return 0;
	return -EBADMSG;
}

double sort_verify_seconds(const struct sort_verify *verify, unsigned threads)
{
	return atomic_load(&verify->nanoseconds) / 1e9 / (threads ? threads : 1);
}

void sort_verify_plant_test_bug(void *items, size_t n, size_t width)
{
	unsigned char *item = items, swap[16];
	if (n < 2 || width > sizeof swap)
		return;
	if (fault_at(FAULT_SORT_SWAP) == FAULT_SHORT) {
		memcpy(swap, item, width);
		memcpy(item, item + (n - 1) * width, width);
		memcpy(item + (n - 1) * width, swap, width);
	}
	if (fault_at(FAULT_SORT_DUPLICATE) == FAULT_SHORT)
		memcpy(item, item + width, width);
}
