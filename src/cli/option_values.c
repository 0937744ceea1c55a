/* SPDX-License-Identifier: MIT */
/* The arguments of single options (option_values.h): counts, sizes, words and key
 * fields, with GNU sort's grammar and messages where GNU has the option. */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <gpusort.h>
#include "option_values.h"

static const char *const key_type_names[] = {"u32", "i32", "u64", "i64", "f32", "f64", "bytes"};
static const enum gpusort_key_type key_types[] = {GPUSORT_KEY_U32, GPUSORT_KEY_I32, GPUSORT_KEY_U64,
						   GPUSORT_KEY_I64, GPUSORT_KEY_F32, GPUSORT_KEY_F64,
						   GPUSORT_KEY_BYTES};
static const char *const algorithm_names[] = {"bucket", "sample", "radix", "bitonic", "quick"};
static const enum gpusort_algorithm algorithms[] = {GPUSORT_ALGORITHM_BUCKET, GPUSORT_ALGORITHM_SAMPLE,
						    GPUSORT_ALGORITHM_RADIX, GPUSORT_ALGORITHM_BITONIC,
						    GPUSORT_ALGORITHM_QUICK};

int match_word(const char *text, const char *const *words, const char *values, size_t count)
{
	size_t length = strlen(text);
	int found = -1;
	bool ambiguous = false;
	for (size_t i = 0; i < count; i++) {
		if (strncmp(words[i], text, length) != 0)
			continue;
		if (words[i][length] == '\0')
			return values[i];
		if (found < 0)
			found = values[i];
		else if (found != values[i])
			ambiguous = true;
	}
	return ambiguous ? -2 : found;
}

int parse_count(const char *text, size_t minimum, size_t *value)
{
	char *end;
	if (text[0] < '0' || text[0] > '9')
		return -EINVAL;
	errno = 0;
	unsigned long long parsed = strtoull(text, &end, 10);
	if (errno || *end || parsed < minimum || parsed > SIZE_MAX)
		return -EINVAL;
	*value = (size_t)parsed;
	return 0;
}

/* The index of text in a list of names, or -1. */
static int find_name(const char *text, const char *const *names, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (strcmp(text, names[i]) == 0)
			return (int)i;
	return -1;
}

int parse_key_type(const char *text, enum gpusort_key_type *type)
{
	int found = find_name(text, key_type_names, sizeof key_type_names / sizeof *key_type_names);
	if (found < 0)
		return -EINVAL;
	*type = key_types[found];
	return 0;
}

int parse_algorithm(const char *text, enum gpusort_algorithm *algorithm)
{
	int found = find_name(text, algorithm_names, sizeof algorithm_names / sizeof *algorithm_names);
	if (found < 0)
		return -EINVAL;
	*algorithm = algorithms[found];
	return 0;
}

int parse_device(const char *text, int *device)
{
	size_t ordinal;
	if (strcmp(text, "auto") == 0)
		*device = GPUSORT_DEVICE_AUTO;
	else if (strcmp(text, "cpu") == 0)
		*device = GPUSORT_DEVICE_CPU;
	else if (parse_count(text, 0, &ordinal) == 0 && ordinal < 1024)
		*device = (int)ordinal;
	else
		return -EINVAL;
	return 0;
}

int parse_separator(const char *text, int *separator)
{
	if (text[0] == '\0')
		return -EINVAL;
	if (strcmp(text, "\\0") == 0)
		*separator = '\0';
	else if (text[1] != '\0')
		return -E2BIG;
	else
		*separator = (unsigned char)text[0];
	return 0;
}

/* As GNU sort's specify_nmerge() reads it (xstrtoumax: leading blanks and '+'
 * allowed, no suffix), with its messages: at least 2, and at most the descriptors the
 * process may open, less stdin, stdout and stderr. */
int parse_header_lines(const char *text, size_t *lines)
{
	if (!text) {
		*lines = 1;
		return 0;
	}
	char *end;
	errno = 0;
	uintmax_t value = isdigit((unsigned char)*text) ? strtoumax(text, &end, 10) : 0;
	if (!isdigit((unsigned char)*text))
		return number_error(NUMBER_INVALID, "--header", text);
	if (*end)
		return number_error(NUMBER_BAD_SUFFIX, "--header", text);
	if (errno == ERANGE || value > SIZE_MAX)
		return number_error(NUMBER_TOO_LARGE, "--header", text);
	*lines = (size_t)value;
	return 0;
}

