/* Sizes as GNU sort reads them (see size_parse.h). */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "size_parse.h"

size_t physical_memory_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	if (pages <= 0 || page <= 0)
		return (size_t)1 << 30;
	return (size_t)pages * (size_t)page;
}

int size_parse(const char *text, size_t default_unit, size_t *bytes)
{
	char *end;
	if (!isdigit((unsigned char)text[0]))
		return -EINVAL;
	errno = 0;
	unsigned long long value = strtoull(text, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (end == text)
		return -EINVAL;
	if (*end == '\0') {
		if (value > SIZE_MAX / default_unit)
			return -ERANGE;
		*bytes = (size_t)value * default_unit;
		return 0;
	}
	if (end[1] != '\0')
		return -EINVAL;
	if (*end == '%') {
		if (value > 100)
			return -ERANGE;
		*bytes = (size_t)((double)physical_memory_bytes() * (double)value / 100.0);
		return 0;
	}
	const char *units = "BKMGTPEZY";
	int power = -1;
	for (int i = 0; units[i]; i++)
		if (toupper((unsigned char)*end) == units[i])
			power = i;
	if (power < 0)
		return -EINVAL;
	/* Scaled one 1024 at a time, as GNU's xstrtoumax: 0Y is 0, not an overflow. */
	if (value > SIZE_MAX)
		return -ERANGE;
	size_t scaled = (size_t)value;
	for (int i = 0; i < power; i++) {
		if (scaled > SIZE_MAX / 1024)
			return -ERANGE;
		scaled *= 1024;
	}
	*bytes = scaled;
	return 0;
}
