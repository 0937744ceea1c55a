/* SPDX-License-Identifier: MIT */
/* The job's own directories: one in each -T directory and one in the memory file system,
 * named alike on every rank, holding every rank's temp files. Each rank registers all of
 * them (io/temp_files.h's temp_dir_register) before any rank makes a file, so that when
 * a rank is killed outright (SIGKILL, which nothing can catch) the ranks that mpirun then
 * stops with SIGTERM remove what it had made too. */
#ifndef GPUSORT_JOB_DIRS_H
#define GPUSORT_JOB_DIRS_H

#include <stdbool.h>
#include <stddef.h>
#include "cluster.h"

struct job_dirs {
	const char **temp;  /* per -T directory (or $TMPDIR, /tmp): where its files go */
	size_t temp_count;
	const char *memory; /* the memory file system's (temp_memory_dir), or NULL: none */
	/* the job's directories made or taken, each registered; the rest of temp and memory
	 * are the directories themselves, where no job directory could be made */
	char **made;
	size_t made_count;
};

/* Collective: rank 0's random name for the job, every rank's registration, then the
 * directories made (mode 0700; a rank that finds one made by another rank of the job
 * takes it), and the temp files of this rank sent there (temp_files_init). Where one
 * cannot be made, its files go to the directory itself, as without a job directory.
 * Returns 0 or the agreed error (-ENOMEM), reported. */
int job_dirs_make(const struct cluster *cluster, const char *const *temp_dirs, size_t temp_dir_count,
		  struct job_dirs *dirs);

/* Removes the job's directories that are empty (the last rank to leave one removes it)
 * and forgets them all; for when this rank's files are removed. */
void job_dirs_remove(struct job_dirs *dirs);

#endif
