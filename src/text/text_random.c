/* SPDX-License-Identifier: MIT */
/* The random order's keyed hash (SipHash-2-4, Aumasson and Bernstein) and the bytes it
 * hashes: the key with -d/-i's bytes dropped and -f's case folded, as GNU sort's
 * compare_random sees it, and in a collating locale that key's collation image, so that
 * keys the locale collates equal hash equal. */
#include "text_random.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "text_collate.h"
#include "text_ignore.h"

static uint64_t load_le64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static inline uint64_t rotl(uint64_t x, int b)
{
	return x << b | x >> (64 - b);
}

struct sip_state {
	uint64_t v0, v1, v2, v3;
};

static inline void sip_round(struct sip_state *s)
{
	s->v0 += s->v1; s->v1 = rotl(s->v1, 13); s->v1 ^= s->v0; s->v0 = rotl(s->v0, 32);
	s->v2 += s->v3; s->v3 = rotl(s->v3, 16); s->v3 ^= s->v2;
	s->v0 += s->v3; s->v3 = rotl(s->v3, 21); s->v3 ^= s->v0;
	s->v2 += s->v1; s->v1 = rotl(s->v1, 17); s->v1 ^= s->v2; s->v2 = rotl(s->v2, 32);
}

static inline void sip_absorb(struct sip_state *s, uint64_t m)
{
	s->v3 ^= m;
	sip_round(s);
	sip_round(s);
	s->v0 ^= m;
}

uint64_t text_random_hash(const struct text_random *random, const void *bytes, size_t len)
{
	const unsigned char *p = bytes;
	struct sip_state s = {random->k0 ^ 0x736f6d6570736575ULL, random->k1 ^ 0x646f72616e646f6dULL,
			      random->k0 ^ 0x6c7967656e657261ULL, random->k1 ^ 0x7465646279746573ULL};
	size_t whole = len - len % 8;
	for (size_t i = 0; i < whole; i += 8)
		sip_absorb(&s, load_le64(p + i));
	/* the last word: the remaining bytes, and the length's low byte on top */
	uint64_t last = (uint64_t)(len & 0xff) << 56;
	for (size_t i = 0; i < len % 8; i++)
		last |= (uint64_t)p[whole + i] << (8 * i);
	sip_absorb(&s, last);
	s.v2 ^= 0xff;
	for (int i = 0; i < 4; i++)
		sip_round(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

enum { STACK_BYTES = 512 };

/* The bytes a random key is hashed by, in stack when they fit (else allocated; NULL
 * when that fails). */
static char *hashed_bytes(const struct key_ordering *o, const struct text_locale *locale, const char *key,
			  size_t len, char *stack, size_t *out_len)
{
	const bool *ignore = text_ignored_bytes(o);
	char translated_stack[STACK_BYTES];
	const char *text = key;
	char *translated = NULL;
	size_t n = len;
	if (ignore || o->fold_case) {
		translated = len <= sizeof translated_stack ? translated_stack : malloc(len);
		if (!translated)
			return NULL;
		n = 0;
		for (size_t i = 0; i < len; i++) {
			unsigned char c = (unsigned char)key[i];
			if (!(ignore && ignore[c]))
				translated[n++] = (char)(o->fold_case ? text_fold(c) : c);
		}
		text = translated;
	}
	char *out = stack;
	if (locale->collate) {
		size_t needed = text_collate_transform(text, n, stack, STACK_BYTES);
		if (needed > STACK_BYTES && needed != SIZE_MAX) {
			out = malloc(needed);
			if (out)
				text_collate_transform(text, n, out, needed);
		}
		if (needed == SIZE_MAX)
			out = NULL;
		n = needed;
	} else if (n <= STACK_BYTES) {
		memcpy(stack, text, n);
	} else {
		out = malloc(n);
		if (out)
			memcpy(out, text, n);
	}
	if (translated && translated != translated_stack)
		free(translated);
	*out_len = n;
	return out;
}

uint64_t text_random_prefix(const struct text_random *random, const struct key_ordering *ordering,
			    const struct text_locale *locale, const char *key, size_t len)
{
	const bool *ignore = text_ignored_bytes(ordering);
	if (!locale->collate && !ignore && !ordering->fold_case)
		return text_random_hash(random, key, len);
	char stack[STACK_BYTES];
	size_t n;
	char *bytes = hashed_bytes(ordering, locale, key, len, stack, &n);
	if (!bytes)
		return 0;
	uint64_t hash = text_random_hash(random, bytes, n);
	if (bytes != stack)
		free(bytes);
	return hash;
}

int text_random_compare(const struct text_random *random, const struct key_ordering *ordering,
			const struct text_locale *locale, const char *a, size_t alen, const char *b, size_t blen)
{
	char stack_a[STACK_BYTES], stack_b[STACK_BYTES];
	size_t na, nb;
	char *ta = hashed_bytes(ordering, locale, a, alen, stack_a, &na);
	char *tb = hashed_bytes(ordering, locale, b, blen, stack_b, &nb);
	int diff;
	if (ta && tb) {
		uint64_t ha = text_random_hash(random, ta, na), hb = text_random_hash(random, tb, nb);
		diff = ha != hb ? (ha > hb) - (ha < hb) : memcmp(ta, tb, na < nb ? na : nb);
		if (ha == hb && diff == 0)
			diff = (na > nb) - (na < nb);
	} else {
		/* out of memory: a stable answer that the self-check will question */
		diff = (ta != NULL) - (tb != NULL);
	}
	if (ta && ta != stack_a)
		free(ta);
	if (tb && tb != stack_b)
		free(tb);
	if (diff)
		diff = diff < 0 ? -1 : 1;
	return ordering->reverse ? -diff : diff;
}
