/* SPDX-License-Identifier: MIT */
/* gpusort_run(): a job through the pipeline the command has always run, its exit
 * status (0 done, 1 disorder, 2 trouble already reported) turned into the API's codes:
 * a failure's is the cause of the first message that reported it. */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include "job_options.h"
#include "../common/environment.h"
#include "../common/job_context.h"
#include "../common/report.h"
#include "../distributed/distributed_sort.h"
#include "../pipeline/memory_plan.h"
#include "../pipeline/sort_job.h"
#include "../../io/io_scope.h"
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
	/* whatever a failure left behind */
	temp_files_remove_scope(io_scope_current());
	job_options_free(&built);
	return status == 0 ? GPUSORT_OK : status == 1 ? GPUSORT_DISORDER : failure_code();
}

/* The jobs running now, each with its context, for gpusort_cancel. */
struct running_job {
	const struct gpusort_job *job;
	struct job_context *context;
	struct running_job *next;
};
static pthread_mutex_t running_lock = PTHREAD_MUTEX_INITIALIZER;
static struct running_job *running;

static void running_add(struct running_job *entry)
{
	pthread_mutex_lock(&running_lock);
	entry->next = running;
	running = entry;
	pthread_mutex_unlock(&running_lock);
}

static void running_remove(struct running_job *entry)
{
	pthread_mutex_lock(&running_lock);
	struct running_job **at = &running;
	while (*at && *at != entry)
		at = &(*at)->next;
	if (*at)
		*at = entry->next;
	pthread_mutex_unlock(&running_lock);
}

int gpusort_run(const struct gpusort_job *job)
{
	/* the job's messages, cause and temp files are its own (job_context.h) */
	struct job_context *context, *caller = job_context_current();
	if (job_context_create(&context) != 0)
		return GPUSORT_ERROR_NO_MEMORY;
	struct running_job entry = {job, context, NULL};
	running_add(&entry);
	job_context_enter(context);
	/* (a job of an older header has no message fields: its messages go to stderr) */
	bool has_sink = job && job->size >= offsetof(struct gpusort_job, message_context) + sizeof job->message_context;
	report_set_sink(has_sink ? job->message : NULL, has_sink ? job->message_context : NULL);
	int code = run_job(job);
	running_remove(&entry);
	/* a job cancelled before it was done (cut short, or failed as it was) */
	if (job_cancelled() && code != GPUSORT_OK && code != GPUSORT_DISORDER)
		code = -ECANCELED;
	job_context_enter(caller);
	job_context_destroy(context);
	return code;
}

int gpusort_cancel(const struct gpusort_job *job)
{
	int code = -ESRCH;
	pthread_mutex_lock(&running_lock);
	for (struct running_job *entry = running; entry; entry = entry->next)
		if (entry->job == job && job) {
			job_cancel(entry->context);
			code = GPUSORT_OK;
		}
	pthread_mutex_unlock(&running_lock);
	return code;
}

int gpusort_signals_thread(void)
{
	return temp_signals_thread_start();
}
