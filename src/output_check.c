/* The early -o check (see output_check.h): io/ decides, this names the file. */
#include "config.h"
#include "output_check.h"
#include "report.h"
#include "../io/output_file.h"

int output_check(const struct options *options)
{
	int error = output_file_check(options->output);
	if (error) {
		report_file_error(report_output_name(options->output), error);
		return 2;
	}
	return 0;
}
