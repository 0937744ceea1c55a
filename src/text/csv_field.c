/* SPDX-License-Identifier: MIT */
/* Field location in a CSV record: memchr from separator to separator, and from quote to
 * quote inside a quoted field; content is copied only where quotes must come out. */
#include <errno.h>
#include <string.h>
#include "csv_field.h"

void csv_fields_init(struct csv_fields *fields, const char *record, size_t len, unsigned char separator)
{
	if (len > 0 && record[len - 1] == '\r')
		len--;
	*fields = (struct csv_fields){ .next = record, .end = record + len, .separator = separator };
}

/* Past the closing quote of the quoted field whose opening quote is at p (or lim). */
static const char *skip_quoted(const char *p, const char *lim)
{
	for (p++;;) {
		const char *q = memchr(p, '"', (size_t)(lim - p));
		if (!q)
			return lim;
		if (q + 1 < lim && q[1] == '"') {
			p = q + 2;
			continue;
		}
		return q + 1;
	}
}

bool csv_fields_next(struct csv_fields *fields, struct csv_field *field)
{
	const char *p = fields->next, *lim = fields->end;
	if (!p)
		return false;
	field->quoted = p < lim && *p == '"';
	const char *after = field->quoted ? skip_quoted(p, lim) : p;
	const char *sep = memchr(after, fields->separator, (size_t)(lim - after));
	const char *end = sep ? sep : lim;
	*field = (struct csv_field){ .bytes = p, .size = (size_t)(end - p), .quoted = field->quoted };
	fields->next = sep ? sep + 1 : NULL;
	return true;
}

int csv_field_find(const char *record, size_t len, unsigned char separator, size_t number,
		   struct csv_field *field)
{
	struct csv_fields fields;
	csv_fields_init(&fields, record, len, separator);
	while (number-- > 0) {
		if (!csv_fields_next(&fields, field)) {
			*field = (struct csv_field){ .bytes = fields.end, .size = 0, .quoted = false };
			return -ENOENT;
		}
	}
	return 0;
}

size_t csv_field_content(const struct csv_field *field, char *scratch, const char **content)
{
	if (!field->quoted) {
		*content = field->bytes;
		return field->size;
	}
	const char *p = field->bytes + 1, *lim = field->bytes + field->size;
	char *out = scratch;
	while (p < lim) {
		const char *q = memchr(p, '"', (size_t)(lim - p));
		size_t run = (size_t)((q ? q : lim) - p);
		memcpy(out, p, run);
		out += run;
		if (!q)
			break;
		p = q + 1;
		if (p < lim && *p == '"') {
			*out++ = '"';
			p++;
			continue;
		}
		/* the closing quote: what follows stands as it is */
		memcpy(out, p, (size_t)(lim - p));
		out += lim - p;
		break;
	}
	*content = scratch;
	return (size_t)(out - scratch);
}
