/* SPDX-License-Identifier: MIT */
/* The emit both modes share: sorted records (or lines) gathered round by round by the
 * thread pool into one of two blocks, each block handed to the sink on a thread of its
 * own while the pool gathers the next; or, with a positional sink, written by the
 * gathering threads at their offsets. A mode says how a round is readied and gathered. */
#ifndef GPUSORT_EMIT_ROUNDS_H
#define GPUSORT_EMIT_ROUNDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "record_sink.h"

struct thread_pool;

/* Where an emit puts its records, and how. */
struct emit_output {
	record_sink sink;       /* in order, a block at a time */
	record_sink_at sink_at; /* when not NULL: in place of sink, each piece at its offset */
	void *context;          /* the sink's or sink_at's */
	bool to_output;         /* the records are the sort's output: checked and counted (verify.h) */
	struct emit_scratch *scratch; /* the blocks, kept from emit to emit; NULL: the emit's own */
	bool csv_decode;        /* --csv: the records decoded as they are gathered (csv_codec.h) */
};

/* A positional sink written from several threads at once, and its first error. */
struct offset_writes {
	record_sink_at sink_at;
	void *context;
	_Atomic int error;
};

/* Writes bytes[0, len) at offset, unless len is 0 or a write has failed already. */
void offset_writes_put(struct offset_writes *sink, const unsigned char *bytes, size_t len, uint64_t offset);
/* Notes error as the first, unless one came before (a gather's own, such as -ENOMEM). */
void offset_writes_fail(struct offset_writes *sink, int error);

/* One round as the mode readied it: gather runs for tasks indices, after which the
 * block holds bytes, count records. */
struct emit_round {
	size_t tasks, bytes, count;
};

/* A mode's part of an emit. */
struct emit_rounds {
	void *job;
	struct thread_pool *pool; /* NULL: the calling thread */
	size_t block_bytes;       /* the most bytes a round puts in its block */
	/* Readies the next round, to be gathered into block; false when none is left. */
	bool (*next)(void *job, unsigned char *block, struct emit_round *round);
	/* Gathers task index of the round readied last, on the pool's threads; with a
	 * positional sink, writes what it gathered through at. */
	void (*gather)(void *job, size_t index);
	struct offset_writes at; /* set by emit_rounds_run from the output */
};

/* Runs the rounds into output. Returns 0, -ENOMEM or the sink's negative errno. */
int emit_rounds_run(struct emit_rounds *rounds, const struct emit_output *output);

#endif
