/* SPDX-License-Identifier: MIT */
/* Jobs' own state, and threads that work in their job's (see job_context.h). */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include "job_context.h"
#include "../../io/temp_files.h"

static struct job_context process_context = {.lock = PTHREAD_MUTEX_INITIALIZER};
static _Thread_local struct job_context *context_here;

int job_context_create(struct job_context **result)
{
	struct job_context *context = calloc(1, sizeof *context);
	if (!context)
		return -ENOMEM;
	int error = pthread_mutex_init(&context->lock, NULL);
	if (error) {
		free(context);
		return -error;
	}
	context->io.stopped = job_cancelled; /* asked on the job's threads */
	*result = context;
	return 0;
}

void job_context_destroy(struct job_context *context)
{
	if (!context)
		return;
	temp_scope_release(&context->io);
	pthread_mutex_destroy(&context->lock);
	free(context->held);
	free(context);
}

struct job_context *job_context_current(void)
{
	return context_here ? context_here : &process_context;
}

void job_context_enter(struct job_context *context)
{
	context_here = context == &process_context ? NULL : context;
	io_scope_enter(context_here ? &context_here->io : NULL);
}

void job_context_thread_enter(void *context)
{
	job_context_enter(context);
}

struct thread_start {
	void *(*main)(void *);
	void *argument;
	struct job_context *context;
};

static void *thread_start_main(void *start_argument)
{
	struct thread_start start = *(struct thread_start *)start_argument;
	free(start_argument);
	job_context_enter(start.context);
	return start.main(start.argument);
}

int job_thread_create(pthread_t *thread, void *(*main)(void *), void *argument)
{
	struct thread_start *start = malloc(sizeof *start);
	if (!start)
		return ENOMEM;
	*start = (struct thread_start){main, argument, job_context_current()};
	int error = pthread_create(thread, NULL, thread_start_main, start);
	if (error)
		free(start);
	return error;
}

void job_cancel(struct job_context *context)
{
	atomic_store(&context->cancelled, true);
}

bool job_cancelled(void)
{
	return atomic_load_explicit(&job_context_current()->cancelled, memory_order_relaxed);
}
