/* Text mode: sorting, merging (-m) or checking (-c/-C) lines as GNU sort, in the locale. */
#ifndef GPUSORT_TEXT_SORT_H
#define GPUSORT_TEXT_SORT_H

#include "sort_job.h"

/* Returns the exit status: 0, 1 (disorder under -c/-C) or 2 (trouble, reported). */
int text_sort_run(const struct sort_job *options);

/* -R's salt (TEXT_RANDOM_SALT_BYTES bytes, text/text_random.h) as the options say:
 * --random-source's first bytes, or the kernel's; GNU sort's words when that fails.
 * Returns 0 or the exit status 2. */
int text_sort_read_salt(const struct sort_job *options, unsigned char *salt);

#endif
