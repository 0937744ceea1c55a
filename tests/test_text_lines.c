/* SPDX-License-Identifier: MIT */
/* Unit tests of text_lines (src/text/text_lines.c): the count taken as pieces are read,
 * the cut kept, and the index built from the count's marks, against a plain scan of the
 * same bytes. Each case checks the line count, every line start, and the self-check's
 * input fingerprint, which the index takes as it scans: every line's bytes once (the sum
 * of fingerprint_add over the lines), or their positions in closed form; and the visit
 * it gives each line to, once, with the line's bytes. The buffers are
 * built around the 2 MiB slices the count marks (COUNT_SLICE_BYTES) and the 32 KiB blocks
 * the index hashes in: terminators just before, at and after a slice's start, lines that
 * span several slices, empty lines, slices without a terminator. After a cut, the rest
 * is carried into the next chunk, in another buffer or the same one, and indexed there:
 * every byte's words (stream_words) must then be taken once as read and once as
 * scanned, and a byte changed after the carry must show. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/tap.h"
#include "src/common/verify.h"
#include "src/text/text_lines.h"
#include "kernels/thread_pool.h"

#define SLICE ((size_t)2 << 20)

static uint64_t next_random(uint64_t *state)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return *state >> 33;
}

/* A buffer of `size` bytes, terminated by eol at the end; its lines' shape by `kind`. */
enum shape { SHAPE_SHORT, SHAPE_RECORDS, SHAPE_MIXED, SHAPE_AT_SLICES, SHAPE_HUGE, SHAPE_EMPTY_LINES };

static char *make_bytes(enum shape shape, size_t size, unsigned char eol, uint64_t seed)
{
	char *bytes = malloc(size);
	if (!bytes)
		return NULL;
	uint64_t state = seed;
	for (size_t i = 0; i < size; i++)
		bytes[i] = (char)('a' + next_random(&state) % 26);
	size_t at = 0;
	while (at < size) {
		size_t len;
		switch (shape) {
		case SHAPE_SHORT: len = next_random(&state) % 12; break;
		case SHAPE_RECORDS: len = 99; break;
		case SHAPE_MIXED: len = next_random(&state) % 7 == 0 ? next_random(&state) % 70000 : next_random(&state) % 300; break;
		case SHAPE_HUGE: len = 3 * SLICE + next_random(&state) % SLICE; break;
		case SHAPE_EMPTY_LINES: len = next_random(&state) % 3 == 0 ? 0 : next_random(&state) % 5; break;
		default: len = 1000; break;
		}
		at += len;
		if (at < size)
			bytes[at++] = (char)eol;
	}
	if (shape == SHAPE_AT_SLICES)
		/* terminators at a slice's last byte, its first and its second */
		for (size_t slice = SLICE; slice < size; slice += SLICE)
			for (size_t d = 0; d < 3; d++)
				if (slice - 1 + d < size)
					bytes[slice - 1 + d] = (char)eol;
	if (size > 0)
		bytes[size - 1] = (char)eol;
	return bytes;
}

/* The lines of bytes[0, size) by a plain scan: their starts, count + 1 of them. */
static size_t plain_starts(const char *bytes, size_t size, unsigned char eol, uint64_t *starts)
{
	size_t count = 0;
	starts[0] = 0;
	for (size_t i = 0; i < size; i++)
		if ((unsigned char)bytes[i] == eol)
			starts[++count] = i + 1;
	return count;
}

/* A visit that counts, for each line, how often it was given and whether its bytes were
 * those of the line: text_lines_index gives each line once. */
struct visits {
	const char *bytes;
	const uint64_t *starts;
	unsigned char *seen;
	_Atomic size_t wrong;
};

static void visit_lines(void *context, const struct text_lines *lines, size_t first, size_t end)
{
	struct visits *visits = context;
	for (size_t i = first; i < end; i++) {
		size_t len;
		const char *line = text_line(lines, i, &len);
		if (visits->seen[i] < 255)
			visits->seen[i]++;
		if (len != visits->starts[i + 1] - visits->starts[i] - 1 || memcmp(line, visits->bytes + visits->starts[i], len))
			atomic_fetch_add(&visits->wrong, 1);
	}
}

/* What check_case does after a cut: the rest carried to a buffer of its own, or to the
 * start of the same one; or so, with a byte changed after the carry (the words taken as
 * read and as scanned must then differ). */
