/* SPDX-License-Identifier: MIT */
/* -g: strtold needs a terminated string, so keys are copied (on the stack when short).
 * NaNs order among themselves by their bytes, as coreutils 9.1 does. */
#include "text_general.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct general {
	bool converted;
	long double value;
};

static struct general parse_general(const char *key, size_t len)
{
	char stack[128];
	char *copy = len < sizeof stack ? stack : malloc(len + 1);
	struct general g = { false, 0 };
	if (!copy)
		return g; /* cannot happen in practice; orders the key as a non-number */
	memcpy(copy, key, len);
	copy[len] = '\0';
	char *end;
	g.value = strtold(copy, &end);
	g.converted = end != copy;
	if (copy != stack)
		free(copy);
	return g;
}

/* coreutils 9.1 orders NaNs by memcmp of the long double's bytes, padding included;
 * the padding holds whatever the stack did, so only the value's bytes (10 on x86's
 * 80-bit format) can be matched: equal NaNs then fall to the whole-line comparison. */
static int compare_nans(long double a, long double b)
{
	size_t bytes = LDBL_MANT_DIG == 64 ? 10 : sizeof a;
	return memcmp(&a, &b, bytes);
}

int text_general_compare(const char *a, size_t alen, const char *b, size_t blen)
{
	struct general ga = parse_general(a, alen), gb = parse_general(b, blen);
	if (!ga.converted)
		return gb.converted ? -1 : 0;
	if (!gb.converted)
		return 1;
	long double x = ga.value, y = gb.value;
	if (x < y)
		return -1;
	if (x > y)
		return 1;
	if (x == y)
		return 0;
	if (!isnan(y))
		return -1;
	if (!isnan(x))
		return 1;
	return compare_nans(x, y);
}

/* Non-numbers 0, NaNs 1, numbers above through the usual float-to-unsigned transform
 * of the value rounded to double (rounding keeps order, though it may merge values). */
uint64_t text_general_image(const char *key, size_t len)
{
	struct general g = parse_general(key, len);
	if (!g.converted)
		return 0;
	if (isnan(g.value))
		return 1;
	double value = (double)g.value;
	if (value == 0)
		value = 0; /* -0 equals +0 */
	uint64_t bits;
	memcpy(&bits, &value, sizeof bits);
	return bits >> 63 ? ~bits : bits | (uint64_t)1 << 63;
}
