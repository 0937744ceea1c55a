/* SPDX-License-Identifier: MIT */
/* Every sort checks itself (on by default; --no-verify turns it off): an order-
 * independent fingerprint (count and a sum of 64-bit hashes) of the records that go into
 * the sort, the same of the records that come out (records dropped by -u count as come
 * out), and the order of the output, checked in the passes that already touch each
 * record (building items, restoring keys, gathering, merging), on the threads that run
 * them. A difference is a bug of ours: the caller reports "internal error", exit 2, and
 * the output is not committed. */
#ifndef GPUSORT_VERIFY_H
#define GPUSORT_VERIFY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The self-check's loops over keys are written to vectorize; with GCC on x86-64 each is
 * built for AVX-512 and AVX2 too, whose 64-bit compares and multiplies keep them below
 * the cost of the memory pass they share. The build is chosen at each call from the
 * CPU's features as the dynamic loader found them (glibc's <sys/platform/x86.h>), not
 * by ifunc resolvers: theirs ask the CPU again at every start, which in a virtual
 * machine cost a small sort more than its sort. VERIFY_CLONED(ret, name, params, args)
 * defines name over name##_loop, a VERIFY_LOOP function of the same parameters
 * (VERIFY_CLONED_VOID where it returns nothing); a static before it makes name static. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && __has_include(<sys/platform/x86.h>)
