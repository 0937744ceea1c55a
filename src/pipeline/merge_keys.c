/* SPDX-License-Identifier: MIT */
/* The merge of bare integer keys (see merge_keys.h). */
#include "config.h"
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "merge_keys.h"

/* What each inner node of the tree holds between its children and its parent: its
 * buffer stays in the core's cache (2048 u64 keys) and is refilled seldom enough that a
 * refill's bookkeeping is noise (at least NODE_RECORDS_MIN records of any size). */
#define NODE_BYTES ((size_t)16 << 10)
#define NODE_RECORDS_MIN 64

/* Children of an inner node: four where there are as many sources below it, so that a
 * key climbs half as many levels. Picking the least of four heads (two compares side by
 * side, then one) costs a little more than one two-way step, so the tree is faster. */
#define NODE_FAN 4

/* A stream of keys in order: a leaf (a source, a block at a time) or an inner node (the
 * merge of its 2 to NODE_FAN children, a buffer at a time). */
struct stream {
	const unsigned char *at, *end; /* keys not yet taken */
	bool done;                     /* and no more will come */
	struct merge_source *source;   /* leaf */
	size_t index;                  /* leaf: the source's */
	struct stream *children[NODE_FAN]; /* inner: in source order, the earlier first */
	unsigned fan;
	unsigned char *buffer;
};

struct key_tree {
	size_t width;                 /* a record's bytes */
	size_t node_records;          /* in an inner node's buffer */
	size_t key_offset, key_width; /* its key's place and size (4 or 8) */
	uint64_t mask;                /* a key's order: (its bytes as an integer) ^ mask, unsigned */
	struct stream *streams;
	size_t used;
	size_t failed; /* the source whose block could not be read */
};

/* The key's bytes: 4 or 8, or 0 for an order merge_keys does not take. */
static size_t key_width_of(const struct record_order *order)
{
	if (order->compare || !order->record_size)
		return 0;
	size_t width = order->kind == PREFIX_U32 || order->kind == PREFIX_I32	? 4
		       : order->kind == PREFIX_U64 || order->kind == PREFIX_I64 ? 8
										  : 0;
	return width && order->key_offset + width <= order->record_size ? width : 0;
}

bool merge_keys_eligible(const struct record_order *order)
{
	return key_width_of(order) != 0;
}

size_t merge_keys_key_width(const struct record_order *order)
{
	return key_width_of(order);
}

/* Merges from l and r into [out, limit) while both have records: on a tie, l's first.
 * The sizes are constants where this is inlined for bare keys, so the copies are
 * single moves. */
static inline unsigned char *merge_two(struct stream *l, struct stream *r, unsigned char *out,
				       const unsigned char *limit, size_t width, size_t key_offset, size_t key_width,
				       uint64_t mask)
{
	const unsigned char *a = l->at, *a_end = l->end, *b = r->at, *b_end = r->end;
	for (;;) {
		/* steps that can exhaust neither side nor the room: no bounds checked in them */
		size_t steps = (size_t)(a_end - a), other = (size_t)(b_end - b), room = (size_t)(limit - out);
		steps = other < steps ? other : steps;
		steps = (room < steps ? room : steps) / width;
		if (steps == 0)
			break;
		for (size_t i = 0; i < steps; i++) {
			uint64_t x = merge_key_order(a + key_offset, key_width, mask),
				 y = merge_key_order(b + key_offset, key_width, mask);
			bool right = y < x;
			const unsigned char *from = right ? b : a;
			memcpy(out, from, width);
			a += right ? 0 : width;
			b += right ? width : 0;
			out += width;
		}
	}
	l->at = a;
	r->at = b;
	return out;
}

/* Merges from s[0..2] (three) or s[0..3] (four, when four) into [out, limit) while each
 * has records: the least of the heads, on a tie the earliest stream's. Branch-free: the
 * pairs' winners, then theirs, and each stream's pointer moves by whether it won. */
static inline unsigned char *merge_many(struct stream **s, bool four, unsigned char *out, const unsigned char *limit,
					size_t width, size_t key_offset, size_t key_width, uint64_t mask)
{
	const unsigned char *p0 = s[0]->at, *p1 = s[1]->at, *p2 = s[2]->at, *p3 = four ? s[3]->at : NULL;
	for (;;) {
		size_t steps = (size_t)(limit - out), left;
		for (unsigned i = 0; i < (four ? 4u : 3u); i++) {
			const unsigned char *at = i == 0 ? p0 : i == 1 ? p1 : i == 2 ? p2 : p3;
			left = (size_t)(s[i]->end - at);
			steps = left < steps ? left : steps;
		}
		steps /= width;
		if (steps == 0)
			break;
		for (size_t i = 0; i < steps; i++) {
			uint64_t x0 = merge_key_order(p0 + key_offset, key_width, mask),
				 x1 = merge_key_order(p1 + key_offset, key_width, mask),
				 x2 = merge_key_order(p2 + key_offset, key_width, mask),
				 x3 = four ? merge_key_order(p3 + key_offset, key_width, mask) : UINT64_MAX;
			bool b01 = x1 < x0, b23 = x3 < x2; /* x3 < x2 never holds for three */
			uint64_t m01 = b01 ? x1 : x0, m23 = b23 ? x3 : x2;
			bool right = m23 < m01;
			const unsigned char *q01 = b01 ? p1 : p0, *q23 = b23 ? p3 : p2;
			memcpy(out, right ? q23 : q01, width);
			out += width;
			p0 += (size_t)(!right & !b01) * width;
			p1 += (size_t)(!right & b01) * width;
			p2 += (size_t)(right & !b23) * width;
			p3 += (size_t)(right & b23) * width;
		}
	}
	s[0]->at = p0;
	s[1]->at = p1;
	s[2]->at = p2;
	if (four)
		s[3]->at = p3;
	return out;
}

