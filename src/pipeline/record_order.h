/* SPDX-License-Identifier: MIT */
/* What the pipeline knows of a sort's records, whichever mode made them: how they lie
 * in a block of bytes (fixed-size records, or lines each ended by a terminator) and
 * how two of them order (a 64-bit order-preserving prefix, and a full comparison for
 * the records whose prefixes tie). The binary mode builds one from its record layout,
 * the text mode from its keys; the stages after run formation (runs, merges, -c, -m,
 * output) take this and nothing of the mode.
 *
 * A record is given as its bytes without a line's terminator: (bytes, len). */
#ifndef GPUSORT_RECORD_ORDER_H
#define GPUSORT_RECORD_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "../../kernels/items.h"

struct record_layout;
struct text_order;

/* The prefixes the merge computes inline (they run once per record merged). */
enum record_prefix_kind {
	PREFIX_U32, PREFIX_I32, PREFIX_U64, PREFIX_I64, /* an integer key at key_offset */
	PREFIX_CALL,                                    /* order->prefix() */
};

struct record_order {
	size_t record_size;     /* fixed-size records of this many bytes, or 0: lines */
	unsigned char eol;      /* lines: their terminator ('\n', or '\0' with -z) */
	bool unique;            /* -u: of records that compare equal, only the first is kept */
	enum record_prefix_kind kind;
	size_t key_offset;      /* PREFIX_U32..PREFIX_I64: where the key lies in the record */
	bool reverse_prefix;    /* PREFIX_U32..PREFIX_I64: -r, the prefix is complemented */
	/* The prefix: a smaller one always means an earlier record (-r applied). */
	uint64_t (*prefix)(const struct record_order *order, const unsigned char *record, size_t len);
	/* <0, 0, >0: record a goes before, with (-u: is a duplicate of), or after b. NULL
	 * when equal prefixes mean equal records (integer keys). */
	int (*compare)(const struct record_order *order, const unsigned char *a, size_t alen,
		       const unsigned char *b, size_t blen);
	/* The self-check counts a record by these bytes of it (verify.h): a binary record
	 * by its key, a line by all of it (fingerprint_size 0). */
	size_t fingerprint_offset, fingerprint_size;
	const struct record_layout *layout; /* the mode's description, for prefix and compare */
	const struct text_order *text;
	/* --debug: what the output shows of a record (a line without its terminator) in
	 * place of it, written to out[0, room) as snprintf writes; returns its length, which
	 * the caller compares with room. NULL: records go out as they are. */
	size_t (*annotate)(const struct record_order *order, const unsigned char *record, size_t len, char *out,
			   size_t room);
};

/* The order of binary records (-r and -u of the layout and options applied) and of
 * text lines. */
void record_order_binary(struct record_order *order, const struct record_layout *layout, bool unique);
void record_order_text(struct record_order *order, const struct text_order *text);

static inline uint64_t record_prefix(const struct record_order *order, const unsigned char *record, size_t len)
{
	const unsigned char *key = record + order->key_offset;
	uint64_t image;
	uint32_t narrow;
	switch (order->kind) {
	case PREFIX_U32: memcpy(&narrow, key, 4); image = narrow; break;
	case PREFIX_I32: memcpy(&narrow, key, 4); image = narrow ^ 0x80000000u; break;
	case PREFIX_U64: memcpy(&image, key, 8); break;
	case PREFIX_I64: memcpy(&image, key, 8); image ^= 0x8000000000000000ULL; break;
	default: return order->prefix(order, record, len);
	}
	return order->reverse_prefix ? ~image : image;
}

/* Full comparison in output order. */
static inline int record_compare(const struct record_order *order, const unsigned char *a, size_t alen,
				 const unsigned char *b, size_t blen)
{
	if (order->compare)
		return order->compare(order, a, alen, b, blen);
	uint64_t x = record_prefix(order, a, alen), y = record_prefix(order, b, blen);
	return (x > y) - (x < y);
}

/* The length of the record at bytes[0, avail) (a line: up to its terminator, which must
 * be there) and the bytes to step over to the next one. */
static inline size_t record_length(const struct record_order *order, const unsigned char *bytes, size_t avail,
				   size_t *step)
{
	if (order->record_size) {
		*step = order->record_size;
		return order->record_size;
	}
	const unsigned char *end = memchr(bytes, order->eol, avail);
	size_t len = (size_t)(end - bytes);
	*step = len + 1;
	return len;
}

/* The bytes a record takes in a block: its length, plus a line's terminator. */
static inline size_t record_stored_size(const struct record_order *order, size_t len)
{
	return order->record_size ? len : len + 1;
}

#endif
