/* SPDX-License-Identifier: MIT */
/* The --compress-program children (see compress_program.h): posix_spawnp with the pipe
 * and the temp file as the child's stdin and stdout, and waitpid for its end. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "compress_program.h"
#include "fault_inject.h"
#include "safe_fd.h"

extern char **environ;

/* GNU sort's patience with a system out of processes: PROG tried 4 times before its
 * temp file is written without it, PROG -d 9 times before the sort gives up, a quarter
 * of a second between the first two tries and twice as long before each next one
 * (1.75 s in all for PROG, 64 s for PROG -d). */
#define COMPRESS_START_TRIES 4
#define DECOMPRESS_START_TRIES 9
#define SPAWN_RETRY_FIRST_WAIT 0.25

static pthread_once_t children_once = PTHREAD_ONCE_INIT;

/* A parent that ignored SIGCHLD would have the kernel reap our children, and waitpid
 * could not tell how they ended: the default disposition back (GNU sort does the same). */
static void children_prepare(void)
{
	struct sigaction action;
	if (sigaction(SIGCHLD, NULL, &action) == 0 && action.sa_handler == SIG_IGN) {
		action.sa_handler = SIG_DFL;
		action.sa_flags = 0;
		sigemptyset(&action.sa_mask);
		sigaction(SIGCHLD, &action, NULL);
	}
}

/* Waits the delay between two tries (the whole of it, signals or not), or a
 * millisecond where the tests ask (fault point spawn_wait). */
static void spawn_retry_wait(double seconds)
{
	if (fault_at(FAULT_SPAWN_WAIT) == FAULT_SHORT)
		seconds = 0.001;
	struct timespec left = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
	while (nanosleep(&left, &left) != 0 && errno == EINTR)
		;
}

/* posix_spawnp, tried again while the system has no process left for it (EAGAIN: a
 * full process table, RLIMIT_NPROC), as GNU sort's pipe_fork tries fork. Returns 0 or
 * a positive errno. */
static int compress_child_spawn(pid_t *pid, const char *program, bool decompress,
				const posix_spawn_file_actions_t *actions, const posix_spawnattr_t *attributes,
				char *const argv[])
{
	unsigned tries = decompress ? DECOMPRESS_START_TRIES : COMPRESS_START_TRIES;
	double wait = SPAWN_RETRY_FIRST_WAIT;
	for (unsigned try = 1;; try++) {
		int fault = fault_at(decompress ? FAULT_DECOMPRESS_START : FAULT_COMPRESS_START);
		int error = fault < 0 ? -fault : posix_spawnp(pid, program, actions, attributes, argv, environ);
		if (error != EAGAIN || try == tries)
			return error;
		spawn_retry_wait(wait);
		wait *= 2;
	}
}

int compress_child_start(const char *program, bool decompress, int file_fd, struct compress_child *child)
{
	pthread_once(&children_once, children_prepare);
	child->pid = 0;
	child->pipe_fd = -1;
	int ends[2];
	if (pipe_safer(ends, O_CLOEXEC) != 0)
		return -errno;
	/* compressing: we write ends[1], the child reads ends[0]; decompressing the reverse */
	int ours = decompress ? ends[0] : ends[1], theirs = decompress ? ends[1] : ends[0];
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attributes;
	int error = posix_spawn_file_actions_init(&actions);
	if (error) {
		close(ends[0]);
		close(ends[1]);
		return -error;
	}
	error = posix_spawnattr_init(&attributes);
	if (!error)
		error = posix_spawn_file_actions_adddup2(&actions, decompress ? file_fd : theirs, STDIN_FILENO);
	if (!error)
		error = posix_spawn_file_actions_adddup2(&actions, decompress ? theirs : file_fd, STDOUT_FILENO);
	/* the child starts with no signal blocked (a spill thread may hold some off), and
	 * with SIGPIPE at its default even where ours is ignored: a decompressor whose
	 * reader is gone ends */
	sigset_t none, pipe_signal;
	sigemptyset(&none);
	sigemptyset(&pipe_signal);
	sigaddset(&pipe_signal, SIGPIPE);
	if (!error)
		error = posix_spawnattr_setsigmask(&attributes, &none);
	if (!error)
		error = posix_spawnattr_setsigdefault(&attributes, &pipe_signal);
	if (!error)
		error = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	pid_t pid = 0;
	char *const argv[] = {(char *)program, decompress ? "-d" : NULL, NULL};
	if (!error)
		error = compress_child_spawn(&pid, program, decompress, &actions, &attributes, argv);
	posix_spawn_file_actions_destroy(&actions);
	posix_spawnattr_destroy(&attributes);
	close(theirs);
	if (error) {
		close(ours);
		return -error;
	}
	child->pid = pid;
	child->pipe_fd = ours;
	return 0;
}

int compress_child_finish(struct compress_child *child)
{
	if (child->pipe_fd >= 0) {
		close(child->pipe_fd);
		child->pipe_fd = -1;
	}
	if (child->pid <= 0)
		return 0;
	int status;
	pid_t got;
	while ((got = waitpid(child->pid, &status, 0)) < 0 && errno == EINTR)
		;
	child->pid = 0;
	if (got < 0)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : COMPRESS_CHILD_FAILED;
}

int compress_child_drain(struct compress_child *child, uint64_t most)
{
	char buffer[16384];
	uint64_t drained = 0;
	while (child->pipe_fd >= 0) {
		ssize_t got = read(child->pipe_fd, buffer, sizeof buffer);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			return 0;
		drained += (uint64_t)got;
		if (drained > most)
			return -EFBIG;
	}
	return 0;
}
