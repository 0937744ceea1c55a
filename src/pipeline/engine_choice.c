/* SPDX-License-Identifier: MIT */
/* Which engine sorts (see engine_choice.h). */
#include "config.h"
#include "engine_choice.h"
#include "../common/job_context.h"
#include "../common/report.h"
#include "../../kernels/thread_pool.h"

int engine_choice_open(const struct sort_engine_config *asked, bool merge_only, int64_t work_bytes,
		       int64_t min_bytes, const char *small_reason, struct sort_engine **engine, const char **small)
{
	struct sort_engine_config config = *asked;
	*small = NULL;
	/* -m sorts nothing: a GPU opened in the background would only take descriptors
	 * the merge counts on when few are left (GNU's sort-continue case) */
	if (config.device == SORT_DEVICE_AUTO && merge_only) {
		config.device = SORT_DEVICE_CPU;
		*small = "-m merges inputs already sorted: nothing to sort";
	} else if (config.device == SORT_DEVICE_AUTO && work_bytes >= 0 && work_bytes < min_bytes) {
		config.device = SORT_DEVICE_CPU;
		*small = small_reason;
	}
	char reason[256];
	int error = sort_engine_open_explained(&config, engine, reason, sizeof reason);
	if (error) {
		/* the driver's own reason ("CUDA driver version is insufficient ..."), which
		 * strerror's "No such device" would hide */
		if (asked->device >= 0)
			report("device %d: %s", asked->device, reason);
		else
			report("sort engine: %s", reason);
	} else { /* its threads work in the job's context, and stop when it is cancelled */
		thread_pool_set_enter(sort_engine_thread_pool(*engine), job_context_thread_enter,
				      job_context_current());
		thread_pool_set_stop(sort_engine_thread_pool(*engine), job_cancelled);
	}
	return error;
}

void engine_choice_note(bool verbose, struct sort_engine *engine, const char *small, struct sort_stats *stats)
{
	stats->engine = sort_engine_describe(engine);
	stats->engine_seconds = sort_engine_open_seconds(engine);
	stats->engine_wait_seconds = sort_engine_wait_seconds(engine);
	stats->fallback = small ? small : sort_engine_fallback_reason(engine);
	if (verbose && stats->fallback)
		report("note: sorting on the CPU: %s", stats->fallback);
}