/* merge_two or merge_many of n (2 to 4) streams, with the sizes constant for bare keys. */
static unsigned char *merge_streams(const struct key_tree *tree, struct stream **s, unsigned n, unsigned char *out,
				    const unsigned char *limit)
{
	size_t width = tree->width;
	uint64_t mask = tree->mask;
	if (width == 8 && tree->key_width == 8)
		return n == 2 ? merge_two(s[0], s[1], out, limit, 8, 0, 8, mask)
		       : n == 4 ? merge_many(s, true, out, limit, 8, 0, 8, mask)
				: merge_many(s, false, out, limit, 8, 0, 8, mask);
	if (width == 4 && tree->key_width == 4)
		return n == 2 ? merge_two(s[0], s[1], out, limit, 4, 0, 4, mask)
		       : n == 4 ? merge_many(s, true, out, limit, 4, 0, 4, mask)
				: merge_many(s, false, out, limit, 4, 0, 4, mask);
	size_t offset = tree->key_offset, key_width = tree->key_width;
	return n == 2 ? merge_two(s[0], s[1], out, limit, width, offset, key_width, mask)
	       : n == 4 ? merge_many(s, true, out, limit, width, offset, key_width, mask)
			: merge_many(s, false, out, limit, width, offset, key_width, mask);
}

static int stream_refill(struct key_tree *tree, struct stream *s);

/* An inner node's buffer, filled from its children. */
static int node_fill(struct key_tree *tree, struct stream *s)
{
	size_t width = tree->width;
	unsigned char *out = s->buffer;
	const unsigned char *limit = s->buffer + tree->node_records * width;
	while (out < limit) {
		struct stream *live[NODE_FAN];
		unsigned n = 0;
		for (unsigned i = 0; i < s->fan; i++) {
			struct stream *child = s->children[i];
			int error;
			if (child->at == child->end && (error = stream_refill(tree, child)) != 0)
				return error;
			if (child->at != child->end)
				live[n++] = child; /* in source order */
		}
		if (n == 0)
			break;
		if (n == 1) {
			size_t bytes = (size_t)(live[0]->end - live[0]->at), room = (size_t)(limit - out);
			bytes = bytes < room ? bytes : room;
			memcpy(out, live[0]->at, bytes);
			live[0]->at += bytes;
			out += bytes;
			continue;
		}
		out = merge_streams(tree, live, n, out, limit);
	}
	s->at = s->buffer;
	s->end = out;
	s->done = out == s->buffer;
	return 0;
}

/* Gives an emptied stream its next keys (none: done). */
static int stream_refill(struct key_tree *tree, struct stream *s)
{
	if (s->done)
		return 0;
	if (!s->source)
		return node_fill(tree, s);
	const unsigned char *bytes;
	size_t len;
	int error = s->source->next_block(s->source->context, &bytes, &len);
	if (error) {
		tree->failed = s->index;
		return error;
	}
	/* blocks hold whole records (merge.h) */
	s->at = bytes;
	s->end = bytes + len / tree->width * tree->width;
	s->done = len == 0;
	return 0;
}

/* The subtree over sources [first, first + count): its stream. */
static struct stream *tree_build(struct key_tree *tree, struct merge_source *sources, size_t first, size_t count)
{
	struct stream *s = &tree->streams[tree->used++];
	*s = (struct stream){0};
	if (count == 1) {
		s->at = s->end = NULL;
		s->source = &sources[first];
		s->index = first;
		return s;
	}
	s->buffer = malloc(tree->node_records * tree->width);
	if (!s->buffer)
		return NULL;
	s->fan = count < NODE_FAN ? (unsigned)count : NODE_FAN;
	size_t done = 0;
	for (unsigned i = 0; i < s->fan; i++) {
		/* the sources as evenly as they go, in order */
		size_t share = (count - done + (s->fan - i) - 1) / (s->fan - i);
		if ((s->children[i] = tree_build(tree, sources, first + done, share)) == NULL)
			return NULL;
		done += share;
	}
	return s;
}

uint64_t merge_keys_mask(const struct record_order *order)
{
	bool narrow = key_width_of(order) == 4, is_signed = order->kind == PREFIX_I32 || order->kind == PREFIX_I64;
	uint64_t mask = is_signed ? (narrow ? 0x80000000u : 0x8000000000000000ULL) : 0;
	return order->reverse_prefix ? mask ^ (narrow ? 0xffffffffu : UINT64_MAX) : mask;
}

int merge_keys(const struct record_order *order, struct merge_source *sources, size_t k, merge_keys_emit emit,
	       void *context, size_t *failed)
{
	struct key_tree tree = {.width = order->record_size,
				.key_offset = order->key_offset,
				.key_width = key_width_of(order),
				.node_records = NODE_BYTES / order->record_size > NODE_RECORDS_MIN
							? NODE_BYTES / order->record_size
							: NODE_RECORDS_MIN,
				.mask = merge_keys_mask(order),
				.failed = k};
	tree.streams = calloc(2 * k, sizeof *tree.streams);
	struct stream *root = tree.streams ? tree_build(&tree, sources, 0, k) : NULL;
	int error = root ? 0 : -ENOMEM;
	while (!error) {
		if ((error = stream_refill(&tree, root)) != 0 || root->done)
			break;
		error = emit(context, root->at, (size_t)(root->end - root->at) / tree.width);
		root->at = root->end;
	}
	for (size_t i = 0; tree.streams && i < tree.used; i++)
		free(tree.streams[i].buffer);
	free(tree.streams);
	if (failed)
		*failed = error ? tree.failed : k;
	return error;
}
