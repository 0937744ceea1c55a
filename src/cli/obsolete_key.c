/* SPDX-License-Identifier: MIT */
/* The obsolete key +POS1 [-POS2] (obsolete_key.h): GNU's counts (xstrtoumax, which
 * saturates) and ordering letters, turned into the equivalent 1-origin KEYDEF. */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "obsolete_key.h"
#include "option_errors.h"

/* A count as GNU reads it (xstrtoumax): blanks and a '+' may lead, digits must follow;
 * a count too large for the type saturates (overflow says so). Returns the rest, or
 * NULL without digits. */
static const char *gnu_count(const char *text, uintmax_t *value, bool *overflow)
{
	while (isspace((unsigned char)*text))
		text++;
	if (*text == '+')
		text++;
	if (!isdigit((unsigned char)*text))
		return NULL;
	char *end;
	errno = 0;
	*value = strtoumax(text, &end, 10);
	*overflow = errno == ERANGE;
	return end;
}

/* The ordering letters GNU sort takes in a key, as many as lead text. */
static const char *ordering_letters_end(const char *text)
{
	return text + strspn(text, "bdfghiMnRrV");
}

/* One past a 0-origin count, saturating. */
static uintmax_t origin_one(uintmax_t value)
{
	return value == UINTMAX_MAX ? value : value + 1;
}

/* -POS2 names where the key stops: the end of field POS2 when its character is 0. */
int obsolete_keydef(const char *plus, const char *minus, char *keydef, size_t size)
{
	uintmax_t start_field, start_char = 0;
	bool saturated; /* as GNU: a count too large reads as the largest */
	const char *rest = gnu_count(plus + 1, &start_field, &saturated);
	if (rest && *rest == '.')
		rest = gnu_count(rest + 1, &start_char, &saturated);
	if (!rest || *ordering_letters_end(rest))
		return 1;
	int length = snprintf(keydef, size, "%ju.%ju%s", origin_one(start_field), origin_one(start_char), rest);
	if (!minus)
		return 0;
	uintmax_t end_field, end_char = 0;
	rest = gnu_count(minus + 1, &end_field, &saturated);
	if (*rest == '.') {
		const char *digits = rest + 1;
		rest = gnu_count(digits, &end_char, &saturated);
		if (!rest)
			return option_error_quoted("invalid number after '.': invalid count at start of %s", digits);
	}
	if (*ordering_letters_end(rest))
		return option_error_quoted("stray character in field spec: invalid field specification %s", minus);
	/* -B.0 stops at the end of field B (0-origin B-1, which -k calls B); -0 as -1 */
	if (end_char == 0)
		snprintf(keydef + length, size - (size_t)length, ",%ju%s", end_field ? end_field : 1, rest);
	else
		snprintf(keydef + length, size - (size_t)length, ",%ju.%ju%s", origin_one(end_field), end_char, rest);
	return 0;
}

/* (With -POS2 after it, +POS1 is a key also under those versions unless
 * POSIXLY_CORRECT is set: the caller's to decide.) */
bool traditional_usage(void)
{
	const char *version = getenv("_POSIX2_VERSION");
	long value = 200809; /* the POSIX of GNU's build */
	if (version && *version) {
		char *end;
		long parsed = strtol(version, &end, 10);
		if (!*end)
			value = parsed;
	}
	return !(200112 <= value && value < 200809);
}
