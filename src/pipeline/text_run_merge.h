/* Merging the spilled runs of an external text sort in parallel: the runs' block
 * indexes (each block's first line) are the samples, equidistant samples become
 * splitters, and each key range between two splitters is merged from all runs on its
 * own thread; ranges are written in order. */
#ifndef GPUSORT_TEXT_RUN_MERGE_H
#define GPUSORT_TEXT_RUN_MERGE_H

#include <stddef.h>
#include "../text/text_order.h"
#include "text_write.h"
#include "../../io/run_file.h"
#include "../../kernels/thread_pool.h"

/* Merges runs[0, count) (each in order, whole lines in blocks whose index entry is the
 * block's first line, earlier runs first among equals) into writer, keeping its buffers
 * within about budget bytes. Returns 0 or a negative errno. */
int text_run_merge(const struct text_order *order, struct run_reader *const *runs,
		   size_t count, struct text_writer *writer, struct thread_pool *pool,
		   size_t budget);

#endif
