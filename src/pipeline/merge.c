/* The loser-tree merge (see merge.h). Each leaf is a cursor over one source's current
 * block; the tree keeps the loser of each match at the inner nodes, so each record out
 * costs log2(k) comparisons against one path of the tree. Each leaf's current key is
 * kept as its order-preserving 64-bit image (-r: inverted) beside a rank (its source
 * index, or past every source once it is exhausted), so a match is two integer
 * comparisons; only bytes keys whose 8-byte prefixes tie compare the records. */
#include "config.h"
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../binary/key_image.h"
#include "merge.h"
#include "../common/verify.h"

struct cursor {
	const unsigned char *records;
	size_t count;
	size_t next;
	struct merge_source *source;
};

/* What a match looks at: the image, then the rank. */
struct leaf_key {
	uint64_t image;
	size_t rank;
};

struct tree {
	const struct record_layout *layout;
	struct cursor *cursors;
	struct leaf_key *keys;
	size_t leaves;          /* k rounded up to a power of two */
	size_t *nodes;          /* nodes[0] the winner, nodes[1..leaves-1] losers */
	bool bytes_keys;
};

int merge_compare_records(const struct record_layout *layout, const unsigned char *a,
			  const unsigned char *b)
{
	int order = key_compare(layout->type, layout->key_size, a + layout->key_offset,
				b + layout->key_offset);
	return layout->reverse ? -order : order;
}

static const unsigned char *cursor_record(const struct tree *tree, const struct cursor *c)
{
	return c->records + c->next * tree->layout->record_size;
}

/* key_image with the common integer types inline: this runs once per record. */
static inline uint64_t record_image(const struct record_layout *layout, const unsigned char *record)
{
	const unsigned char *key = record + layout->key_offset;
	uint64_t image;
	uint32_t narrow;
	switch (layout->type) {
	case KEY_U64:
		memcpy(&image, key, 8);
		break;
	case KEY_I64:
		memcpy(&image, key, 8);
		image ^= 0x8000000000000000ULL;
		break;
	case KEY_U32:
		memcpy(&narrow, key, 4);
		image = narrow;
		break;
	case KEY_I32:
		memcpy(&narrow, key, 4);
		image = narrow ^ 0x80000000u;
		break;
	default:
		image = key_image(layout->type, key, layout->key_size);
		break;
	}
	return layout->reverse ? ~image : image;
}

static void leaf_set(struct tree *tree, size_t leaf)
{
	struct cursor *c = &tree->cursors[leaf];
	tree->keys[leaf].image = record_image(tree->layout, cursor_record(tree, c));
	tree->keys[leaf].rank = leaf;
}

/* An exhausted leaf loses to every live one, ties included. */
static void leaf_exhaust(struct tree *tree, size_t leaf)
{
	tree->keys[leaf].image = UINT64_MAX;
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
	if (++c->next < c->count) {
		leaf_set(tree, leaf);
		return 0;
	}
	int error = c->source->next_block(c->source->context, &c->records, &c->count);
	if (error)
		return error;
	if (c->count == 0) {
		leaf_exhaust(tree, leaf);
		return 0;
	}
	c->next = 0;
	leaf_set(tree, leaf);
	return 0;
}

/* True when leaf a's record goes out before leaf b's (ties: the earlier source). */
static inline bool goes_first(const struct tree *tree, size_t a, size_t b)
{
	const struct leaf_key *x = &tree->keys[a], *y = &tree->keys[b];
	if (x->image != y->image)
		return x->image < y->image;
	if (tree->bytes_keys && x->rank < tree->leaves && y->rank < tree->leaves) {
		int order = merge_compare_records(tree->layout, cursor_record(tree, &tree->cursors[a]),
						  cursor_record(tree, &tree->cursors[b]));
		if (order != 0)
			return order < 0;
	}
	return x->rank < y->rank;
}

/* Builds the tree bottom-up: returns the winner of the subtree at node. */
static size_t tree_build(struct tree *tree, size_t node)
{
	if (node >= tree->leaves)
		return node - tree->leaves;
	size_t left = tree_build(tree, 2 * node), right = tree_build(tree, 2 * node + 1);
	if (goes_first(tree, left, right)) {
		tree->nodes[node] = right;
		return left;
	}
	tree->nodes[node] = left;
	return right;
}

