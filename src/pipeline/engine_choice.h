/* SPDX-License-Identifier: MIT */
/* Which engine sorts: the one the job's engine config asks for, except that
 * --device=auto sorts inputs too small to repay a GPU's start, and -m, on the CPU
 * threads. */
#ifndef GPUSORT_ENGINE_CHOICE_H
#define GPUSORT_ENGINE_CHOICE_H

#include <stdbool.h>
#include <stdint.h>
#include "../common/stats.h"
#include "../../kernels/sort_engine.h"

/* Opens the engine asked for; with --device=auto and work_bytes (-1: unknown) below
 * min_bytes, the CPU's, *small then saying why (small_reason), and so for -m
 * (merge_only), which sorts nothing. Reports a failure with the driver's own reason.
 * Returns 0 or a negative errno. */
int engine_choice_open(const struct sort_engine_config *asked, bool merge_only, int64_t work_bytes,
		       int64_t min_bytes, const char *small_reason, struct sort_engine **engine, const char **small);

/* What the engine turned out to be (--device=auto opens the GPU while the input is
 * read), for --stats, and said on stderr when verbose (--verbose). */
void engine_choice_note(bool verbose, struct sort_engine *engine, const char *small, struct sort_stats *stats);

#endif
