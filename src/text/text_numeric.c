/* SPDX-License-Identifier: MIT */
/* -n and -h as GNU sort's strnumcmp and find_unit_order: a number is parsed into sign,
 * integer digits (leading zeros dropped) and fraction digits (trailing zeros dropped)
 * and compared digit by digit, so any length works. The decimal point and thousands
 * separator are the locale's (text_locale.h).
 *
 * Where the locale has no single-byte thousands separator (C, for one), sort 9.1 marks
 * that with CHAR_MAX + 1, which strnumcmp compares with unsigned bytes: so byte 0x80
 * acts as a thousands separator there (skipped among the leading zeros and after any
 * integer digit). The unit scan of -h compares signed chars with it, so there 0x80 ends
 * the number; a real separator it skips once after a digit. */
#include "text_numeric.h"

#include <stdbool.h>
#include "text_fields.h"

struct decimal {
	bool negative;
	const char *integer;  /* from the first significant digit, separators included */
	size_t integer_len;   /* significant integer digits, separators not counted */
	const char *fraction; /* fraction digits without trailing zeros */
	size_t fraction_len;
	const char *after;    /* the first byte after the number */
	bool separated;       /* a separator was skipped */
};

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_separator(const struct text_numbers *n, char c)
{
	return (unsigned char)c == n->thousands_separator;
}

static void parse_decimal(const struct text_numbers *n, const char *p, const char *end,
			  struct decimal *d)
{
	while (p < end && text_is_blank(*p))
		p++;
	d->negative = p < end && *p == '-';
	if (d->negative)
		p++;
	d->separated = false;
	for (; p < end && (*p == '0' || is_separator(n, *p)); p++)
		d->separated |= is_separator(n, *p);
	d->integer = p;
	d->integer_len = 0;
	for (; p < end && (is_digit(*p) || is_separator(n, *p)); p++) {
		if (is_digit(*p))
			d->integer_len++;
		else
			d->separated = true;
	}
	d->fraction = p;
	d->fraction_len = 0;
	if (p < end && (unsigned char)*p == n->decimal_point) {
		d->fraction = ++p;
		size_t significant = 0;
		while (p < end && is_digit(*p)) {
			p++;
			if (p[-1] != '0')
				significant = (size_t)(p - d->fraction);
		}
		d->fraction_len = significant;
	}
	d->after = p;
	if (d->integer_len == 0 && d->fraction_len == 0)
		d->negative = false; /* -0 equals 0 */
}

/* The next integer digit from *p (which starts at d->integer), separators skipped;
 * called at most integer_len times, so it never passes the integer digits. */
static char next_integer_digit(const struct text_numbers *n, const char **p)
{
	while (is_separator(n, **p))
		(*p)++;
	return *(*p)++;
}

static int compare_magnitude(const struct text_numbers *n, const struct decimal *a,
			     const struct decimal *b)
{
	if (a->integer_len != b->integer_len)
		return a->integer_len < b->integer_len ? -1 : 1;
	const char *pa = a->integer, *pb = b->integer;
	for (size_t i = 0; i < a->integer_len; i++) {
		char da = next_integer_digit(n, &pa), db = next_integer_digit(n, &pb);
		if (da != db)
			return da < db ? -1 : 1;
	}
	size_t common = a->fraction_len < b->fraction_len ? a->fraction_len : b->fraction_len;
	for (size_t i = 0; i < common; i++)
		if (a->fraction[i] != b->fraction[i])
			return a->fraction[i] < b->fraction[i] ? -1 : 1;
	return (a->fraction_len > common) - (b->fraction_len > common);
}

static int sign_of(const struct decimal *d)
{
	if (d->integer_len == 0 && d->fraction_len == 0)
		return 0;
	return d->negative ? -1 : 1;
}

static int compare_decimal(const struct text_numbers *n, const struct decimal *a,
			   const struct decimal *b)
{
	int sa = sign_of(a), sb = sign_of(b);
	if (sa != sb)
		return sa < sb ? -1 : 1;
	int diff = compare_magnitude(n, a, b);
	return sa < 0 ? -diff : diff;
}

int text_numeric_compare(const struct text_numbers *n, const char *a, size_t alen,
			 const char *b, size_t blen)
{
	struct decimal da, db;
	parse_decimal(n, a, a + alen, &da);
	parse_decimal(n, b, b + blen, &db);
	return compare_decimal(n, &da, &db);
}

/* find_unit_order's scan (sort 9.1's traverse_raw_number): '-', digits each followed by
 * at most one unit separator, then the decimal point and digits; returns the byte after
 * the number, or a separator that no digit follows, and whether a digit is nonzero. */
