/* SPDX-License-Identifier: MIT */
/* The pipeline's entry (see sort_job.h): a job goes to its mode's driver. */
#include "config.h"
#include "binary_sort.h"
#include "sort_job.h"
#include "text_sort.h"

int sort_job_run(const struct sort_job *job)
{
	return job->mode == MODE_BINARY ? binary_sort_run(job) : text_sort_run(job);
}
