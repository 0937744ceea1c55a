/* gpusort's entry point: parse the command line, run text or binary mode, and turn the
 * outcome into GNU sort's exit status (0 done, 1 disorder under -c/-C, 2 trouble). */
#include "config.h"
#include <stdio.h>
#include "binary_sort.h"
#include "close_stdout.h"
#include "options.h"
#include "text_sort.h"
#include "../io/temp_files.h"

int main(int argc, char **argv)
{
	struct options options;
	int status = options_parse(argc, argv, &options);
	if (status == 1)
		status = 0;
	else if (status == 0)
		status = options.mode == MODE_BINARY ? binary_sort_run(&options) : text_sort_run(&options);
	temp_files_remove_all();
	if (close_stdout() != 0)
		status = 2;
	options_free(&options);
	return status;
}
