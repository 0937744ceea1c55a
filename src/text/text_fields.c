/* SPDX-License-Identifier: MIT */
/* Key extraction with GNU sort's begfield/limfield rules: without -t a field includes
 * the blanks before it; with -t the separator ends a field; character offsets never run
 * past the end of the line. */
#include <string.h>
#include "text_fields.h"

static const char *skip_fields(const char *p, const char *lim, size_t fields, int separator,
			       bool keep_last_separator)
{
	if (separator >= 0) {
		while (p < lim && fields--) {
			const char *found = memchr(p, separator, (size_t)(lim - p));
			p = found ? found : lim;
			/* limfield stops on the separator that ends the key's own field. */
			if (p < lim && (fields || !keep_last_separator))
				p++;
		}
	} else {
		while (p < lim && fields--) {
			while (p < lim && text_is_blank(*p))
				p++;
			while (p < lim && !text_is_blank(*p))
				p++;
		}
	}
	return p;
}

static const char *skip_blanks(const char *p, const char *lim)
{
	while (p < lim && text_is_blank(*p))
		p++;
	return p;
}

void text_key_bounds(const struct keydef *key, int separator, const char *line, size_t len,
		     const char **begin, const char **end)
{
	const char *lim = line + len;

	size_t skipped = key->start_field - 1;
	const char *field = skip_fields(line, lim, skipped, separator, false), *b = field;
	if (key->ordering.skip_start_blanks)
		b = skip_blanks(b, lim);
	size_t offset = key->start_char - 1;
	b = (size_t)(lim - b) < offset ? lim : b + offset;

	const char *e = lim;
	if (key->end_field != 0) {
		/* .0 (or no .C) means the whole end field. */
		size_t fields = key->end_field - 1 + (key->end_char == 0);
		/* the end field counted on from the start field where that gives the same
		 * place (not when both stop at one field and limfield keeps its separator) */
		bool on = skipped < fields || (skipped == fields && key->end_char != 0);
		e = on ? skip_fields(field, lim, fields - skipped, separator, key->end_char == 0)
		       : skip_fields(line, lim, fields, separator, key->end_char == 0);
		if (key->end_char != 0) {
			if (key->ordering.skip_end_blanks)
				e = skip_blanks(e, lim);
			e = (size_t)(lim - e) < key->end_char ? lim : e + key->end_char;
		}
	}
	*begin = b;
	*end = e < b ? b : e;
}
