/* SPDX-License-Identifier: MIT */
/* Composite binary keys (database ORDER BY): several typed fields of a record, each
 * ascending or descending, normalized into one byte-comparable image (the fields'
 * key_image values concatenated big-endian, a descending field's complemented), and
 * the full comparison field by field that the image's prefix stands for. */
#ifndef GPUSORT_COMPOSITE_KEY_H
#define GPUSORT_COMPOSITE_KEY_H

#include <stddef.h>
#include <stdint.h>
#include "key_image.h"
#include "../settings/key_field.h"

/* The bytes a field takes in the image: 4 for 32-bit types, 8 for 64-bit ones, its
 * size for bytes; and the whole image's. */
size_t composite_field_image_size(const struct key_field *field);
size_t composite_image_size(const struct key_field *fields, size_t count);

/* The image's first `limit` bytes of a record, zero-padded past the image's end:
 * records compare as these bytes do (memcmp), up to the bytes not written. */
void composite_image_head(const struct key_field *fields, size_t count, const unsigned char *record,
			  unsigned char *head, size_t limit);

/* The image's first 8 bytes as one big-endian word (zero-padded). */
uint64_t composite_image_prefix(const struct key_field *fields, size_t count, const unsigned char *record);

/* Full comparison of two records' keys, field by field, each in its direction: <0, 0,
 * >0. Inline: the self-check runs it on every record put out. */
static inline int composite_key_compare(const struct key_field *fields, size_t count, const unsigned char *a,
					const unsigned char *b)
{
	for (size_t i = 0; i < count; i++) {
		const struct key_field *field = &fields[i];
		int order = key_compare(field->type, field->size, a + field->offset, b + field->offset);
		if (order)
			return field->descending ? -order : order;
	}
	return 0;
}

#endif
