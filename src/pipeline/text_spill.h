/* The external text sort: input gathered in chunks that fit the -S budget; each full
 * chunk is sorted in memory and spilled as a run file (whole lines in zstd blocks) in
 * the temp directories; at the end the runs are merged by the full comparator. */
#ifndef GPUSORT_TEXT_SPILL_H
#define GPUSORT_TEXT_SPILL_H

#include <stddef.h>
#include <stdint.h>
#include "binary_runs.h"
#include "record_order.h"
#include "../common/stats.h"
#include "../text/text_lines.h"
#include "../text/text_order.h"
#include "text_write.h"
#include "../../kernels/sort_engine.h"
#include "../../kernels/thread_pool.h"

struct text_spill {
	const struct text_order *order;
	struct sort_engine *engine;
	struct thread_pool *pool;
	struct sort_stats *stats;
	struct text_lines lines;     /* the chunk being gathered */
	struct text_writer run_text; /* a sorted chunk's text, before it is cut into blocks */
	size_t chunk_bytes;          /* text bytes per chunk */
	size_t budget;               /* -S: the merge's buffers stay within it too */
	struct record_order record_order; /* the lines' order, as runs and merges take it */
	struct run_list list;             /* the runs spilled so far */
	struct sort_verify *verify; /* the sort's self-check, or NULL (set after init) */
};

void text_spill_init(struct text_spill *spill, const struct text_order *order,
		     struct sort_engine *engine, struct thread_pool *pool, size_t budget,
		     struct sort_stats *stats);
/* Bytes the chunk may still take before it must be spilled. */
size_t text_spill_room(const struct text_spill *spill);
/* Sorts the chunk's complete lines and spills them as a run, keeping a trailing partial
 * line for the next chunk (a chunk with no complete line just grows). Reports its own
 * errors, naming the temp directory or run file where one is to blame. */
int text_spill_chunk(struct text_spill *spill);
/* Merges all runs into writer, an output file's with nothing written yet (the chunk's
 * memory is released first): merge passes while the runs exceed the fan-in the budget
 * allows, then the merge over key ranges in threads. Reports its errors (name: the
 * output's, for messages); the merge and the writes it makes count in their stages. */
int text_spill_merge(struct text_spill *spill, struct text_writer *writer, const char *name);
/* Closes and removes the runs. */
void text_spill_free(struct text_spill *spill);

#endif
