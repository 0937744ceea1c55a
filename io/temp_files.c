/* SPDX-License-Identifier: MIT */
/* Temp files: created round-robin in the -T directories and kept in a registry that a
 * signal handler can walk without locks or allocation, so an interrupted sort leaves
 * nothing behind. Registry entries are never freed, only reused: the handler may run on
 * any thread at any moment and must never read freed memory. */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>
#include "fault_inject.h"
#include "io_scope.h"
#include "safe_fd.h"
#include "temp_files.h"

enum { ENTRY_FREE, ENTRY_BUSY, ENTRY_LIVE };

struct temp_entry {
	_Atomic(struct temp_entry *) next;
	atomic_int state;
	atomic_bool first; /* an output's twin: removed before the other files */
	atomic_bool directory; /* a directory of files that others make too: emptied, removed */
	_Atomic(const struct io_scope *) scope; /* whose file it is */
	char path[PATH_MAX];
};

static _Atomic(struct temp_entry *) temp_registry;
static const int temp_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
/* Threads between creating a temp file and registering it, and whether a signal is
 * ending the process: the handler (on another thread: the creator blocks the signals)
 * waits for those windows to close, so a file created by a spill thread at that moment
 * is registered, and then removed, before the process dies. */
static atomic_int temp_creating;
static atomic_bool temp_dying;
/* While the output is copied into the file it replaces, a signal waits: the handler notes
 * it and returns, and temp_signals_resume removes the temp files and dies by it, so an
 * interrupted copy never leaves that file half-written. */
static atomic_bool temp_deferring;
static atomic_int temp_deferred_signal;
/* The signal thread's stack: it walks the registry and a directory's names, no more. */
#define TEMP_SIGNAL_STACK ((size_t)256 << 10)

/* A thread that has work to do while a signal is ending the process waits to be ended
 * with it: an error it returned instead would be reported by a process the user has
 * stopped. pause() returns only for a caught signal, and by now ours end the process. */
static void temp_wait_for_the_end(void)
{
	for (;;)
		pause();
}

/* Returns 0; while the process is dying, never returns. */
static int temp_file_creation_begin(void)
{
	atomic_fetch_add(&temp_creating, 1);
	if (atomic_load(&temp_dying)) {
		atomic_fetch_sub(&temp_creating, 1);
		temp_wait_for_the_end();
	}
	return 0;
}

static void temp_file_creation_end(void)
{
	atomic_fetch_sub(&temp_creating, 1);
}

/* From the moment a signal is acted on the process says nothing more, as GNU sort says
 * nothing once its handler runs: what other threads meet while it dies (a run file just
 * removed, a read cut short) is no error of the user's to read. Async-signal-safe. */
static void temp_stderr_silence(void)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null < 0)
		return;
	if (null != STDERR_FILENO) {
		dup2(null, STDERR_FILENO);
		close(null);
	}
}

static void temp_creations_wait(void)
{
	atomic_store(&temp_dying, true);
	temp_stderr_silence();
	struct timespec pause = {0, 1000000};
	for (int i = 0; i < 2000 && atomic_load(&temp_creating) > 0; i++)
		nanosleep(&pause, NULL);
}

/* Notes the signal and tells whether to act on it now: not between temp_signals_defer
 * and temp_signals_resume. Noted before the flag is read: temp_signals_resume clears the flag before it
 * reads the note, so one of the two always acts on the signal. */
static bool temp_signal_noted(int signal_number)
{
	atomic_store(&temp_deferred_signal, signal_number);
	return !atomic_load(&temp_deferring);
}

/* What every path that a signal ends takes before it dies: the temp files go. */
static void temp_files_remove_for_signal(void)
{
	temp_creations_wait();
	temp_files_remove_all();
}

static void temp_files_on_signal(int signal_number)
{
	if (!temp_signal_noted(signal_number))
		return;
	temp_files_remove_for_signal();
	/* SA_RESETHAND restored the default action; the raised signal is delivered when the
	 * handler returns and ends the process the way the signal meant to. */
	raise(signal_number);
}

