/* SPDX-License-Identifier: MIT */
/* gpusort's command line (src/cli/options.c): argv parsed with getopt_long, GNU sort's
 * options and gpusort's own, into a job for libgpusort (include/gpusort.h), the only
 * interface the command uses. Usage errors found while reading argv are reported here;
 * the job's consistency (binary key inside the record, -c with one input, ...) is
 * checked by gpusort_run(), in the same words. */
#ifndef GPUSORT_COMMAND_LINE_H
#define GPUSORT_COMMAND_LINE_H

#include <gpusort.h>

struct command_line {
	struct gpusort_job job;
	/* what job points into: argv's strings, in arrays of our own */
	struct gpusort_input *inputs;
	const char **keys;
	const char **temp_dirs;
	struct gpusort_binary_key *key_fields; /* --key-field, in order */
	const char **owned; /* strings of our own: the KEYDEFs of obsolete +POS1 -POS2 keys */
	size_t owned_count;
};

/* Parses argv into line->job. Returns 0 to run, 1 when --help/--version printed and
 * gpusort should exit 0, or 2 after printing a usage error. command_line_free()
 * releases line in every case. */
int command_line_parse(int argc, char **argv, struct command_line *line);
void command_line_free(struct command_line *line);

/* "Try 'gpusort --help' for more information." on stderr, after a usage error. */
void command_line_usage_hint(void);

#endif
