/* SPDX-License-Identifier: MIT */
/* gpusort_run(): a job through the pipeline the command has always run, its exit
 * status (0 done, 1 disorder, 2 trouble already reported) turned into the API's codes. */
#include "config.h"
#include "job_options.h"
#include "../common/environment.h"
#include "../common/report.h"
#include "../distributed/distributed_sort.h"
#include "../pipeline/memory_plan.h"
#include "../pipeline/sort_job.h"
#include "../../io/temp_files.h"

int gpusort_run(const struct gpusort_job *job)
{
	report_new_job(); /* its messages are its own, even where they repeat the last job's */
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
	return status == 0 ? GPUSORT_OK : status == 1 ? GPUSORT_DISORDER : GPUSORT_ERROR_FAILED;
}

int gpusort_signals_thread(void)
{
	return temp_signals_thread_start() == 0 ? GPUSORT_OK : GPUSORT_ERROR_FAILED;
}
