/* SPDX-License-Identifier: MIT */
/* gpusort_run(): a job through the pipeline the command has always run, its exit
 * status (0 done, 1 disorder, 2 trouble already reported) turned into the API's codes:
 * a failure's is the cause of the first message that reported it. */
#include "config.h"
#include <stdbool.h>
#include <stddef.h>
#include "job_options.h"
#include "../common/environment.h"
#include "../common/report.h"
#include "../distributed/distributed_sort.h"
#include "../pipeline/memory_plan.h"
#include "../pipeline/sort_job.h"
#include "../../io/temp_files.h"

/* A failed job's code: the cause of its first reported failure. */
static int failure_code(void)
{
	int cause = report_cause();
	if (cause == REPORT_INTERNAL)
		return GPUSORT_ERROR_INTERNAL;
	return cause < 0 && cause >= -4095 ? cause : GPUSORT_ERROR_FAILED;
}

static int run_job(const struct gpusort_job *job)
{
	environment_apply();
	struct job_options built;
	int code = job_options_build(job, &built);
	if (code != GPUSORT_OK)
		return code;
	/* an -S larger than the limits let the process have is halved until it fits, as
	 * GNU sort's buffer is */
	if (built.sort_job.memory.budget)
		built.sort_job.memory.budget = memory_budget_fit(built.sort_job.memory.budget);
	int status;
	/* under mpirun with several ranks, the sort is theirs together */
	if (distributed_launched())
		status = distributed_sort_run(&built.sort_job);
	else
		status = sort_job_run(&built.sort_job);
	/* whatever a failure left behind; the next job starts with none */
	temp_files_remove_all();
	job_options_free(&built);
	return status == 0 ? GPUSORT_OK : status == 1 ? GPUSORT_DISORDER : failure_code();
}

int gpusort_run(const struct gpusort_job *job)
{
	report_new_job(); /* its messages are its own, even where they repeat the last job's */
	/* (a job of an older header has no message fields: its messages go to stderr) */
	bool has_sink = job && job->size >= offsetof(struct gpusort_job, message_context) + sizeof job->message_context;
	report_set_sink(has_sink ? job->message : NULL, has_sink ? job->message_context : NULL);
	int code = run_job(job);
	report_set_sink(NULL, NULL);
	return code;
}

int gpusort_signals_thread(void)
{
	return temp_signals_thread_start();
}
