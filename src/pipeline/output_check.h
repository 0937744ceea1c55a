/* -o's check before any work: a file the user may not write is refused (exit 2,
 * "gpusort: FILE: Permission denied") before an input is opened, read or sorted, as GNU
 * sort does, so a long sort never ends in that error and the file is never changed.
 * And the open of that output at the end: the file, stdout, or a job's descriptor. */
#ifndef GPUSORT_OUTPUT_CHECK_H
#define GPUSORT_OUTPUT_CHECK_H

#include "sort_job.h"

/* 0 when the output named by -o (if any) may be written, else reports why and returns
 * the exit status 2. */
int output_check(const struct sort_job *options);

struct output_file;
/* Opens the output the options name (io/output_file.h); reports a failure by name and
 * returns its negative errno. */
int output_open(const struct sort_job *options, struct output_file **file);

#endif
