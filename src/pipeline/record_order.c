/* SPDX-License-Identifier: MIT */
/* The two modes' record orders (see record_order.h). */
#include "config.h"
#include <string.h>
#include "../binary/composite_key.h"
#include "../binary/key_image.h"
#include "../binary/record_items.h"
#include "record_order.h"
#include "../text/text_compare.h"
#include "../text/text_debug.h"
#include "../text/text_order.h"
#include "../text/text_prefix.h"

static uint64_t binary_prefix(const struct record_order *order, const unsigned char *record, size_t len)
{
	(void)len;
	const struct record_layout *layout = order->layout;
	if (layout->field_count > 1)
		return composite_image_prefix(layout->fields, layout->field_count, record);
	const struct key_field *key = layout->fields;
	uint64_t image = key_image(key->type, record + key->offset, key->size);
	return key->descending ? ~image : image;
}

/* Keys whose image is longer than the prefix's 8 bytes: every field, in its direction. */
static int binary_compare(const struct record_order *order, const unsigned char *a, size_t alen,
			  const unsigned char *b, size_t blen)
{
	(void)alen, (void)blen;
	const struct record_layout *layout = order->layout;
	return composite_key_compare(layout->fields, layout->field_count, a, b);
}

void record_order_binary(struct record_order *order, const struct record_layout *layout, bool unique)
{
	const struct key_field *first = layout->fields;
	*order = (struct record_order){.record_size = layout->record_size, .unique = unique,
				       .kind = PREFIX_CALL, .key_offset = first->offset,
				       .reverse_prefix = first->descending, .prefix = binary_prefix,
				       .fingerprint_offset = layout->key_span_offset,
				       .fingerprint_size = layout->key_span_size, .layout = layout};
	switch (layout->field_count == 1 ? first->type : KEY_BYTES) {
	case KEY_U32: order->kind = PREFIX_U32; break;
	case KEY_I32: order->kind = PREFIX_I32; break;
	case KEY_U64: order->kind = PREFIX_U64; break;
	case KEY_I64: order->kind = PREFIX_I64; break;
	default: break;
	}
	/* every image of 8 bytes or less is exact (floats: equal images compare equal), so
	 * equal prefixes mean equal keys; longer ones need the full comparison */
	if (layout->image_size > 8)
		order->compare = binary_compare;
}

static uint64_t text_line_prefix(const struct record_order *order, const unsigned char *line, size_t len)
{
	return text_prefix(order->text, (const char *)line, len);
}

static int text_line_compare(const struct record_order *order, const unsigned char *a, size_t alen,
			     const unsigned char *b, size_t blen)
{
	return text_compare_lines(order->text, (const char *)a, alen, (const char *)b, blen);
}

static size_t text_line_annotate(const struct record_order *order, const unsigned char *line, size_t len, char *out,
				 size_t room)
{
	return text_debug_annotate(order->text, (const char *)line, len, out, room);
}

void record_order_text(struct record_order *order, const struct text_order *text)
{
	*order = (struct record_order){.eol = text->eol, .unique = text->unique, .kind = PREFIX_CALL,
				       .prefix = text_line_prefix, .compare = text_line_compare,
				       .text = text, .annotate = text->debug ? text_line_annotate : NULL};
}
