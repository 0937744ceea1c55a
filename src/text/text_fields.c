/* Key extraction with GNU sort's begfield/limfield rules: without -t a field includes
 * the blanks before it; with -t the separator ends a field; character offsets never run
 * past the end of the line. */
#include "text_fields.h"

static const char *skip_fields(const char *p, const char *lim, size_t fields, int separator,
			       bool keep_last_separator)
{
	if (separator >= 0) {
		while (p < lim && fields--) {
			while (p < lim && (unsigned char)*p != separator)
				p++;
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

	const char *b = skip_fields(line, lim, key->start_field - 1, separator, false);
	if (key->ordering.skip_start_blanks)
		b = skip_blanks(b, lim);
	size_t offset = key->start_char - 1;
	b = (size_t)(lim - b) < offset ? lim : b + offset;

	const char *e = lim;
	if (key->end_field != 0) {
		/* .0 (or no .C) means the whole end field. */
		size_t fields = key->end_field - 1 + (key->end_char == 0);
		e = skip_fields(line, lim, fields, separator, key->end_char == 0);
		if (key->end_char != 0) {
			if (key->ordering.skip_end_blanks)
				e = skip_blanks(e, lim);
			e = (size_t)(lim - e) < key->end_char ? lim : e + key->end_char;
		}
	}
	*begin = b;
	*end = e < b ? b : e;
}