static void temp_signals_block(sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof temp_signals / sizeof temp_signals[0]; i++)
		sigaddset(&set, temp_signals[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

static void temp_dirs_free(struct io_scope *scope)
{
	for (size_t i = 0; scope->dirs && i < scope->dir_count; i++)
		free(scope->dirs[i]);
	free(scope->dirs);
	scope->dirs = NULL;
	scope->dir_count = 0;
}

void temp_scope_release(struct io_scope *scope)
{
	temp_files_remove_scope(scope);
	temp_dirs_free(scope);
}

static int temp_dirs_set(const char *const *dirs, size_t count)
{
	const char *fallback = getenv("TMPDIR");
	if (!fallback || !*fallback)
		fallback = "/tmp";
	if (count == 0) {
		dirs = &fallback;
		count = 1;
	}
	char **copy = calloc(count, sizeof *copy);
	if (!copy)
		return -ENOMEM;
	for (size_t i = 0; i < count; i++)
		if (!(copy[i] = strdup(dirs[i]))) {
			while (i--)
				free(copy[i]);
			free(copy);
			return -ENOMEM;
		}
	struct io_scope *scope = io_scope_current();
	temp_dirs_free(scope);
	scope->dirs = copy;
	scope->dir_count = count;
	atomic_store(&scope->dir_next, 0);
	return 0;
}

/* exit() while a signal is ending the process (a thread that finished, or failed on a
 * file the handler removed) waits for the signal, so that the process ends as the
 * signal meant and with its status, not with one of its own. */
static void temp_files_at_exit(void)
{
	if (atomic_load(&temp_dying))
		temp_wait_for_the_end();
	temp_files_remove_all();
}

int temp_files_init(const char *const *dirs, size_t count)
{
	return temp_dirs_set(dirs, count);
}

static atomic_bool signals_installed;

void temp_signals_handle(void)
{
	if (atomic_exchange(&signals_installed, true))
		return;
	atexit(temp_files_at_exit);
	for (size_t i = 0; i < sizeof temp_signals / sizeof temp_signals[0]; i++) {
		struct sigaction old, action = { .sa_handler = temp_files_on_signal,
						 .sa_flags = SA_RESETHAND | SA_RESTART };
		sigemptyset(&action.sa_mask);
		/* A signal ignored by whoever started us (nohup) stays ignored, as in GNU sort. */
		if (sigaction(temp_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(temp_signals[i], &action, NULL);
	}
}

bool temp_signals_owned(void)
{
	return atomic_load(&signals_installed);
}

/* Entries are taken and looked up by name under this lock, so that no thread compares a
 * path that another is writing; a signal's removal walks the registry without it. */
static pthread_mutex_t temp_registry_lock = PTHREAD_MUTEX_INITIALIZER;

static int temp_register_locked(const char *path, bool first, bool directory);

static int temp_register_unblocked(const char *path, bool first, bool directory)
{
	if (strlen(path) >= PATH_MAX)
		return -ENAMETOOLONG;
	pthread_mutex_lock(&temp_registry_lock);
	int error = temp_register_locked(path, first, directory);
	pthread_mutex_unlock(&temp_registry_lock);
	return error;
}

static int temp_register_locked(const char *path, bool first, bool directory)
{
	for (struct temp_entry *e = atomic_load(&temp_registry); e; e = atomic_load(&e->next)) {
		int expected = ENTRY_FREE;
		if (atomic_compare_exchange_strong(&e->state, &expected, ENTRY_BUSY)) {
			strcpy(e->path, path);
			atomic_store(&e->first, first);
			atomic_store(&e->directory, directory);
			atomic_store(&e->scope, io_scope_current());
			atomic_store(&e->state, ENTRY_LIVE);
			return 0;
		}
	}
	struct temp_entry *e = calloc(1, sizeof *e);
	if (!e)
		return -ENOMEM;
	strcpy(e->path, path);
	atomic_store(&e->first, first);
	atomic_store(&e->directory, directory);
	atomic_store(&e->scope, io_scope_current());
	atomic_store(&e->state, ENTRY_LIVE);
	struct temp_entry *head = atomic_load(&temp_registry);
	do
		atomic_store(&e->next, head);
	while (!atomic_compare_exchange_weak(&temp_registry, &head, e));
	return 0;
}

int temp_file_register(const char *path)
{
	sigset_t old;
	temp_signals_block(&old);
	int error = temp_register_unblocked(path, false, false);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return error;
}

int temp_dir_register(const char *path)
{
	sigset_t old;
	temp_signals_block(&old);
	int error = temp_register_unblocked(path, false, true);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return error;
}

static int temp_create_registered(char *path, int flags, bool first)
{
	sigset_t old;
	temp_signals_block(&old);
	int error = temp_file_creation_begin();
	int fd = -1;
	if (!error) {
		fd = fd_safer(mkostemp(path, flags));
		error = fd < 0 ? -errno : temp_register_unblocked(path, first, false);
		if (fd >= 0 && error) {
			unlink(path);
			close(fd);
		}
		temp_file_creation_end();
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return error ? error : fd;
}

int temp_file_create_registered(char *path, int flags)
{
	return temp_create_registered(path, flags, false);
}

int temp_output_create_registered(char *path, int flags)
{
	return temp_create_registered(path, flags, true);
}

int temp_file_create(char *path, size_t path_size)
{
	struct io_scope *scope = io_scope_current();
	if (!scope->dirs) {
		int error = temp_dirs_set(NULL, 0);
		if (error)
			return error;
	}
	size_t next = atomic_fetch_add(&scope->dir_next, 1) % scope->dir_count;
	return temp_file_create_in(scope->dirs[next], path, path_size);
}

int temp_file_create_in(const char *dir, char *path, size_t path_size)
{
	int fd = fault_at(FAULT_TEMP_CREATE);
	if (fd >= 0) {
		size_t dir_len = strlen(dir);
		while (dir_len > 1 && dir[dir_len - 1] == '/')
			dir_len--;
		int length = snprintf(path, path_size, "%.*s/gpusort.XXXXXX", (int)dir_len, dir);
		fd = length < 0 || (size_t)length >= path_size ? -ENAMETOOLONG
			: temp_file_create_registered(path, O_CLOEXEC);
		fault_tag(fd, FAULT_TEMP_WRITE);
	}
	/* The message names the directory as the user gave it, which only we know. */
	if (fd < 0 && path_size)
		snprintf(path, path_size, "%s", dir);
	return fd;
}

static struct temp_entry *temp_entry_find(const char *path)
{
	for (struct temp_entry *e = atomic_load(&temp_registry); e; e = atomic_load(&e->next))
		if (atomic_load(&e->state) == ENTRY_LIVE && strcmp(e->path, path) == 0)
			return e;
	return NULL;
}

void temp_file_forget(const char *path)
{
	sigset_t old;
	temp_signals_block(&old);
	pthread_mutex_lock(&temp_registry_lock);
	struct temp_entry *e = temp_entry_find(path);
	int expected = ENTRY_LIVE;
	if (e && atomic_compare_exchange_strong(&e->state, &expected, ENTRY_BUSY)) {
		e->path[0] = '\0';
		atomic_store(&e->state, ENTRY_FREE);
	}
	pthread_mutex_unlock(&temp_registry_lock);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void temp_file_remove(const char *path)
{
	unlink(path);
	temp_file_forget(path);
}

void temp_signals_defer(void)
{
	atomic_store(&temp_deferred_signal, 0);
	atomic_store(&temp_deferring, true);
}

/* Ends the process the way signal_number means to, from any thread: its default
 * action restored (the handler's SA_RESETHAND did that where the handler ran, but not
 * where the signal thread took it) and the signal let through to this thread. */
static void temp_die_by(int signal_number)
{
	struct sigaction action = {.sa_handler = SIG_DFL};
	sigemptyset(&action.sa_mask);
	sigaction(signal_number, &action, NULL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, signal_number);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	raise(signal_number);
}

void temp_signals_resume(void)
{
	atomic_store(&temp_deferring, false);
	int signal_number = atomic_exchange(&temp_deferred_signal, 0);
	if (signal_number) {
		temp_files_remove_for_signal();
		temp_die_by(signal_number);
	}
}

/* The signals the signal thread takes: those of temp_signals not ignored at its start,
 * but SIGPIPE, which a write raises on the writing thread itself. */
static sigset_t temp_thread_signals;

static void *temp_signal_thread(void *unused)
{
	(void)unused;
	for (;;) {
		int signal_number;
		if (sigwait(&temp_thread_signals, &signal_number) != 0)
			continue;
		if (!temp_signal_noted(signal_number))
			continue;
		temp_files_remove_for_signal();
		temp_die_by(signal_number);
	}
	return NULL;
}

int temp_signals_thread_start(void)
{
	temp_signals_handle();
	sigemptyset(&temp_thread_signals);
	for (size_t i = 0; i < sizeof temp_signals / sizeof temp_signals[0]; i++) {
		struct sigaction old;
		if (temp_signals[i] != SIGPIPE && sigaction(temp_signals[i], NULL, &old) == 0 &&
		    old.sa_handler != SIG_IGN)
			sigaddset(&temp_thread_signals, temp_signals[i]);
	}
	sigset_t old;
	pthread_sigmask(SIG_BLOCK, &temp_thread_signals, &old);
	pthread_attr_t attributes;
	pthread_t thread;
	int error = pthread_attr_init(&attributes);
	if (!error) {
		pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&attributes, TEMP_SIGNAL_STACK);
		error = pthread_create(&thread, &attributes, temp_signal_thread, NULL);
		pthread_attr_destroy(&attributes);
	}
	if (error)
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -error;
}

/* Unlinks every file in the directory at path, then the directory; with system calls
 * alone, for the signal handler. A pass over the names may miss some that its own
 * unlinks moved: passes are made until one finds nothing to remove. */
static void temp_dir_empty_remove(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	for (int pass = 0; fd >= 0 && pass < 16; pass++) {
		_Alignas(struct dirent64) char names[4096];
		bool removed = false;
		ssize_t got;
		lseek(fd, 0, SEEK_SET);
		while ((got = getdents64(fd, names, sizeof names)) > 0)
			for (ssize_t at = 0; at < got; at += ((struct dirent64 *)(names + at))->d_reclen) {
				const char *name = ((struct dirent64 *)(names + at))->d_name;
				if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0 && unlinkat(fd, name, 0) == 0)
					removed = true;
			}
		if (!removed)
			break;
	}
	if (fd >= 0)
		close(fd);
	rmdir(path);
}

/* Removes the remembered files of scope (NULL: of all) that are (first) or are not an
 * output's twin, or the remembered directories with what they hold. */
static void temp_files_remove(bool first, bool directory, const struct io_scope *scope)
{
	for (struct temp_entry *e = atomic_load(&temp_registry); e; e = atomic_load(&e->next)) {
		if (atomic_load(&e->first) != first || atomic_load(&e->directory) != directory ||
		    (scope && atomic_load(&e->scope) != scope))
			continue;
		int expected = ENTRY_LIVE;
		if (atomic_compare_exchange_strong(&e->state, &expected, ENTRY_BUSY)) {
			if (directory)
				temp_dir_empty_remove(e->path);
			else
				unlink(e->path);
			atomic_store(&e->state, ENTRY_FREE);
		}
	}
}

static void temp_files_remove_of(const struct io_scope *scope)
{
	int saved_errno = errno;
	/* the outputs' twins first: a process killed outright while it cleans up (an MPI
	 * rank that its launcher stops after a grace period) leaves temp files behind at
	 * worst, never a half-written output beside the user's file */
	temp_files_remove(true, false, scope);
	temp_files_remove(false, false, scope);
	temp_files_remove(false, true, scope);
	errno = saved_errno;
}

void temp_files_remove_all(void)
{
	temp_files_remove_of(NULL);
}

void temp_files_remove_scope(const struct io_scope *scope)
{
	temp_files_remove_of(scope);
}

int temp_file_create_preferring(const char *dir, char *path, size_t path_size)
{
	int fd = dir ? temp_file_create_in(dir, path, path_size) : -ENOENT;
	return fd >= 0 ? fd : temp_file_create(path, path_size);
}

const char *temp_memory_dir(const char *dir, uint64_t bytes)
{
	struct statfs fs;
	if (!dir || !dir[0] || statfs(dir, &fs) != 0 || fs.f_type != TMPFS_MAGIC || access(dir, W_OK | X_OK) != 0)
		return NULL;
	return (uint64_t)fs.f_bavail * (uint64_t)fs.f_bsize >= bytes ? dir : NULL;
}