static const char *unit_position(const struct text_numbers *n, const char *p, const char *end,
				 bool *negative, bool *nonzero)
{
	while (p < end && text_is_blank(*p))
		p++;
	*negative = p < end && *p == '-';
	if (*negative)
		p++;
	*nonzero = false;
	bool ends_with_separator = false;
	while (p < end && is_digit(*p)) {
		*nonzero |= *p != '0';
		p++;
		ends_with_separator = p < end && (unsigned char)*p == n->unit_separator;
		if (ends_with_separator)
			p++;
	}
	if (ends_with_separator)
		return p - 1;
	if (p < end && (unsigned char)*p == n->decimal_point)
		for (p++; p < end && is_digit(*p); p++)
			*nonzero |= *p != '0';
	return p;
}

/* find_unit_order: that byte is the unit of a nonzero number, and negative numbers get
 * negative orders. Without separators the parse already found it; with them the scan
 * differs, so it runs from the key's start again. */
static int unit_order(const struct text_numbers *n, const struct decimal *d, const char *key,
		      const char *end)
{
	const char *p = d->after;
	bool negative = d->negative, nonzero = sign_of(d) != 0;
	if (d->separated)
		p = unit_position(n, key, end, &negative, &nonzero);
	if (!nonzero || p == end)
		return 0;
	/* sort 9.1's unit_order: k or K up to Y. (9.2 added R and Q; gpusort follows 9.1.) */
	static const char units[] = "KMGTPEZY";
	int order = 0;
	if (*p == 'k')
		order = 1;
	else
		for (int i = 0; units[i]; i++)
			if (*p == units[i])
				order = i + 1;
	return negative ? -order : order;
}

int text_human_compare(const struct text_numbers *n, const char *a, size_t alen,
		       const char *b, size_t blen)
{
	struct decimal da, db;
	parse_decimal(n, a, a + alen, &da);
	parse_decimal(n, b, b + blen, &db);
	int oa = unit_order(n, &da, a, a + alen), ob = unit_order(n, &db, b, b + blen);
	if (oa != ob)
		return oa < ob ? -1 : 1;
	return compare_decimal(n, &da, &db);
}

/* The image of a decimal in `bits` bits: 2 class bits (negative, zero, positive), then
 * for the magnitude an exponent (the integer digit count) and as many leading digits as
 * fit, 4 bits each. Truncation only merges values, never reorders them; an exponent too
 * big for its field saturates with the digits cleared, so such numbers tie. Negative
 * magnitudes are inverted so that bigger magnitudes come first. */
static uint64_t decimal_image(const struct text_numbers *n, const struct decimal *d, unsigned bits)
{
	const unsigned exponent_bits = 10;
	unsigned body_bits = bits - 2;
	int sign = sign_of(d);
	if (sign == 0)
		return (uint64_t)1 << body_bits;
	uint64_t body_mask = ((uint64_t)1 << body_bits) - 1;
	unsigned digit_bits = body_bits - exponent_bits;
	uint64_t magnitude;
	const uint64_t max_exponent = ((uint64_t)1 << exponent_bits) - 1;
	if (d->integer_len >= max_exponent) {
		magnitude = max_exponent << digit_bits;
	} else {
		uint64_t digits = 0;
		unsigned slots = digit_bits / 4;
		const char *integer = d->integer;
		for (unsigned i = 0; i < slots; i++) {
			unsigned digit = 0;
			if (i < d->integer_len)
				digit = (unsigned)(next_integer_digit(n, &integer) - '0');
			else if (i - d->integer_len < d->fraction_len)
				digit = (unsigned)(d->fraction[i - d->integer_len] - '0');
			digits = digits << 4 | digit;
		}
		digits <<= digit_bits - slots * 4;
		magnitude = (uint64_t)d->integer_len << digit_bits | digits;
	}
	if (sign < 0)
		return ~magnitude & body_mask;
	return (uint64_t)2 << body_bits | magnitude;
}

uint64_t text_numeric_image(const struct text_numbers *n, const char *key, size_t len)
{
	struct decimal d;
	parse_decimal(n, key, key + len, &d);
	return decimal_image(n, &d, 64);
}

uint64_t text_human_image(const struct text_numbers *n, const char *key, size_t len)
{
	struct decimal d;
	parse_decimal(n, key, key + len, &d);
	/* Orders -10..10 in the top 5 bits, the number below them. */
	uint64_t order = (uint64_t)(unit_order(n, &d, key, key + len) + 10);
	return order << 59 | decimal_image(n, &d, 59);
}
