/* SPDX-License-Identifier: MIT */
/* The end of what went through stdio to standard output (--help, --version), checked as
 * GNU's close_stdout checks it, so that a full disk or a closed stdout is reported. */
#ifndef GPUSORT_CLOSE_STDOUT_H
#define GPUSORT_CLOSE_STDOUT_H

/* Closes stdout. A write that failed before, or a close that fails with output still
 * pending (or for another reason than a stdout that was never open), is reported as
 * "gpusort: write error[: reason]". Returns 0, or -1 after reporting. */
int close_stdout(void);

#endif
