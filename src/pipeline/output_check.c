/* The early -o check (see output_check.h): io/ decides, this names the file. */
#include "config.h"
#include "output_check.h"
#include "../common/report.h"
#include "../../io/output_file.h"

int output_check(const struct sort_job *options)
{
	if (options->output_to_fd)
		return 0; /* a descriptor the caller opened: writable or not, it is theirs */
	int error = output_file_check(options->output);
	if (error) {
		report_file_failure("open failed", report_output_name(options->output), error);
		return 2;
	}
	return 0;
}

int output_open(const struct sort_job *options, struct output_file **file)
{
	int error = options->output_to_fd ? output_file_open_fd(options->output_fd, file)
					    : output_file_open(options->output, file);
	if (error)
		report_file_failure("open failed", report_output_name(options->output), error);
	return error;
}
