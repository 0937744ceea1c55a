/* The external sort of binary records: sorted chunks spilled as compressed runs in the
 * temp directories, then merged (k-way, loser tree, parallel over key ranges). */
#ifndef GPUSORT_EXTERNAL_SORT_H
#define GPUSORT_EXTERNAL_SORT_H

#include "../../kernels/sort_engine.h"
#include "memory_plan.h"
#include "../settings/options.h"
#include "../binary/record_items.h"
#include "../binary/record_reader.h"
#include "../common/stats.h"

/* Continues a sort whose first read filled the chunk: *records holds chunk_records + 1
 * records already read. Frees the chunk buffers (engine host memory) before merging and
 * sets them to NULL. Returns the exit status. */
int external_sort_binary(const struct options *options, const struct record_layout *layout,
			 struct sort_engine *engine, struct record_reader *reader,
			 const struct memory_plan *plan, unsigned char **records, void **items,
			 struct sort_stats *stats);

#endif
