/* SPDX-License-Identifier: MIT */
/* The loser-tree merge (see merge.h). Each leaf is a cursor over one source's current
 * block; the tree keeps the loser of each match at the inner nodes, so each record out
 * costs log2(k) matches along one path of the tree. Each leaf's current record is kept
 * as its 64-bit prefix (record_order.h) beside a rank (its source index, or past every
 * source once it is exhausted), so a match is two integer comparisons; only records
 * whose prefixes tie, in orders that need it (long bytes keys, text), are compared in
 * full. */
#include "config.h"
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "merge.h"
#include "merge_keys.h"
#include "../common/verify.h"

struct cursor {
	const unsigned char *bytes;
	size_t len;
	size_t position;        /* of the current record in bytes */
	size_t record_len;      /* the current record's length (a line's, terminator excluded) */
	size_t step;            /* its bytes in the block (a line's terminator included) */
	struct merge_source *source;
};

/* What a match looks at: the prefix, then the rank. */
struct leaf_key {
	uint64_t prefix;
	size_t rank;
};

struct tree {
	const struct record_order *order;
	struct cursor *cursors;
	struct leaf_key *keys;
	size_t leaves;          /* k rounded up to a power of two */
	size_t *nodes;          /* nodes[0] the winner, nodes[1..leaves-1] losers */
	/* Where the prefix decides (no compare): each loser's prefix and rank beside it, so
	 * that a replay loads what each match needs from the node alone instead of going
	 * from the node to its leaf (two dependent loads a level). Only the winner's leaf
	 * ever changes, so the losers' copies stay true. */
	unsigned __int128 *loser_orders;
};

static inline const unsigned char *cursor_record(const struct cursor *c)
{
	return c->bytes + c->position;
}

static inline void leaf_set(struct tree *tree, size_t leaf)
{
	struct cursor *c = &tree->cursors[leaf];
	c->record_len = record_length(tree->order, cursor_record(c), c->len - c->position, &c->step);
	tree->keys[leaf].prefix = record_prefix(tree->order, cursor_record(c), c->record_len);
	tree->keys[leaf].rank = leaf;
}

/* An exhausted leaf loses to every live one, ties included. */
static void leaf_exhaust(struct tree *tree, size_t leaf)
{
	tree->keys[leaf].prefix = UINT64_MAX;
	tree->keys[leaf].rank = tree->leaves + leaf;
}

static bool leaf_done(const struct tree *tree, size_t leaf)
{
	return tree->keys[leaf].rank >= tree->leaves;
}

/* Moves a leaf's cursor to its next record, fetching the next block when one runs out. */
static int cursor_advance(struct tree *tree, size_t leaf)
{
	struct cursor *c = &tree->cursors[leaf];
	c->position += c->step;
	while (c->position >= c->len) {
		int error = c->source->next_block(c->source->context, &c->bytes, &c->len);
		if (error)
			return error;
		if (c->len == 0) {
			leaf_exhaust(tree, leaf);
			return 0;
		}
		c->position = 0;
	}
	leaf_set(tree, leaf);
	return 0;
}

/* True when leaf a's record goes out before leaf b's (ties: the earlier source). */
static inline bool goes_first(const struct tree *tree, size_t a, size_t b)
{
	const struct leaf_key *x = &tree->keys[a], *y = &tree->keys[b];
	if (x->prefix != y->prefix)
		return x->prefix < y->prefix;
	if (x->rank < tree->leaves && y->rank < tree->leaves) {
		const struct cursor *p = &tree->cursors[a], *q = &tree->cursors[b];
		int order = tree->order->compare(tree->order, cursor_record(p), p->record_len,
						 cursor_record(q), q->record_len);
		if (order != 0)
			return order < 0;
	}
	return x->rank < y->rank;
}

/* Prefix and rank as one 128-bit number: where the prefix decides, each match is a
 * compare and two conditional moves instead of a branch that random keys mispredict
 * half the time. */
static inline unsigned __int128 leaf_order(const struct leaf_key *key)
{
	return (unsigned __int128)key->prefix << 64 | key->rank;
}