enum carry { CARRY_OTHER, CARRY_SAME, CARRY_DAMAGED };

/* Reads bytes into lines in pieces of random sizes, counting after each as the text
 * chunks do; cuts at line `cut_line` when it is not (size_t)-1, and then carries the
 * rest into a second chunk as `carry` says; indexes; checks. */
static void check_case(struct thread_pool *pool, const char *name, const char *bytes, size_t size,
		       unsigned char eol, size_t piece_most, size_t cut_line, bool by_position, enum carry carry,
		       uint64_t seed)
{
	uint64_t *starts = malloc((size + 1) * sizeof *starts);
	struct text_lines lines, other;
	text_lines_init(&lines, eol);
	text_lines_init(&other, eol);
	if (!starts || text_lines_reserve(&lines, size)) {
		tap_ok(false, "%s: memory", name);
		free(starts);
		return;
	}
	struct sort_verify verify;
	sort_verify_init(&verify, true);
	verify.by_position = by_position;
	size_t total = plain_starts(bytes, size, eol, starts), count = total, kept_size = size;
	bool cut = cut_line != (size_t)-1 && cut_line <= total;
	uint64_t state = seed;
	int err = 0;
	while (lines.size < size && !err) {
		size_t piece = 1 + next_random(&state) % piece_most;
		if (piece > size - lines.size)
			piece = size - lines.size;
		memcpy(lines.data + lines.size, bytes + lines.size, piece);
		lines.size += piece;
		if (next_random(&state) % 4 != 0) /* some pieces are left for the next count */
			err = text_lines_count(&lines, pool, &verify);
	}
	if (cut) {
		err = err ? err : text_lines_count(&lines, pool, &verify);
		tap_ok(lines.counted_lines == total, "%s: the count before the cut is %zu (%zu)", name, total,
		       lines.counted_lines);
		kept_size = starts[cut_line];
		count = cut_line;
		text_lines_keep(&lines, kept_size, count);
	}
	struct visits visits = { bytes, starts, calloc(count + 1, 1), 0 };
	if (!visits.seen)
		err = -12;
	err = err ? err : text_lines_index(&lines, pool, &verify, visit_lines, &visits);
	tap_ok(err == 0, "%s: indexed", name);
	size_t once = 0;
	for (size_t i = 0; visits.seen && i < count; i++)
		once += visits.seen[i] == 1;
	tap_ok(once == count && atomic_load(&visits.wrong) == 0,
	       "%s: each line visited once, with its bytes (%zu of %zu once, %zu wrong)", name, once, count,
	       atomic_load(&visits.wrong));
	free(visits.seen);
	bool same = lines.count == count;
	for (size_t i = 0; same && i <= count; i++)
		same = lines.starts[i] == starts[i];
	tap_ok(same, "%s: %zu lines, every start as a plain scan finds it (%zu lines)", name, count, lines.count);
	if (cut) {
		/* the next chunk: the lines after the cut, from where the buffer starts */
		struct text_lines *rest = carry == CARRY_SAME ? &lines : &other;
		err = text_lines_carry(rest, &lines, size);
		if (!err && carry == CARRY_DAMAGED && rest->size > 0)
			rest->data[rest->size / 2] ^= 0x20;
		err = err ? err : text_lines_index(rest, pool, &verify, NULL, NULL);
		same = !err && rest->count == total - cut_line;
		for (size_t i = 0; same && i <= rest->count; i++)
			same = rest->starts[i] == starts[cut_line + i] - kept_size;
		if (carry != CARRY_DAMAGED) /* the byte changed may be a terminator */
			tap_ok(same, "%s: the %zu lines carried, their starts where the buffer starts (%zu lines)",
			       name, total - cut_line, rest->count);
		else
			tap_ok(!err, "%s: indexed after the carry", name);
	}
	struct fingerprint expected = {0, 0};
	if (by_position) {
		for (size_t i = 0; i < count; i++)
			fingerprint_add_position(&expected, i);
	} else {
		for (size_t i = 0; i < (cut ? total : count); i++)
			fingerprint_add(&expected, bytes + starts[i], (size_t)(starts[i + 1] - starts[i] - 1));
	}
	if (carry != CARRY_DAMAGED)
		tap_ok(atomic_load(&verify.input_count) == expected.count &&
			       atomic_load(&verify.input_sum) == expected.sum,
		       "%s: the input's fingerprint is every line's, once (%s)", name,
		       by_position ? "by position" : "by bytes");
	uint64_t read = atomic_load(&verify.read_words), scanned = atomic_load(&verify.scanned_words);
	if (carry == CARRY_DAMAGED)
		tap_ok(read != scanned, "%s: a byte changed after the carry, the words scanned are not those read", name);
	else
		tap_ok(read == scanned && read == stream_words(bytes, size, 0),
		       "%s: the words of every byte, taken once as read and once as scanned", name);
	text_lines_free(&lines);
	text_lines_free(&other);
	free(starts);
}

