/* gnulib's close_stream rule: an earlier failure counts even when the final flush
 * succeeds (stdio drops what it could not write), and only then is errno unknown; a
 * close failing with EBADF is no error when nothing was written (`gpusort ... >&-`
 * with its output in -o). */
#include "config.h"
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include "close_stdout.h"

int close_stdout(void)
{
	bool pending = __fpending(stdout) != 0;
	bool failed_before = ferror(stdout) != 0;
	bool close_failed = fclose(stdout) != 0;
	int why = close_failed ? errno : 0;
	if (!failed_before && !(close_failed && (pending || why != EBADF)))
		return 0;
	if (why)
		fprintf(stderr, "gpusort: write error: %s\n", strerror(why));
	else
		fputs("gpusort: write error\n", stderr);
	return -1;
}