static inline bool goes_first_any(const struct tree *tree, size_t a, size_t b)
{
	if (tree->order->compare)
		return goes_first(tree, a, b);
	return leaf_order(&tree->keys[a]) < leaf_order(&tree->keys[b]);
}

/* Builds the tree bottom-up: returns the winner of the subtree at node. */
static size_t tree_build(struct tree *tree, size_t node)
{
	if (node >= tree->leaves)
		return node - tree->leaves;
	size_t left = tree_build(tree, 2 * node), right = tree_build(tree, 2 * node + 1);
	size_t winner = goes_first_any(tree, left, right) ? left : right;
	tree->nodes[node] = winner == left ? right : left;
	if (tree->loser_orders)
		tree->loser_orders[node] = leaf_order(&tree->keys[tree->nodes[node]]);
	return winner;
}

static inline void tree_replay(struct tree *tree, size_t leaf)
{
	size_t winner = leaf;
	if (tree->order->compare) {
		for (size_t node = (leaf + tree->leaves) / 2; node >= 1; node /= 2) {
			size_t other = tree->nodes[node];
			if (goes_first(tree, other, winner)) {
				tree->nodes[node] = winner;
				winner = other;
			}
		}
		tree->nodes[0] = winner;
		return;
	}
	unsigned __int128 winner_order = leaf_order(&tree->keys[leaf]);
	for (size_t node = (leaf + tree->leaves) / 2; node >= 1; node /= 2) {
		size_t other = tree->nodes[node];
		unsigned __int128 other_order = tree->loser_orders[node];
		bool swap = other_order < winner_order;
		tree->nodes[node] = swap ? winner : other;
		tree->loser_orders[node] = swap ? winner_order : other_order;
		winner = swap ? other : winner;
		winner_order = swap ? other_order : winner_order;
	}
	tree->nodes[0] = winner;
}

/* Constant sizes let the compiler copy the common records without a call. */
static inline void copy_record(unsigned char *to, const unsigned char *from, size_t size)
{
	switch (size) {
	case 4: memcpy(to, from, 4); break;
	case 8: memcpy(to, from, 8); break;
	case 16: memcpy(to, from, 16); break;
	default: memcpy(to, from, size); break;
	}
}

/* The last record put out, kept for -u and the order check: where it lies in its
 * source's block while that block stays (at), copied only before the block is replaced,
 * and its prefix, which decides its order against the next record unless they tie. */
struct last_record {
	const unsigned char *at;    /* in a source's block, or NULL: in bytes */
	unsigned char *bytes;
	size_t len, capacity;
	uint64_t prefix;
	bool have;
};

static inline const unsigned char *last_bytes(const struct last_record *last)
{
	return last->at ? last->at : last->bytes;
}

static int last_copy(struct last_record *last)
{
	size_t len = last->len;
	/* a buffer even for an empty record: memcpy takes no NULL, not even for 0 bytes */
	if (len > last->capacity || !last->bytes) {
		size_t capacity = last->capacity ? 2 * last->capacity : 256;
		while (capacity < len)
			capacity *= 2;
		unsigned char *grown = realloc(last->bytes, capacity);
		if (!grown)
			return -ENOMEM;
		last->bytes = grown;
		last->capacity = capacity;
	}
	copy_record(last->bytes, last->at, len);
	last->at = NULL;
	return 0;
}

/* Before cursor c leaves its block for the next: the last record, if it lies there,
 * is copied out of it. */
static inline int last_keep_from(struct last_record *last, const struct cursor *c)
{
	if (!last->at || c->position + c->step < c->len || last->at < c->bytes || last->at >= c->bytes + c->len)
		return 0;
	return last_copy(last);
}

/* The order of the last record against record (of the given prefix): <0, 0, >0. */
static inline int last_relation(const struct record_order *order, const struct last_record *last,
				const unsigned char *record, size_t len, uint64_t prefix)
{
	if (!last->have)
		return -1;
	if (last->prefix != prefix)
		return last->prefix < prefix ? -1 : 1;
	return record_compare(order, last_bytes(last), last->len, record, len);
}

