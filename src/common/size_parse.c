/* SPDX-License-Identifier: MIT */
/* Sizes as GNU sort 9.1 reads them (see size_parse.h): gnulib's xstrtoumax with the
 * suffixes "EgGkKmMPtTYZ", then sort's specify_sort_size for a bare number, b and %. */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "size_parse.h"

size_t physical_memory_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	if (pages <= 0 || page <= 0)
		return (size_t)1 << 30;
	return (size_t)pages * (size_t)page;
}

/* The power of 1024 a suffix letter scales by (xstrtoumax's), or 0 for none. */
static int suffix_power(char letter)
{
	static const char letters[] = "KMGTPEZY";
	if (letter == 'k' || letter == 'm' || letter == 'g' || letter == 't')
		letter = (char)toupper((unsigned char)letter);
	const char *found = letter ? strchr(letters, letter) : NULL;
	return found ? (int)(found - letters) + 1 : 0;
}

/* value times 1024^power, or false (value saturated) past UINTMAX_MAX. */
static bool scale(uintmax_t *value, int power)
{
	for (int i = 0; i < power; i++) {
		if (*value > UINTMAX_MAX / 1024) {
			*value = UINTMAX_MAX;
			return false;
		}
		*value *= 1024;
	}
	return true;
}

/* b (bytes) or % (of physical memory) after a number's last digit, ending the text. */
static int bytes_or_percent(const char *suffix, uintmax_t *value)
{
	if (!isdigit((unsigned char)suffix[-1]) || suffix[1] != '\0')
		return -EILSEQ;
	if (suffix[0] == 'b')
		return 0;
	if (suffix[0] != '%')
		return -EILSEQ;
	/* "<", not "<=", as GNU: UINTMAX_MAX rounds up as a double */
	double memory = (double)physical_memory_bytes() * (double)*value / 100;
	if (!(memory < (double)UINTMAX_MAX))
		return -ERANGE;
	*value = (uintmax_t)memory;
	return 0;
}

int size_parse(const char *text, size_t default_unit, size_t *bytes)
{
	const char *start = text;
	while (isspace((unsigned char)*start))
		start++;
	if (*start == '-')
		return -EINVAL;
	char *end;
	errno = 0;
	uintmax_t value = strtoumax(text, &end, 10);
	bool overflow = errno == ERANGE;
	if (end == text) {
		/* no number: a suffix alone means one of it, as in xstrtoumax */
		if (!suffix_power(*end))
			return -EINVAL;
		value = 1;
	}
	int error = 0;
	if (*end == '\0') {
		if (overflow || value > UINTMAX_MAX / default_unit)
			return -ERANGE;
		value *= default_unit;
	} else if (suffix_power(*end)) {
		overflow |= !scale(&value, suffix_power(*end));
		if (end[1] != '\0')
			return -EILSEQ; /* with an overflow too, as xstrtol_fatal words it */
		if (overflow)
			return -ERANGE;
	} else {
		/* an overflow with a bad suffix is a bad suffix, as specify_sort_size says */
		if (overflow)
			return -EILSEQ;
		error = bytes_or_percent(end, &value);
	}
	if (error)
		return error;
	if (value > SIZE_MAX)
		return -ERANGE;
	*bytes = (size_t)value;
	return 0;
}
