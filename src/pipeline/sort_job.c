/* SPDX-License-Identifier: MIT */
/* The pipeline's entry (see sort_job.h): a job goes to its mode's driver. */
#include "config.h"
#include "binary_sort.h"
#include "input_header.h"
#include "sort_job.h"
#include "text_sort.h"

int sort_job_run(const struct sort_job *job)
{
	if (job->mode == MODE_BINARY)
		return binary_sort_run(job);
	if (!job->header_lines)
		return text_sort_run(job);
	/* the first input's header, read with it, goes to the output first */
	struct input_header header = {.lines = job->header_lines, .eol = job->text.zero_terminated ? '\0' : '\n',
				      .csv_separator = job->text.csv ? job->text.field_separator : -1,
				      .csv_lenient = job->text.csv_lenient};
	struct sort_job with_header = *job;
	with_header.output.header = &header;
	int status = text_sort_run(&with_header);
	input_header_free(&header);
	return status;
}
