/* SPDX-License-Identifier: MIT */
/* gnulib's close_stream rule: an earlier failure counts even when the final flush
 * succeeds (stdio drops what it could not write), and only then is errno unknown; a
 * close failing with EBADF is no error when nothing was written (`gpusort ... >&-`
 * with its output in -o). main's stand-in for a closed stdout (an O_PATH descriptor)
 * closes as the closed descriptor it stands for would: with EBADF. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include <unistd.h>
#include "close_stdout.h"

int close_stdout(void)
{
	int flags = fcntl(STDOUT_FILENO, F_GETFL);
	bool stand_in = flags >= 0 && (flags & O_PATH);
	bool pending = __fpending(stdout) != 0;
	bool failed_before = ferror(stdout) != 0;
	bool close_failed = fclose(stdout) != 0;
	int why = close_failed ? errno : 0;
	if (stand_in && !close_failed) {
		close_failed = true;
		why = EBADF;
	}
	if (!failed_before && !(close_failed && (pending || why != EBADF)))
		return 0;
	if (why)
		fprintf(stderr, "gpusort: write error: %s\n", strerror(why));
	else
		fputs("gpusort: write error\n", stderr);
	return -1;
}
