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

/* A stream of keys in order: a leaf (a source, a block at a time) or an inner node (the
 * two-way merge of its children, a buffer at a time). */
struct stream {
	const unsigned char *at, *end; /* keys not yet taken */
	bool done;                     /* and no more will come */
	struct merge_source *source;   /* leaf */
	size_t index;                  /* leaf: the source's */
	struct stream *left, *right;   /* inner: left holds the earlier sources */
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

static int stream_refill(struct key_tree *tree, struct stream *s);

/* An inner node's buffer, filled from its children. */
static int node_fill(struct key_tree *tree, struct stream *s)
{
	size_t width = tree->width;
	unsigned char *out = s->buffer;
	const unsigned char *limit = s->buffer + tree->node_records * width;
	struct stream *l = s->left, *r = s->right;
	while (out < limit) {
		int error;
		if ((l->at == l->end && (error = stream_refill(tree, l)) != 0) ||
		    (r->at == r->end && (error = stream_refill(tree, r)) != 0))
			return error;
		bool l_empty = l->at == l->end, r_empty = r->at == r->end;
		if (l_empty && r_empty)
			break;
		if (l_empty || r_empty) {
			struct stream *only = l_empty ? r : l;
			size_t bytes = (size_t)(only->end - only->at), room = (size_t)(limit - out);
			bytes = bytes < room ? bytes : room;
			memcpy(out, only->at, bytes);
			only->at += bytes;
			out += bytes;
			continue;
		}
		if (width == 4 && tree->key_width == 4)
			out = merge_two(l, r, out, limit, 4, 0, 4, tree->mask);
		else if (width == 8 && tree->key_width == 8)
			out = merge_two(l, r, out, limit, 8, 0, 8, tree->mask);
		else
			out = merge_two(l, r, out, limit, width, tree->key_offset, tree->key_width, tree->mask);
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
	size_t half = count / 2;
	s->left = tree_build(tree, sources, first, half);
	s->right = s->left ? tree_build(tree, sources, first + half, count - half) : NULL;
	return s->right ? s : NULL;
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
