/* SPDX-License-Identifier: MIT */
/* The job's own directories (see job_dirs.h): named by rank 0's random word, registered
 * by every rank for removal on signals before any is made, then made by whichever rank
 * comes first. */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "job_dirs.h"
#include "../common/environment.h"
#include "../common/report.h"
#include "../../io/random_source.h"
#include "../../io/temp_files.h"

#define JOB_WORD_LENGTH 12

/* Rank 0's word, drawn from the kernel, on every rank: the name no other job has. */
static int job_word(const struct cluster *cluster, char word[JOB_WORD_LENGTH + 1])
{
	static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char bytes[JOB_WORD_LENGTH];
	bool open_failed;
	int error = 0;
	memset(word, 0, JOB_WORD_LENGTH + 1);
	if (cluster->rank == 0) {
		error = random_source_read(NULL, bytes, sizeof bytes, &open_failed);
		if (error)
			report_errno(error);
		for (size_t i = 0; !error && i < sizeof bytes; i++)
			word[i] = letters[bytes[i] % (sizeof letters - 1)];
	}
	if ((error = cluster_agree(cluster, error)) == 0)
		error = cluster_broadcast(cluster, word, JOB_WORD_LENGTH + 1, 0);
	return error;
}

/* The job's directory in dir, registered (NULL where the name does not fit or there is
 * no memory for it: the files then go to dir itself). */
static char *job_dir_register(const char *dir, const char *word, int *error)
{
	size_t length = strlen(dir);
	while (length > 1 && dir[length - 1] == '/')
		length--;
	char *path = NULL;
	if (asprintf(&path, "%.*s/gpusort-job.%s", (int)length, dir, word) < 0) {
		*error = -ENOMEM;
		return NULL;
	}
	int registered = strlen(path) < PATH_MAX ? temp_dir_register(path) : -ENAMETOOLONG;
	if (registered != 0) {
		if (registered == -ENOMEM)
			*error = registered;
		free(path);
		return NULL;
	}
	return path;
}

/* Makes the registered directory, or takes it where another rank of the job made it
 * (a directory of ours, not a link); else forgets it. */
static bool job_dir_create(const char *path)
{
	struct stat st;
	if (mkdir(path, 0700) == 0 ||
	    (errno == EEXIST && lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid()))
		return true;
	temp_file_forget(path);
	return false;
}

int job_dirs_make(const struct cluster *cluster, const char *const *temp_dirs, size_t temp_dir_count,
		  struct job_dirs *dirs)
{
	memset(dirs, 0, sizeof *dirs);
	const char *fallback = getenv("TMPDIR");
	if (!fallback || !*fallback)
		fallback = "/tmp";
	if (temp_dir_count == 0) {
		temp_dirs = &fallback;
		temp_dir_count = 1;
	}
	const char *memory = temp_memory_dir(environment_string(ENVIRONMENT_MEMORY_DIR), 0);
	char word[JOB_WORD_LENGTH + 1];
	int error = job_word(cluster, word);
	if (error)
		return error;
	size_t count = temp_dir_count + (memory != NULL);
	dirs->temp = calloc(temp_dir_count, sizeof *dirs->temp);
	dirs->made = calloc(count, sizeof *dirs->made);
	error = dirs->temp && dirs->made ? 0 : -ENOMEM;
	dirs->made_count = dirs->made ? count : 0;
	/* every name registered by every rank before the first directory is made */
	char **names = dirs->made;
	for (size_t i = 0; !error && i < count; i++)
		names[i] = job_dir_register(i < temp_dir_count ? temp_dirs[i] : memory, word, &error);
	if (error)
		report_errno(error);
	if ((error = cluster_agree(cluster, error)) != 0) {
		job_dirs_remove(dirs);
		return error;
	}
	for (size_t i = 0; i < count; i++) {
		const char *base = i < temp_dir_count ? temp_dirs[i] : memory;
		bool made = names[i] && job_dir_create(names[i]);
		if (!made) {
			free(names[i]);
			names[i] = NULL;
		}
		if (i < temp_dir_count)
			dirs->temp[i] = made ? names[i] : base;
		else
			dirs->memory = made ? names[i] : base;
	}
	dirs->temp_count = temp_dir_count;
	if ((error = temp_files_init(dirs->temp, dirs->temp_count)) != 0)
		report_error(error, "temporary directory: %s", strerror(-error));
	if ((error = cluster_agree(cluster, error)) != 0)
		job_dirs_remove(dirs);
	return error;
}

void job_dirs_remove(struct job_dirs *dirs)
{
	for (size_t i = 0; dirs->made && i < dirs->made_count; i++) {
		if (!dirs->made[i])
			continue;
		rmdir(dirs->made[i]); /* fails while another rank's files are in it: that rank's */
		temp_file_forget(dirs->made[i]);
		free(dirs->made[i]);
	}
	free(dirs->made);
	free(dirs->temp);
	memset(dirs, 0, sizeof *dirs);
}