int parse_batch_size(const char *text, size_t *batch_size)
{
	struct rlimit limit;
	unsigned most = (unsigned)((getrlimit(RLIMIT_NOFILE, &limit) == 0 ? limit.rlim_cur : 20) - 3);
	const char *digits = text;
	while (isspace((unsigned char)*digits))
		digits++;
	char *end = (char *)digits;
	uintmax_t value = 0;
	errno = 0;
	if (*digits != '-')
		value = strtoumax(digits, &end, 10);
	bool too_large = errno == ERANGE || value > UINT_MAX || value > most;
	/* xstrtol_fatal()'s words and straight quotes; GNU's own checks below quote() */
	if (end == digits)
		return number_error(NUMBER_INVALID, "--batch-size", text);
	if (*end)
		return number_error(NUMBER_BAD_SUFFIX, "--batch-size", text);
	if (value < 2) {
		option_error_quoted("invalid --batch-size argument %s", text);
		return option_error_quoted("minimum --batch-size argument is %s", "2");
	}
	if (too_large) {
		char maximum[16];
		snprintf(maximum, sizeof maximum, "%u", most);
		option_error_quoted("--batch-size argument %s too large", text);
		return option_error("maximum --batch-size argument with current rlimit is %s", maximum);
	}
	*batch_size = (size_t)value;
	return 0;
}

/* By GNU sort 9.1's rules (xstrtoumax with the suffixes below, then
 * specify_sort_size's b and %): no number at all, a number followed by something
 * else, or a size too large. */
enum number_trouble size_trouble(const char *text)
{
	const char *start = text;
	while (isspace((unsigned char)*start))
		start++;
	if (*start == '-')
		return NUMBER_INVALID;
	char *end;
	errno = 0;
	(void)strtoumax(text, &end, 10);
	bool overflow = errno == ERANGE;
	bool scaled = *end && strchr("EgGkKmMPtTYZ", *end);
	if (end == text && !scaled)
		return NUMBER_INVALID; /* a suffix alone counts one of it */
	if (*end == '\0')
		return NUMBER_TOO_LARGE;
	if (scaled)
		return end[1] ? NUMBER_BAD_SUFFIX : NUMBER_TOO_LARGE;
	/* b or % that end the text after a digit fail by their size alone */
	return !overflow && !end[1] && (*end == 'b' || *end == '%') ? NUMBER_TOO_LARGE : NUMBER_BAD_SUFFIX;
}

/* As GNU's specify_nthreads() reads it: a count past SIZE_MAX is SIZE_MAX, zero is
 * refused in words of its own. More threads than gpusort starts (4096) are as many as
 * it starts. */
int parse_threads(const char *text, unsigned *threads)
{
	const char *digits = text;
	while (isspace((unsigned char)*digits))
		digits++;
	if (*digits == '-' || !isdigit((unsigned char)digits[*digits == '+']))
		return number_error(NUMBER_INVALID, "--parallel", text);
	char *end;
	errno = 0;
	uintmax_t value = strtoumax(digits, &end, 10);
	if (*end)
		return number_error(NUMBER_BAD_SUFFIX, "--parallel", text);
	if (errno == ERANGE || value > 4096)
		value = 4096;
	if (value == 0)
		return option_error("%s", "number in parallel must be nonzero");
	*threads = (unsigned)value;
	return 0;
}

/* (Whether the field lies inside the record is gpusort_run()'s to say: the record
 * size may come later on the command line.) */
int parse_key_field(const char *spec, struct gpusort_binary_key *field, char *reason, size_t size)
{
	char copy[256];
	if (strlen(spec) >= sizeof copy)
		return snprintf(reason, size, "too long"), -EINVAL;
	strcpy(copy, spec);
	char *parts[5];
	size_t count = 0;
	for (char *part = copy, *colon; part && count < 5; part = colon ? colon + 1 : NULL) {
		colon = strchr(part, ':');
		if (colon)
			*colon = '\0';
		parts[count++] = part;
	}
	memset(field, 0, sizeof *field);
	if (parse_key_type(parts[0], &field->type) < 0)
		return snprintf(reason, size, "unknown type '%s' (expected u32, i32, u64, i64, f32, f64 or bytes)",
				parts[0]), -EINVAL;
	if (count < 2 || !parts[1][0])
		return snprintf(reason, size, "the offset is missing (TYPE:OFFSET[:SIZE][:asc|:desc])"), -EINVAL;
	if (parse_count(parts[1], 0, &field->offset) < 0)
		return snprintf(reason, size, "invalid offset '%s'", parts[1]), -EINVAL;
	size_t next = 2;
	if (next < count && parts[next][0] >= '0' && parts[next][0] <= '9') {
		if (parse_count(parts[next], 1, &field->size) < 0)
			return snprintf(reason, size, "invalid size '%s'", parts[next]), -EINVAL;
		next++;
	}
	if (next < count) {
		if (strcmp(parts[next], "desc") == 0)
			field->descending = 1;
		else if (strcmp(parts[next], "asc") != 0)
			return snprintf(reason, size, "'%s' is neither a size nor asc or desc", parts[next]), -EINVAL;
		next++;
	}
	if (next < count || count == 5)
		return snprintf(reason, size, "too many parts (TYPE:OFFSET[:SIZE][:asc|:desc])"), -EINVAL;
	return 0;
}
