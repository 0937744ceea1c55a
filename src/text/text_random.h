/* SPDX-License-Identifier: MIT */
/* GNU sort's random order (-R, an R in a KEYDEF) as the pipeline sorts it: a key's
 * 64-bit prefix is a keyed hash (SipHash-2-4, salted with 16 bytes) of the key as -d, -i
 * and -f leave it, or in a collating locale of its whole collation image; keys whose
 * hashes tie compare by those bytes. So keys that compare equal hash equal and end up
 * adjacent, every other pair is in an order the salt decides, and the same salt gives
 * the same order on every engine, in memory or spilled, and under -m and -c. */
#ifndef GPUSORT_TEXT_RANDOM_H
#define GPUSORT_TEXT_RANDOM_H

#include <stddef.h>
#include <stdint.h>
#include "../settings/keydef.h"
#include "text_locale.h"

/* The bytes of salt a random order takes, as GNU sort reads them from --random-source. */
#define TEXT_RANDOM_SALT_BYTES 16

struct text_random {
	uint64_t k0, k1; /* the hash's key: the salt, little-endian */
};

/* The salt's bytes as the hash's two little-endian key words. */
static inline void text_random_init(struct text_random *random, const unsigned char salt[TEXT_RANDOM_SALT_BYTES])
{
	random->k0 = random->k1 = 0;
	for (int i = 7; i >= 0; i--) {
		random->k0 = random->k0 << 8 | salt[i];
		random->k1 = random->k1 << 8 | salt[8 + i];
	}
}

/* SipHash-2-4 of bytes[0, len) under the salt. */
uint64_t text_random_hash(const struct text_random *random, const void *bytes, size_t len);

/* A random key's prefix, -r of the key not applied; 0 when memory runs out (the
 * comparison decides such ties). */
uint64_t text_random_prefix(const struct text_random *random, const struct key_ordering *ordering,
			    const struct text_locale *locale, const char *key, size_t len);

/* <0, 0, >0 as key a sorts before, with or after key b in the random order, -r of the
 * key applied: by the prefix, then by the hashed bytes. */
int text_random_compare(const struct text_random *random, const struct key_ordering *ordering,
			const struct text_locale *locale, const char *a, size_t alen, const char *b, size_t blen);

#endif
