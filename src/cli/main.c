/* gpusort's entry point: the command line read into a libgpusort job, the job run, and
 * its result turned into GNU sort's exit status (0 done, 1 disorder under -c/-C,
 * 2 trouble). */
#include "config.h"
#include <locale.h>
#include <stdio.h>
#include <gpusort.h>
#include "close_stdout.h"
#include "command_line.h"

int main(int argc, char **argv)
{
	/* LC_ALL, LC_COLLATE, LANG choose the text order (and LC_NUMERIC -g's numbers), as
	 * for GNU sort; a locale that is not installed leaves the C locale. */
	setlocale(LC_ALL, "");
	struct command_line line;
	int status = command_line_parse(argc, argv, &line);
	if (status == 1) {
		status = 0;
	} else if (status == 0) {
		int code = gpusort_run(&line.job);
		/* gpusort_run has said what is wrong; the pointer to --help is the command's */
		if (code == GPUSORT_ERROR_USAGE || code == GPUSORT_ERROR_KEYDEF)
			command_line_usage_hint();
		status = code == GPUSORT_OK ? 0 : code == GPUSORT_DISORDER ? 1 : 2;
	}
	if (close_stdout() != 0)
		status = 2;
	command_line_free(&line);
	return status;
}
