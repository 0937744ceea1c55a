/* SPDX-License-Identifier: MIT */
/* The driver both modes run (see sort_driver.h). */
#include "config.h"
#include <stdatomic.h>
#include <string.h>
#include "sort_driver.h"
#include "sort_job.h"
#include "engine_choice.h"
#include "merge_inputs.h"
#include "order_check.h"
#include "output_check.h"
#include "record_output.h"
#include "../common/report.h"
#include "../../io/temp_files.h"
#include "../../kernels/thread_pool.h"

/* -m or the sort, the inputs resolved: the engine opened for them, and closed. */
static int sort_inputs(struct sort_drive *drive, const struct sort_driver_mode *mode)
{
	const struct sort_job *job = drive->job;
	const char *small = NULL;
	int status = job->merge_only ? 0 : mode->open(mode->mode, drive);
	drive->memory = job->memory;
	if (!drive->memory.budget)
		drive->memory.budget = memory_budget_default();
	drive->asked = job->engine;
	drive->asked.threads = memory_plan_threads(&drive->memory, drive->asked.threads);
	if (status == 0 && drive->empty)
		status = record_output_empty(&job->output, &drive->stats) ? 2 : 0;
	else if (status == 0 && engine_choice_open(&drive->asked, job->merge_only, drive->work, mode->gpu_min_bytes,
						   mode->small_reason, &drive->engine, &small) < 0)
		status = 2;
	else if (status == 0) {
		drive->pool = sort_engine_thread_pool(drive->engine);
		if (job->merge_only) {
			status = merge_inputs(mode->order, &drive->memory, &job->runs, &job->output, drive->inputs,
					      (struct record_admit){mode->fits, mode->mode}, &drive->stats);
		} else {
			stats_progress_start(&drive->stats, job->progress, drive->total);
			stats_progress_watch(&drive->stats, drive->pool);
			status = mode->sort(mode->mode, drive);
		}
	}
	stats_progress_finish(&drive->stats, status == 0);
	if (drive->engine)
		engine_choice_note(job->verbose, drive->engine, small, &drive->stats);
	drive->stats.verified = drive->verify.enabled && status == 0;
	drive->stats.verify_seconds = sort_verify_seconds(&drive->verify, thread_pool_size(drive->pool));
	drive->stats.verified_records = atomic_load(&drive->verify.input_count);
	if (job->stats && status != 2)
		stats_print(&drive->stats);
	if (mode->close)
		mode->close(mode->mode);
	if (drive->engine)
		sort_engine_close(drive->engine);
	return status;
}

int sort_driver_run(const struct sort_job *job, const struct sort_driver_mode *mode)
{
	struct sort_drive drive = {.job = job, .total = -1, .work = -1};
	/* -m merges inputs it takes as sorted and -c only reads: neither sorts anything */
	sort_verify_init(&drive.verify, !job->no_verify && !job->merge_only && !job->check);
	stats_begin(&drive.stats);
	struct input_list inputs = {0};
	int status = 2, error;
	if ((!job->check && output_check(&job->output)) || input_list_resolve(&job->inputs, job->check, &inputs) != 0) {
		input_list_free(&inputs);
		return 2;
	}
	drive.inputs = &inputs;
	if (job->check)
		status = order_check(mode->order, inputs.names[0], job->check, job->output.header, mode->fits,
				     mode->mode);
	else if ((error = temp_files_init(job->runs.temp_dirs, job->runs.temp_dir_count)) != 0)
		report_error(error, "temporary directory: %s", strerror(-error));
	else
		status = sort_inputs(&drive, mode);
	input_list_free(&inputs);
	return status;
}
