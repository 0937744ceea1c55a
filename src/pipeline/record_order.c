/* The two modes' record orders (see record_order.h). */
#include "config.h"
#include <string.h>
#include "../binary/key_image.h"
#include "../binary/record_items.h"
#include "record_order.h"
#include "../text/text_compare.h"
#include "../text/text_order.h"
#include "../text/text_prefix.h"

static uint64_t binary_prefix(const struct record_order *order, const unsigned char *record, size_t len)
{
	(void)len;
	const struct record_layout *layout = order->layout;
	uint64_t image = key_image(layout->type, record + layout->key_offset, layout->key_size);
	return layout->reverse ? ~image : image;
}

/* Bytes keys longer than the prefix's 8 bytes. */
static int binary_compare(const struct record_order *order, const unsigned char *a, size_t alen,
			  const unsigned char *b, size_t blen)
{
	(void)alen, (void)blen;
	const struct record_layout *layout = order->layout;
	int diff = memcmp(a + layout->key_offset, b + layout->key_offset, layout->key_size);
	return layout->reverse ? -diff : diff;
}

void record_order_binary(struct record_order *order, const struct record_layout *layout, bool unique)
{
	*order = (struct record_order){.record_size = layout->record_size, .unique = unique,
				       .kind = PREFIX_CALL, .key_offset = layout->key_offset,
				       .reverse_prefix = layout->reverse, .prefix = binary_prefix,
				       .fingerprint_offset = layout->key_offset,
				       .fingerprint_size = layout->key_size, .layout = layout};
	switch (layout->type) {
	case KEY_U32: order->kind = PREFIX_U32; break;
	case KEY_I32: order->kind = PREFIX_I32; break;
	case KEY_U64: order->kind = PREFIX_U64; break;
	case KEY_I64: order->kind = PREFIX_I64; break;
	default: break;
	}
	/* every other key's image is exact (floats: equal images compare equal), but for
	 * bytes keys past the image's 8 bytes */
	if (layout->type == KEY_BYTES && layout->key_size > 8)
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

void record_order_text(struct record_order *order, const struct text_order *text)
{
	*order = (struct record_order){.eol = text->eol, .unique = text->unique, .kind = PREFIX_CALL,
				       .prefix = text_line_prefix, .compare = text_line_compare,
				       .text = text};
}
