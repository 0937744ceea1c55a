/* SPDX-License-Identifier: MIT */
/* The library's side of a job: a struct gpusort_job (include/gpusort.h) checked and
 * turned into the struct sort_job that the pipeline reads (src/pipeline/sort_job.h), so
 * that the public struct can grow without the pipeline following it field by field. */
#ifndef GPUSORT_JOB_OPTIONS_H
#define GPUSORT_JOB_OPTIONS_H

#include "../../include/gpusort.h"
#include "../pipeline/sort_job.h"

struct job_options {
	struct sort_job sort_job;
	char *names; /* the "/dev/fd/N" names of input descriptors, which sort_job points into */
	char output_name[32]; /* the same for an output descriptor */
};

/* Copies a caller's struct of caller_size bytes (its size field) into one of ours of
 * our_size bytes that holds the defaults: fields the caller's version lacks keep them.
 * A caller's struct larger than ours must be zero past ours. Returns GPUSORT_OK,
 * GPUSORT_ERROR_STRUCT_SIZE or GPUSORT_ERROR_INVALID_ARGUMENT (NULL). */
int job_struct_copy(void *ours, size_t our_size, size_t oldest_size, const void *callers);

/* Checks job and fills built. Inconsistent settings are reported on stderr as the
 * command's usage errors are (without the "Try 'gpusort --help'" line, which is the
 * command's) and return GPUSORT_ERROR_USAGE or GPUSORT_ERROR_KEYDEF; malformed ones
 * return GPUSORT_ERROR_INVALID_ARGUMENT or GPUSORT_ERROR_STRUCT_SIZE, unreported.
 * On GPUSORT_OK, job_options_free releases built. */
int job_options_build(const struct gpusort_job *job, struct job_options *built);
void job_options_free(struct job_options *built);

#endif
