/* SPDX-License-Identifier: MIT */
/* The merge of records ordered by one 4- or 8-byte integer key (--type u32, i32, u64,
 * i64: bare keys, the common case of the external sort's and the distributed sort's
 * merges, or a key in fixed-size records): a tree of four-way (and, at its leaves,
 * two- or three-way) merges, each level through a small buffer, each step compares and
 * conditional moves. The loser tree (merge.c) replays one path of the tree per record,
 * each level waiting for the one before; here a record costs log4(k) short steps. Equal keys come out in source order, as from
 * the loser tree. merge.c calls it for the orders it takes and applies -u, the
 * self-check and the output blocks to what comes out. */
#ifndef GPUSORT_MERGE_KEYS_H
#define GPUSORT_MERGE_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "merge.h"
#include "record_order.h"

/* Whether order is one merge_keys takes. */
bool merge_keys_eligible(const struct record_order *order);

/* The order of such a key: (its 4 or 8 bytes as an unsigned integer) ^ this mask, as an
 * unsigned number (record_prefix's, in one instruction); and the key's bytes. */
uint64_t merge_keys_mask(const struct record_order *order);
size_t merge_keys_key_width(const struct record_order *order);

/* A key's bytes as an integer (raw), and its order: raw ^ mask. */
static inline uint64_t merge_key_raw(const unsigned char *key, size_t width)
{
	if (width == 4) {
		uint32_t narrow;
		memcpy(&narrow, key, 4);
		return narrow;
	}
	uint64_t wide;
	memcpy(&wide, key, 8);
	return wide;
}

static inline uint64_t merge_key_order(const unsigned char *key, size_t width, uint64_t mask)
{
	return merge_key_raw(key, width) ^ mask;
}

/* Receives the merged records in order, count records at a time; returns 0 or a
 * negative errno, which ends the merge. */
typedef int (*merge_keys_emit)(void *context, const unsigned char *records, size_t count);

/* Merges k sources (k >= 1) in order into emit. Returns 0 or the first negative errno,
 * with *failed set to the source that failed (k: emit, or memory). */
int merge_keys(const struct record_order *order, struct merge_source *sources, size_t k, merge_keys_emit emit,
	       void *context, size_t *failed);

#endif
