/* SPDX-License-Identifier: MIT */
/* Fields of one CSV record (--csv): where field N lies, as -k counts, and its content
 * with the quotes removed and "" read as ", pointing into the record when unquoted. */
#ifndef GPUSORT_CSV_FIELD_H
#define GPUSORT_CSV_FIELD_H

#include <stdbool.h>
#include <stddef.h>

/* A field as it stands in the record: its quotes included, not its separator. */
struct csv_field {
	const char *bytes;
	size_t size;
	bool quoted;
};

/* A walk over a record's fields, in order: record[0, len) without its LF (a CR before the
 * LF belongs to the terminator, never to a field). An empty record has one empty field. */
struct csv_fields {
	const char *next, *end; /* next: the next field's start; NULL past the last field */
	unsigned char separator;
};

void csv_fields_init(struct csv_fields *fields, const char *record, size_t len, unsigned char separator);

/* Sets *field to the next field and returns true; false when none is left. */
bool csv_fields_next(struct csv_fields *fields, struct csv_field *field);

/* Field `number` (1-based, as -k counts) of record[0, len). Returns 0, or -ENOENT when
 * the record has fewer fields: *field is then empty, at the record's end (what -k gives
 * for a field past the last). */
int csv_field_find(const char *record, size_t len, unsigned char separator, size_t number,
		   struct csv_field *field);

/* The field's content, its size returned and *content set: an unquoted field's own bytes
 * (no copy); a quoted one's with the quotes removed and "" read as ", written to scratch,
 * which has room for field->size bytes. Bytes after a closing quote (only in a record
 * the scanner rejects) are taken as they stand, as Python's csv module does. */
size_t csv_field_content(const struct csv_field *field, char *scratch, const char **content);

#endif
