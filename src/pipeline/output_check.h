/* SPDX-License-Identifier: MIT */
/* -o's check before any work: a file the user may not write is refused (exit 2,
 * "gpusort: FILE: Permission denied") before an input is opened, read or sorted, as GNU
 * sort does, so a long sort never ends in that error and the file is never changed.
 * And the open of that output at the end: the file, stdout, or a job's descriptor. */
#ifndef GPUSORT_OUTPUT_CHECK_H
#define GPUSORT_OUTPUT_CHECK_H

#include <stdbool.h>

/* Where a job's output goes: the file -o names, or standard output; or a descriptor
 * the caller opened, which the name then only names in messages. */
struct output_target {
	const char *name;        /* -o; NULL means stdout */
	bool to_fd;              /* write to fd (a job's descriptor) in place of -o */
	int fd;
	bool scratch;            /* a file of the job's own (a rank's sorted share), not the
	                            user's output: its write errors are a temp file's */
	/* --header: the lines written first, the first input's, read by then; NULL: none */
	struct input_header *header;
};

/* 0 when the output the target names (if any) may be written, else reports why and
 * returns the exit status 2. */
int output_check(const struct output_target *target);

struct output_file;
struct input_header;
/* Opens the output the target names (io/output_file.h); reports a failure by name and
 * returns its negative errno. */
int output_open(const struct output_target *target, struct output_file **file);

#endif
