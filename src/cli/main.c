/* SPDX-License-Identifier: MIT */
/* gpusort's entry point: the command line read into a libgpusort job, the job run, and
 * its result turned into GNU sort's exit status (0 done, 1 disorder under -c/-C,
 * 2 trouble). */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <malloc.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>
#include <gpusort.h>
#include "close_stdout.h"
#include "command_line.h"

/* A closed standard descriptor gets a stand-in that can be neither read nor written
 * (O_PATH), before anything is opened, so that no file of ours or of a library (CUDA's)
 * becomes stdin, stdout or stderr: the output written into a temp run, a message into
 * the output. The sort takes the stand-in for the closed descriptor it is (EBADF, as
 * GNU sort meets it). Kept across exec, so that a --compress-program child has none
 * of its three free either. */
static void standard_descriptors_hold(void)
{
	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF)
			open("/", O_PATH); /* the lowest free descriptor: this one */
}

/* The job's messages, as GNU sort puts its own: "gpusort: TEXT" lines on stderr. */
static void message_print(void *context, const char *text)
{
	(void)context;
	fprintf(stderr, "gpusort: %s\n", text);
}

int main(int argc, char **argv)
{
	standard_descriptors_hold();
	/* before any thread starts: a signal acts at once, whatever the sort's threads are
	 * in the middle of (a write the page cache holds back) */
	gpusort_signals_thread();
	/* LC_ALL, LC_COLLATE, LANG choose the text order (and LC_NUMERIC -g's numbers), as
	 * for GNU sort; a locale that is not installed leaves the C locale. */
	setlocale(LC_ALL, "");
	/* Under RLIMIT_AS each thread's own malloc arena would take 64 MiB of the address
	 * space the memory budget counts on: one arena, shared, instead. */
	struct rlimit address_space;
	if (getrlimit(RLIMIT_AS, &address_space) == 0 && address_space.rlim_cur != RLIM_INFINITY)
		mallopt(M_ARENA_MAX, 1);
	struct command_line line;
	int status = command_line_parse(argc, argv, &line);
	if (status == 1) {
		status = 0;
	} else if (status == 0) {
		line.job.message = message_print;
		int code = gpusort_run(&line.job);
		/* gpusort_run has said what is wrong; the pointer to --help is the command's */
		if (code == GPUSORT_ERROR_USAGE || code == GPUSORT_ERROR_KEYDEF)
			command_line_usage_hint();
		status = code == GPUSORT_OK ? 0 : code == GPUSORT_DISORDER ? 1 : 2;
	}
	if (close_stdout() != 0)
		status = 2;
	command_line_free(&line);
	return status;
}
