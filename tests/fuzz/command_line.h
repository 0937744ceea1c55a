/* SPDX-License-Identifier: MIT */
/* For the harnesses: the command line as gpusort reads it since the command became
 * libgpusort's client: argv into a job (src/cli/options.c, command_line.h), the job
 * checked and turned into the pipeline's struct sort_job (src/library/job_options.c),
 * the two steps options_parse once made. */
#ifndef GPUSORT_FUZZ_COMMAND_LINE_H
#define GPUSORT_FUZZ_COMMAND_LINE_H

#include <string.h>
#include "src/cli/command_line.h"
#include "src/library/job_options.h"

struct parsed_command_line {
	struct command_line line;
	struct job_options built; /* built.sort_job: what the pipeline would run */
};

/* 0 with parsed->built.sort_job set, 1 after --help or --version, 2 after a usage error
 * (the command's exit statuses). parsed_command_line_free releases parsed in every case. */
static inline int parse_command_line(int argc, char **argv, struct parsed_command_line *parsed)
{
	memset(&parsed->built, 0, sizeof parsed->built);
	int status = command_line_parse(argc, argv, &parsed->line);
	if (status == 0 && job_options_build(&parsed->line.job, &parsed->built) != GPUSORT_OK)
		status = 2;
	return status;
}

static inline void parsed_command_line_free(struct parsed_command_line *parsed)
{
	job_options_free(&parsed->built);
	command_line_free(&parsed->line);
}

#endif
