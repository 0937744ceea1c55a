/* SPDX-License-Identifier: MIT */
/* The early -o check (see output_check.h): io/ decides, this names the file. */
#include "config.h"
#include "output_check.h"
#include "../common/report.h"
#include "../../io/output_file.h"

int output_check(const struct output_target *target)
{
	if (target->to_fd)
		return 0; /* a descriptor the caller opened: writable or not, it is theirs */
	int error = output_file_check(target->name);
	if (error) {
		report_file_failure("open failed", report_output_name(target->name), error);
		return 2;
	}
	return 0;
}

int output_open(const struct output_target *target, struct output_file **file)
{
	int error = target->to_fd ? output_file_open_fd(target->fd, file) : output_file_open(target->name, file);
	if (error)
		report_file_failure("open failed", report_output_name(target->name), error);
	return error;
}