/* 2: AVX-512 (x86-64-v4), 1: AVX2, 0: neither */
int verify_vector_level(void);
#define VERIFY_LOOP static inline __attribute__((always_inline))
#define VERIFY_BUILDS(ret, name, params, args) \
	__attribute__((target("arch=x86-64-v4"), optimize("vect-cost-model=dynamic"))) static ret name##_v4 params \
	{ return name##_loop args; } \
	__attribute__((target("avx2"), optimize("vect-cost-model=dynamic"))) static ret name##_avx2 params \
	{ return name##_loop args; }
#define VERIFY_CLONED(ret, name, params, args) \
	ret name params; \
	VERIFY_BUILDS(ret, name, params, args) \
	ret name params \
	{ \
		int level = verify_vector_level(); \
		return level == 2 ? name##_v4 args : level == 1 ? name##_avx2 args : name##_loop args; \
	}
#define VERIFY_CLONED_VOID(name, params, args) \
	void name params; \
	VERIFY_BUILDS(void, name, params, args) \
	void name params \
	{ \
		int level = verify_vector_level(); \
		if (level == 2) \
			name##_v4 args; \
		else if (level == 1) \
			name##_avx2 args; \
		else \
			name##_loop args; \
	}
#else
#define VERIFY_LOOP static inline
#define VERIFY_CLONED(ret, name, params, args) \
	ret name params; \
	ret name params { return name##_loop args; }
#define VERIFY_CLONED_VOID(name, params, args) \
	void name params; \
	void name params { name##_loop args; }
#endif

/* A multiset of records: equal for any order of the same records. */
struct fingerprint {
	uint64_t count;
	uint64_t sum;
};

struct sort_verify {
	bool enabled;
	bool ordered; /* the output must be in order */
	int64_t expected; /* records the inputs held when opened (regular files), or -1 */
	/* An in-memory sort counts records that travel by position (records behind items,
	 * text lines) by their positions, a permutation check that reads no record; a
	 * spilled sort, whose runs keep no positions, by their keys' bytes (text: lines). */
	bool by_position;
	_Atomic uint64_t input_count, input_sum;
	_Atomic uint64_t output_count, output_sum;
	_Atomic uint64_t disorder;    /* adjacent output records found out of order */
	/* Text's bytes from their read to the scan that finds their lines (text_lines.h),
	 * where the fingerprint of the input is taken: the sums of the inputs' words
	 * (stream_words) as read and as scanned, apart when bytes were lost, doubled or
	 * moved on the way, as a chunk's carried lines are. */
	_Atomic uint64_t read_words, scanned_words;
	_Atomic uint64_t nanoseconds; /* thread time spent verifying, all threads */
};

void sort_verify_init(struct sort_verify *verify, bool enabled);

/* A 64-bit hash of size bytes; records of 4 and 8 bytes take an inline path. */
static inline uint64_t fingerprint_mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ull;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dull;
	x ^= x >> 33;
	return x;
}

uint64_t fingerprint_hash_bytes(const void *bytes, size_t size);

/* A key of 4 or 8 bytes: x (x + K) modulo 2^64. The sum of a quadratic is not a strong
 * hash, but two different multisets of keys agree on it only when their sums, and so
 * their sums of squares, are made to cancel, which a lost, doubled or damaged key does
 * not do; and it is one multiply, which the loops below vectorize. */
#define FINGERPRINT_KEY_ODD 0x9e3779b97f4a7c15ull
static inline uint64_t fingerprint_key(uint64_t x)
{
	return x * (x + FINGERPRINT_KEY_ODD);
}

/* n keys of 8 (or 4) bytes in a row: fingerprint_add of each, in one tight loop. */
static inline void fingerprint_add_keys64(struct fingerprint *print, const uint64_t *keys, size_t n)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += fingerprint_key(keys[i]);
	print->count += n;
	print->sum += sum;
}

static inline void fingerprint_add_keys32(struct fingerprint *print, const uint32_t *keys, size_t n)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += fingerprint_key(keys[i]);
	print->count += n;
	print->sum += sum;
}

static inline void fingerprint_add(struct fingerprint *print, const void *record, size_t size)
{
	uint64_t word;
	/* keys, the common records, take one multiply (see fingerprint_key) */
	if (size == 4) {
		uint32_t narrow;
		__builtin_memcpy(&narrow, record, 4);
		word = fingerprint_key(narrow);
	} else if (size == 8) {
		__builtin_memcpy(&word, record, 8);
		word = fingerprint_key(word);
	} else {
		word = fingerprint_hash_bytes(record, size);
	}
	print->count++;
	print->sum += word;
}

/* A record of an in-memory sort put out, by its position p in the input: fingerprint_key
 * of p, whose sum over the input's positions 0 <= p < n has a closed form, so the input
 * side is fingerprint_add_positions and reads nothing. p (p + K) for odd K tells any two
 * positions below 2^63 apart: p (p + K) = q (q + K) means (p - q)(p + q + K) = 0 modulo
 * 2^64, and p + q + K is odd. */
static inline void fingerprint_add_position(struct fingerprint *print, uint64_t position)
{
	print->count++;
	print->sum += fingerprint_key(position);
}

/* fingerprint_add_position of every position in [begin, end), in closed form. */
void fingerprint_add_positions(struct fingerprint *print, uint64_t begin, uint64_t end);

/* The sum, modulo 2^64, of the 8-byte words of a stream of bytes (the inputs as read,
 * one after another) that lie in bytes[0, size), which start at the stream's byte
 * `offset`: each byte adds itself shifted to its place in its word, so that the sums of
 * any pieces of the stream add up to the whole's. Equal sums for a stream as read and as
 * held later mean its bytes stayed where they were, but for changes whose words' sums
 * cancel: bytes moved by whole words, or text that repeats itself at the distance moved
 * (which a misplaced piece leaves as it was). */
uint64_t stream_words(const void *bytes, size_t size, uint64_t offset);
void sort_verify_words(struct sort_verify *verify, uint64_t read, uint64_t scanned);

/* Adds a thread's fingerprint of records in, or out, and the disorder it found. */
void sort_verify_input(struct sort_verify *verify, const struct fingerprint *print);
void sort_verify_output(struct sort_verify *verify, const struct fingerprint *print, uint64_t disorder);
/* Thread time spent verifying, from a start taken with sort_verify_clock(). */
uint64_t sort_verify_clock(void);
void sort_verify_time(struct sort_verify *verify, uint64_t started);

/* 0 when out matches in and nothing was out of order; otherwise -EBADMSG with what
 * differs in `what` (for "gpusort: internal error: WHAT"). */
int sort_verify_finish(struct sort_verify *verify, char *what, size_t what_size);
/* Seconds of verification per thread, for --stats. */
double sort_verify_seconds(const struct sort_verify *verify, unsigned threads);

/* For the tests of the self-check: GPUSORT_FAULT=sort_swap:SHORT or sort_duplicate:SHORT
 * (io/fault_inject.h) spoils n sorted items of width bytes the way a faulty engine
 * would: the first and last swapped, or the first overwritten by the second. */
void sort_verify_plant_test_bug(void *items, size_t n, size_t width);

#endif
