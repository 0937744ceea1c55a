/* SPDX-License-Identifier: MIT */
/* What --help (help.c) and --version (version.c) print on standard output, laid out as
 * GNU sort's: within 79 columns, an option's words from column 30. */
#ifndef GPUSORT_CLI_HELP_H
#define GPUSORT_CLI_HELP_H

void help_print(void);
void version_print(void);

#endif