/* Merged records gathered into blocks for the sink, or handed over whole to the block
 * sink. */
struct output_block {
	unsigned char *bytes;
	size_t used, capacity, count;
	record_sink sink;
	record_block_sink block_sink;
	void *context;
};

static int output_flush(struct output_block *out)
{
	if (out->count == 0)
		return 0;
	int error = out->block_sink ? out->block_sink(out->context, &out->bytes, &out->capacity, out->used, out->count)
				    : out->sink(out->context, out->bytes, out->used, out->count);
	out->used = out->count = 0;
	return error;
}

/* Appends a record of `stored` bytes (a line with its terminator); one bigger than the
 * block goes to the sink on its own, from where it lies. */
static inline int output_append(struct output_block *out, const unsigned char *record, size_t stored)
{
	if (out->capacity - out->used < stored) {
		int error = output_flush(out);
		if (error)
			return error;
		if (stored > out->capacity)
			return out->sink(out->context, record, stored, 1);
	}
	copy_record(out->bytes + out->used, record, stored);
	out->used += stored;
	out->count++;
	return 0;
}

static inline void fingerprint_record(const struct record_order *order, struct fingerprint *print,
				      const unsigned char *record, size_t len)
{
	if (order->fingerprint_size)
		fingerprint_add(print, record + order->fingerprint_offset, order->fingerprint_size);
	else
		fingerprint_add(print, record, len);
}

/* What merge_keys' records go through on their way out: -u, the self-check, the blocks. */
struct keys_out {
	const struct record_order *order;
	struct sort_verify *verify;
	bool to_output;
	struct output_block *out;
	struct fingerprint *print;
	uint64_t disorder, last;
	bool have_last;
};

/* Without -u: each key against the one before, and into the fingerprint. */
static void keys_out_check(struct keys_out *o, const unsigned char *records, size_t count)
{
	uint64_t mask = merge_keys_mask(o->order), last = o->last, sum = 0, disorder = 0;
	size_t size = o->order->record_size, width = merge_keys_key_width(o->order);
	const unsigned char *key = records + o->order->key_offset;
	bool have = o->have_last;
	for (size_t i = 0; i < count; i++, key += size) {
		uint64_t raw = merge_key_raw(key, width), prefix = raw ^ mask;
		sum += fingerprint_key(raw);
		disorder += have && last > prefix;
		last = prefix;
		have = true;
	}
	o->print->count += count;
	o->print->sum += sum;
	o->disorder += disorder;
	o->last = last;
	o->have_last = have;
}

static int keys_out_emit(void *context, const unsigned char *records, size_t count)
{
	struct keys_out *o = context;
	const struct record_order *order = o->order;
	size_t size = order->record_size;
	bool unique = order->unique, check = o->verify && o->to_output;
	/* the fingerprint counts the key alone (a record's key span) */
	bool by_key = order->fingerprint_size == merge_keys_key_width(order) &&
		      order->fingerprint_offset == order->key_offset;
	if (check && !unique && by_key) {
		keys_out_check(o, records, count);
	} else if (check || unique) {
		for (size_t i = 0; i < count; i++) {
			const unsigned char *record = records + i * size;
			uint64_t prefix = record_prefix(order, record, size);
			bool dropped = unique && o->have_last && prefix == o->last;
			if (o->verify && (o->to_output || dropped))
				fingerprint_record(order, o->print, record, size);
			if (dropped)
				continue;
			o->disorder += o->have_last && o->last > prefix;
			o->last = prefix;
			o->have_last = true;
			int error = unique ? output_append(o->out, record, size) : 0;
			if (error)
				return error;
		}
		if (unique)
			return 0;
	}
	/* every record goes out: whole runs of them at once */
	struct output_block *out = o->out;
	while (count) {
		if (out->capacity - out->used < size) {
			int error = output_flush(out);
			if (error)
				return error;
		}
		size_t room = (out->capacity - out->used) / size, n = count < room ? count : room;
		memcpy(out->bytes + out->used, records, n * size);
		out->used += n * size;
		out->count += n;
		records += n * size;
		count -= n;
	}
	return 0;
}

