/* SPDX-License-Identifier: MIT */
/* What the harnesses that run the command's parser share: gpusort's own messages (usage
 * errors, --help) go to /dev/null, the harness's checks and libFuzzer's to the real
 * stderr; a failed check is a crash, which libFuzzer reports with its input. */
#ifndef GPUSORT_FUZZ_QUIET_HARNESS_H
#define GPUSORT_FUZZ_QUIET_HARNESS_H

#include <stdio.h>
#include <stdlib.h>

static FILE *harness_stderr;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	harness_stderr = stderr;
	FILE *null = fopen("/dev/null", "w");
	if (null)
		stdout = stderr = null;
	return 0;
}

#define require(condition) \
	do { \
		if (!(condition)) { \
			fprintf(harness_stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #condition); \
			abort(); \
		} \
	} while (0)

#endif
