/* SPDX-License-Identifier: MIT */
/* The composite key's image and sizes (see composite_key.h). */
#include "config.h"
#include <string.h>
#include "composite_key.h"

size_t composite_field_image_size(const struct key_field *field)
{
	return field->type == KEY_BYTES ? field->size : key_type_size(field->type);
}

size_t composite_image_size(const struct key_field *fields, size_t count)
{
	size_t size = 0;
	for (size_t i = 0; i < count; i++)
		size += composite_field_image_size(&fields[i]);
	return size;
}

/* Up to room bytes of one field's image into out; returns how many. Bytes fields are
 * their own image; numbers store key_image big-endian, so that memcmp orders them. */
static size_t field_image(const struct key_field *field, const unsigned char *record, unsigned char *out,
			  size_t room)
{
	const unsigned char *key = record + field->offset;
	size_t width = composite_field_image_size(field), n = width < room ? width : room;
	if (field->type == KEY_BYTES) {
		memcpy(out, key, n);
	} else {
		uint64_t image = key_image(field->type, key, field->size) << (64 - 8 * width);
		for (size_t i = 0; i < n; i++)
			out[i] = (unsigned char)(image >> (56 - 8 * i));
	}
	if (field->descending) /* complemented: the larger key, the smaller image */
		for (size_t i = 0; i < n; i++)
			out[i] = (unsigned char)~out[i];
	return n;
}

void composite_image_head(const struct key_field *fields, size_t count, const unsigned char *record,
			  unsigned char *head, size_t limit)
{
	size_t filled = 0;
	for (size_t i = 0; i < count && filled < limit; i++)
		filled += field_image(&fields[i], record, head + filled, limit - filled);
	memset(head + filled, 0, limit - filled);
}

uint64_t composite_image_prefix(const struct key_field *fields, size_t count, const unsigned char *record)
{
	unsigned char head[8];
	composite_image_head(fields, count, record, head, sizeof head);
	uint64_t word;
	memcpy(&word, head, sizeof word);
	return __builtin_bswap64(word);
}