int merge_records(const struct record_order *order, struct sort_verify *verify, struct merge_source *sources,
		  size_t k, const struct merge_sink *sink, size_t *failed)
{
	if (verify && !verify->enabled)
		verify = NULL;
	struct fingerprint print = {0, 0};
	uint64_t disorder = 0;
	bool unique = order->unique, to_output = sink->to_output, keep_last = unique || (verify && to_output);
	size_t block_bytes = sink->block_bytes > order->record_size ? sink->block_bytes : order->record_size;
	if (merge_keys_eligible(order) && k > 0) {
		struct output_block out = {malloc(block_bytes), 0, block_bytes, 0, sink->write, sink->write_block, sink->context};
		struct keys_out keys = {order, verify, to_output, &out, &print, 0, 0, false};
		size_t failing = k;
		int error = out.bytes ? merge_keys(order, sources, k, keys_out_emit, &keys, &failing) : -ENOMEM;
		if (!error)
			error = output_flush(&out);
		if (verify)
			sort_verify_output(verify, &print, to_output ? keys.disorder : 0);
		if (failed)
			*failed = error ? failing : k;
		free(out.bytes);
		return error;
	}
	struct tree tree = {order, NULL, NULL, 1, NULL, NULL};
	while (tree.leaves < k)
		tree.leaves *= 2;
	tree.cursors = calloc(tree.leaves, sizeof *tree.cursors);
	tree.keys = calloc(tree.leaves, sizeof *tree.keys);
	tree.nodes = calloc(tree.leaves, sizeof *tree.nodes);
	if (!order->compare)
		tree.loser_orders = calloc(tree.leaves, sizeof *tree.loser_orders);
	struct output_block out = {malloc(block_bytes), 0, block_bytes, 0, sink->write, sink->write_block, sink->context};
	struct last_record last = {NULL, NULL, 0, 0, 0, false};
	int error = (!tree.cursors || !tree.keys || !tree.nodes || !out.bytes || (!order->compare && !tree.loser_orders))
			    ? -ENOMEM : 0;
	size_t failing = k;

	for (size_t i = 0; i < tree.leaves && !error; i++) {
		leaf_exhaust(&tree, i);
		if (i < k) {
			/* an empty block at its end: the first advance fetches the first block */
			tree.cursors[i].source = &sources[i];
			if ((error = cursor_advance(&tree, i)) != 0)
				failing = i;
		}
	}
	if (!error)
		tree.nodes[0] = tree_build(&tree, 1);

	while (!error) {
		size_t winner = tree.nodes[0];
		if (leaf_done(&tree, winner))
			break;
		const struct cursor *c = &tree.cursors[winner];
		const unsigned char *record = cursor_record(c);
		size_t len = c->record_len;
		uint64_t prefix = tree.keys[winner].prefix;
		int relation = keep_last ? last_relation(order, &last, record, len, prefix) : -1;
		bool dropped = unique && relation == 0;
		/* runs keep no positions: merged records count by their bytes (verify.h) */
		if (verify && (to_output || dropped))
			fingerprint_record(order, &print, record, len);
		if (!dropped) {
			disorder += relation > 0;
			if (keep_last)
				last = (struct last_record){record, last.bytes, len, last.capacity, prefix, true};
			error = output_append(&out, record, c->step);
		}
		if (!error && keep_last)
			error = last_keep_from(&last, c);
		if (!error && (error = cursor_advance(&tree, winner)) != 0)
			failing = winner;
		if (!error)
			tree_replay(&tree, winner);
	}
	if (!error)
		error = output_flush(&out);
	if (verify)
		sort_verify_output(verify, &print, to_output ? disorder : 0);
	if (failed)
		*failed = error ? failing : k;
	free(tree.cursors);
	free(tree.keys);
	free(tree.nodes);
	free(tree.loser_orders);
	free(out.bytes);
	free(last.bytes);
	return error;
}
