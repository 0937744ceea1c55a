/* SPDX-License-Identifier: MIT */
/* The Debian version comparison that filevercmp builds on, for bounded strings, with
 * filevercmp's special cases: empty first, then ".", "..", other dot names, and a
 * first pass that leaves out suffixes like ".tar.gz". */
#include "text_version.h"

#include <stdbool.h>

static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static bool is_alpha(unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }

/* The length of s without its longest suffix matching (\.[A-Za-z~][A-Za-z0-9~]*)*$ .
 * As in sort 9.1, the suffix may be all of a dot name (".a", ".tar.gz"): such a name
 * then compares as empty in the first pass. (Later gnulib keeps at least one byte.) */
static size_t prefix_length(const char *s, size_t n)
{
	size_t prefix = 0;
	for (size_t i = 0;;) {
		while (i + 1 < n && s[i] == '.' && (is_alpha(s[i + 1]) || s[i + 1] == '~'))
			for (i += 2; i < n && (is_alpha(s[i]) || is_digit(s[i]) || s[i] == '~'); i++)
				continue;
		if (i == n)
			return prefix;
		prefix = ++i;
	}
}

static int weight(const char *s, size_t pos, size_t len)
{
	if (pos == len)
		return -1;
	unsigned char c = (unsigned char)s[pos];
	if (is_digit(c))
		return 0;
	if (is_alpha(c))
		return c;
	if (c == '~')
		return -2;
	return c + 256;
}

static int debian_compare(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t i = 0, j = 0;
	while (i < alen || j < blen) {
		int first_diff = 0;
		while ((i < alen && !is_digit(a[i])) || (j < blen && !is_digit(b[j]))) {
			int wa = weight(a, i, alen), wb = weight(b, j, blen);
			if (wa != wb)
				return wa - wb;
			i++;
			j++;
		}
		while (i < alen && a[i] == '0')
			i++;
		while (j < blen && b[j] == '0')
			j++;
		while (i < alen && j < blen && is_digit(a[i]) && is_digit(b[j])) {
			if (!first_diff)
				first_diff = a[i] - b[j];
			i++;
			j++;
		}
		if (i < alen && is_digit(a[i]))
			return 1;
		if (j < blen && is_digit(b[j]))
			return -1;
		if (first_diff)
			return first_diff;
	}
	return 0;
}

int text_version_compare(const char *a, size_t alen, const char *b, size_t blen)
{
	if (alen == 0)
		return blen == 0 ? 0 : -1;
	if (blen == 0)
		return 1;
	if (a[0] == '.') {
		if (b[0] != '.')
			return -1;
		bool adot = alen == 1, bdot = blen == 1;
		if (adot)
			return bdot ? 0 : -1;
		if (bdot)
			return 1;
		bool adotdot = a[1] == '.' && alen == 2, bdotdot = b[1] == '.' && blen == 2;
		if (adotdot)
			return bdotdot ? 0 : -1;
		if (bdotdot)
			return 1;
	} else if (b[0] == '.') {
		return 1;
	}
	size_t aprefix = prefix_length(a, alen), bprefix = prefix_length(b, blen);
	bool one_pass = aprefix == alen && bprefix == blen;
	int result = debian_compare(a, aprefix, b, bprefix);
	return result || one_pass ? result : debian_compare(a, alen, b, blen);
}

/* The image, from the top: the special cases' rank (3 bits: empty, ".", "..", other dot
 * names, the rest); for the rest the first pass's view of the name without its suffix:
 * the weights of its first bytes (10 bits each, suffix removal always keeps the first)
 * up to the first digit or the end, or after a leading digit the value of the leading
 * digit run instead (51 bits, saturated: larger values tie). Where two images differ,
 * the first pass decides there; dot names other than "." and ".." tie. */
#define RANK_BITS 10
#define VALUE_BITS 51
#define VALUE_MAX (((uint64_t)1 << VALUE_BITS) - 1)

/* '~' 0, then the end and a digit alike (a run of zeros weighs as much as the end, so
 * neither decides there), then letters and other bytes by their weights (up to 513). */
static uint64_t rank(const char *s, size_t pos, size_t len)
{
	if (pos == len || is_digit((unsigned char)s[pos]))
		return 1;
	return (uint64_t)(weight(s, pos, len) + 2);
}

uint64_t text_version_image(const char *s, size_t len)
{
	if (len == 0)
		return 0;
	if (s[0] == '.') {
		if (len == 1)
			return (uint64_t)1 << 61;
		if (len == 2 && s[1] == '.')
			return (uint64_t)2 << 61;
		return (uint64_t)3 << 61;
	}
	uint64_t image = (uint64_t)4 << 61 | rank(s, 0, len) << VALUE_BITS;
	if (!is_digit((unsigned char)s[0])) {
		size_t prefix = prefix_length(s, len);
		for (size_t p = 1; p <= VALUE_BITS / RANK_BITS; p++) {
			image |= rank(s, p, prefix) << (VALUE_BITS - RANK_BITS * p);
			if (p == prefix || is_digit((unsigned char)s[p]))
				break;
		}
		return image;
	}
	size_t i = 0;
	while (i < len && s[i] == '0')
		i++;
	uint64_t value = 0;
	for (; i < len && is_digit((unsigned char)s[i]); i++) {
		if (value > (VALUE_MAX - 9) / 10) {
			value = VALUE_MAX;
			break;
		}
		value = value * 10 + (uint64_t)(s[i] - '0');
	}
	return image | value;
}
