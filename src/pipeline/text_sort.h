/* SPDX-License-Identifier: MIT */
/* Text mode: sorting, merging (-m) or checking (-c/-C) lines as GNU sort, in the locale. */
#ifndef GPUSORT_TEXT_SORT_H
#define GPUSORT_TEXT_SORT_H

struct sort_job;

/* Runs the job's text sort (the entry's, sort_job.h). Returns the exit status: 0, 1
 * (disorder under -c/-C) or 2 (trouble, reported). */
int text_sort_run(const struct sort_job *job);

/* -R's salt (TEXT_RANDOM_SALT_BYTES bytes, text/text_random.h) as --random-source
 * says: the first bytes of the file it names (random_source), or the kernel's (NULL);
 * GNU sort's words when that fails. Returns 0 or the exit status 2. */
int text_sort_read_salt(const char *random_source, unsigned char *salt);

#endif