int main(void)
{
	struct thread_pool *pool;
	if (thread_pool_create(3, &pool))
		return 1;
	static const struct {
		const char *name;
		enum shape shape;
		size_t size, piece_most;
	} cases[] = {
		{ "short lines, 2 MiB - 1", SHAPE_SHORT, SLICE - 1, SLICE },
		{ "short lines, 2 MiB", SHAPE_SHORT, SLICE, SLICE },
		{ "short lines, 2 MiB + 1", SHAPE_SHORT, SLICE + 1, SLICE },
		{ "100-byte lines, 9 MiB + 77, small pieces", SHAPE_RECORDS, 9 * SLICE / 2 + 77, 100000 },
		{ "100-byte lines, 16 MiB, large pieces", SHAPE_RECORDS, 8 * SLICE, 5 * SLICE },
		{ "mixed lengths, 12 MiB + 4097", SHAPE_MIXED, 6 * SLICE + 4097, 3 * SLICE },
		{ "terminators around each slice start, 8 MiB + 3", SHAPE_AT_SLICES, 4 * SLICE + 3, 3 * SLICE },
		{ "terminators around each slice start, one count", SHAPE_AT_SLICES, 4 * SLICE + 3, 8 * SLICE },
		{ "lines longer than three slices", SHAPE_HUGE, 13 * SLICE + 5, 2 * SLICE },
		{ "empty and one-byte lines, 4 MiB + 1", SHAPE_EMPTY_LINES, 2 * SLICE + 1, SLICE / 3 },
		{ "one 100-byte line", SHAPE_RECORDS, 100, 100 },
		{ "one byte", SHAPE_SHORT, 1, 1 },
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		for (int nul = 0; nul <= 1; nul++) {
			unsigned char eol = nul ? '\0' : '\n';
			char *bytes = make_bytes(cases[c].shape, cases[c].size, eol, 17 + c);
			uint64_t *starts = bytes ? malloc((cases[c].size + 1) * sizeof *starts) : NULL;
			if (!starts) {
				free(bytes);
				tap_ok(false, "%s: memory", cases[c].name);
				continue;
			}
			size_t count = plain_starts(bytes, cases[c].size, eol, starts);
			free(starts);
			char name[160];
			snprintf(name, sizeof name, "%s, %s", cases[c].name, nul ? "NUL-terminated" : "newlines");
			check_case(pool, name, bytes, cases[c].size, eol, cases[c].piece_most, (size_t)-1, false, CARRY_OTHER,
				   5 + c);
			snprintf(name, sizeof name, "%s, %s, by position", cases[c].name, nul ? "NUL-terminated" : "newlines");
			check_case(pool, name, bytes, cases[c].size, eol, cases[c].piece_most, (size_t)-1, true, CARRY_OTHER,
				   5 + c);
			/* cuts: after the first line, in the middle, before the last, after it; the
			 * rest carried to another buffer, to the same one, and damaged there */
			const size_t cuts[] = { 1, count / 2, count > 1 ? count - 1 : 1, count };
			static const char *const carried[] = { "another buffer", "the same buffer", "damaged" };
			for (size_t k = 0; k < sizeof cuts / sizeof *cuts; k++) {
				for (enum carry carry = CARRY_OTHER; carry <= CARRY_DAMAGED; carry++) {
					if (carry == CARRY_DAMAGED && cuts[k] == count)
						continue; /* nothing carried to damage */
					snprintf(name, sizeof name, "%s, %s, cut after line %zu of %zu, carried to %s",
						 cases[c].name, nul ? "NUL-terminated" : "newlines", cuts[k], count,
						 carried[carry]);
					check_case(pool, name, bytes, cases[c].size, eol, cases[c].piece_most, cuts[k],
						   false, carry, 9 + c);
				}
			}
			free(bytes);
		}
	}
	thread_pool_destroy(pool);
	return tap_done();
}
