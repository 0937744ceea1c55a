/* The loser-tree merge (see merge.h). Each leaf is a cursor over one source's current
 * block; the tree keeps the loser of each match at the inner nodes, so each record out
 * costs log2(k) comparisons against one path of the tree. */
#include "config.h"
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "key_image.h"
#include "merge.h"

struct cursor {
	const unsigned char *records;
	size_t count;
	size_t next;
	uint64_t image;         /* ordered image of the current key (not for bytes keys) */
	bool done;
	struct merge_source *source;
};

struct tree {
	const struct record_layout *layout;
	struct cursor *cursors;
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

static void cursor_cache_image(const struct tree *tree, struct cursor *c)
{
	if (tree->bytes_keys)
		return;
	const struct record_layout *layout = tree->layout;
	uint64_t image = key_image(layout->type, cursor_record(tree, c) + layout->key_offset,
				   layout->key_size);
	c->image = layout->reverse ? ~image : image;
}

/* Moves a cursor to its next record, fetching the next block when one runs out. */
static int cursor_advance(struct tree *tree, struct cursor *c)
{
	if (c->done)
		return 0;
	if (++c->next < c->count) {
		cursor_cache_image(tree, c);
		return 0;
	}
	for (;;) {
		int error = c->source->next_block(c->source->context, &c->records, &c->count);
		if (error)
			return error;
		if (c->count == 0) {
			c->done = true;
			return 0;
		}
		c->next = 0;
		cursor_cache_image(tree, c);
		return 0;
	}
}

/* True when leaf a's record goes out before leaf b's (ties: the earlier source). */
static bool goes_first(const struct tree *tree, size_t a, size_t b)
{
	const struct cursor *x = &tree->cursors[a], *y = &tree->cursors[b];
	if (x->done || y->done)
		return !x->done && (y->done || a < b);
	if (!tree->bytes_keys) {
		if (x->image != y->image)
			return x->image < y->image;
		return a < b;
	}
	int order = merge_compare_records(tree->layout, cursor_record(tree, x), cursor_record(tree, y));
	return order < 0 || (order == 0 && a < b);
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

static void tree_replay(struct tree *tree, size_t leaf)
{
	size_t winner = leaf;
	for (size_t node = (leaf + tree->leaves) / 2; node >= 1; node /= 2) {
		if (goes_first(tree, tree->nodes[node], winner)) {
			size_t loser = winner;
			winner = tree->nodes[node];
			tree->nodes[node] = loser;
		}
	}
	tree->nodes[0] = winner;
}

int merge_records(const struct record_layout *layout, struct merge_source *sources, size_t k,
		  bool unique, size_t block_bytes, record_sink sink, void *sink_context)
{
	size_t size = layout->record_size;
	size_t per_block = block_bytes / size ? block_bytes / size : 1;
	struct tree tree = {layout, NULL, 1, NULL, layout->type == KEY_BYTES};
	while (tree.leaves < k)
		tree.leaves *= 2;
	tree.cursors = calloc(tree.leaves, sizeof *tree.cursors);
	tree.nodes = calloc(tree.leaves, sizeof *tree.nodes);
	unsigned char *out = malloc(per_block * size);
	unsigned char *last = malloc(size);
	int error = (!tree.cursors || !tree.nodes || !out || !last) ? -ENOMEM : 0;

	for (size_t i = 0; i < tree.leaves && !error; i++) {
		struct cursor *c = &tree.cursors[i];
		c->done = true;
		if (i < k) {
			c->source = &sources[i];
			c->done = false;
			c->next = 0;
			c->count = 0;
			/* count 0 with next 0: the first advance fetches the first block */
			c->next = (size_t)-1;
			error = cursor_advance(&tree, c);
		}
	}
	if (!error)
		tree.nodes[0] = tree_build(&tree, 1);

	size_t filled = 0;
	bool have_last = false;
	while (!error) {
		size_t winner = tree.nodes[0];
		struct cursor *c = &tree.cursors[winner];
		if (c->done)
			break;
		const unsigned char *record = cursor_record(&tree, c);
		if (!(unique && have_last && merge_compare_records(layout, last, record) == 0)) {
			memcpy(out + filled * size, record, size);
			if (unique) {
				memcpy(last, record, size);
				have_last = true;
			}
			if (++filled == per_block) {
				error = sink(sink_context, out, filled);
				filled = 0;
			}
		}
		if (!error)
			error = cursor_advance(&tree, c);
		if (!error)
			tree_replay(&tree, winner);
	}
	if (!error && filled)
		error = sink(sink_context, out, filled);
	free(tree.cursors);
	free(tree.nodes);
	free(out);
	free(last);
	return error;
}