static void tree_replay_bytes(struct tree *tree, size_t leaf)
{
	size_t winner = leaf;
	for (size_t node = (leaf + tree->leaves) / 2; node >= 1; node /= 2) {
		size_t other = tree->nodes[node];
		if (goes_first(tree, other, winner)) {
			tree->nodes[node] = winner;
			winner = other;
		}
	}
	tree->nodes[0] = winner;
}

/* Image and rank as one 128-bit number: each match is a compare and two conditional
 * moves instead of a branch that random keys mispredict half the time. */
static inline unsigned __int128 leaf_order(const struct leaf_key *key)
{
	return (unsigned __int128)key->image << 64 | key->rank;
}

static inline void tree_replay(struct tree *tree, size_t leaf)
{
	if (tree->bytes_keys) {
		tree_replay_bytes(tree, leaf);
		return;
	}
	size_t winner = leaf;
	unsigned __int128 winner_order = leaf_order(&tree->keys[leaf]);
	for (size_t node = (leaf + tree->leaves) / 2; node >= 1; node /= 2) {
		size_t other = tree->nodes[node];
		unsigned __int128 other_order = leaf_order(&tree->keys[other]);
		bool swap = other_order < winner_order;
		tree->nodes[node] = swap ? winner : other;
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

int merge_records(const struct record_layout *layout, struct merge_source *sources, size_t k,
		  bool unique, bool to_output, size_t block_bytes, record_sink sink, void *sink_context)
{
	struct sort_verify *verify = layout->verify && layout->verify->enabled ? layout->verify : NULL;
	struct fingerprint print = {0, 0};
	uint64_t disorder = 0;
	bool keep_last = unique || (verify && to_output);
	size_t size = layout->record_size;
	size_t per_block = block_bytes / size ? block_bytes / size : 1;
	struct tree tree = {layout, NULL, NULL, 1, NULL, layout->type == KEY_BYTES};
	while (tree.leaves < k)
		tree.leaves *= 2;
	tree.cursors = calloc(tree.leaves, sizeof *tree.cursors);
	tree.keys = calloc(tree.leaves, sizeof *tree.keys);
	tree.nodes = calloc(tree.leaves, sizeof *tree.nodes);
	unsigned char *out = malloc(per_block * size);
	unsigned char *last = malloc(size);
	int error = (!tree.cursors || !tree.keys || !tree.nodes || !out || !last) ? -ENOMEM : 0;

	for (size_t i = 0; i < tree.leaves && !error; i++) {
		leaf_exhaust(&tree, i);
		if (i < k) {
			struct cursor *c = &tree.cursors[i];
			c->source = &sources[i];
			/* count 0 and next at the end: the first advance fetches the first block */
			c->count = 0;
			c->next = (size_t)-1;
			error = cursor_advance(&tree, i);
		}
	}
	if (!error)
		tree.nodes[0] = tree_build(&tree, 1);

	size_t filled = 0;
	bool have_last = false;
	while (!error) {
		size_t winner = tree.nodes[0];
		if (leaf_done(&tree, winner))
			break;
		const unsigned char *record = cursor_record(&tree, &tree.cursors[winner]);
		int order = have_last ? merge_compare_records(layout, last, record) : -1;
		/* runs keep no positions: merged records count by their keys (verify.h) */
		if (verify && (to_output || (unique && order == 0)))
			fingerprint_add(&print, record + layout->key_offset, layout->key_size);
		if (!(unique && order == 0)) {
			disorder += order > 0;
			copy_record(out + filled * size, record, size);
			if (keep_last) {
				copy_record(last, record, size);
				have_last = true;
			}
			if (++filled == per_block) {
				error = sink(sink_context, out, filled);
				filled = 0;
			}
		}
		if (!error)
			error = cursor_advance(&tree, winner);
		if (!error)
			tree_replay(&tree, winner);
	}
	if (!error && filled)
		error = sink(sink_context, out, filled);
	if (verify)
		sort_verify_output(verify, &print, to_output ? disorder : 0);
	free(tree.cursors);
	free(tree.keys);
	free(tree.nodes);
	free(out);
	free(last);
	return error;
}
