/* SPDX-License-Identifier: MIT */
/* A job's own state, so that jobs of one process may run at once: its messages
 * (report.h), its io scope (temp files, read-ahead: io/io_scope.h), its stats label
 * (stats.h) and whether its caller cancelled it.
 * Each thread works in one context: a job's threads in the job's (job_thread_create
 * starts a thread in the caller's, a thread pool's workers enter theirs through
 * job_context_thread_enter), any other thread in the process's. */
#ifndef GPUSORT_JOB_CONTEXT_H
#define GPUSORT_JOB_CONTEXT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include "report.h"
#include "../../io/io_scope.h"

/* Room for one message that report remembers (to say a repeated one once). */
#define JOB_MESSAGE_SIZE (2 * 4096 + 256)

struct job_context {
	/* report.c's: under lock */
	pthread_mutex_t lock;
	char last[JOB_MESSAGE_SIZE];
	bool holding;
	char *held; /* held messages, each ended by a NUL */
	size_t held_length, held_size;
	report_sink sink;
	void *sink_context;
	int first_cause;
	/* the job's -T directories, temp files and read-ahead */
	struct io_scope io;
	/* stats.c's: what names the job's stats lines (a rank of a distributed sort) */
	char stats_label[32];
	atomic_bool cancelled;
};

/* A new context: no message said, no cause, no temp file. Returns 0 or -ENOMEM. */
int job_context_create(struct job_context **context);
/* Removes the context's temp files and frees it. */
void job_context_destroy(struct job_context *context);
/* The calling thread's context, never NULL. */
struct job_context *job_context_current(void);
/* The calling thread works in context from now on (NULL: the process's). */
void job_context_enter(struct job_context *context);
/* job_context_enter for a thread pool's worker (kernels/thread_pool.h). */
void job_context_thread_enter(void *context);
/* pthread_create of a thread that starts in the caller's context; 0 or an errno. */
int job_thread_create(pthread_t *thread, void *(*main)(void *), void *argument);
/* Asks the context's job to stop; whatever is running sees it at its next step. */
void job_cancel(struct job_context *context);
/* Whether the calling thread's job was cancelled: the job then stops where it stands
 * with -ECANCELED, says nothing, and removes what it made. */
bool job_cancelled(void);

#endif
