/* SPDX-License-Identifier: MIT */
/* temp_files: files go round-robin over the -T directories with names gpusort.XXXXXX,
 * $TMPDIR is the default, remove/forget/remove_all do what they say, a registered
 * foreign path is removed too; a signal between temp_signals_defer and _resume waits for
 * the resume, then removes the temp files and ends the process. */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "io/temp_files.h"
#include "tests/tap.h"

/* In a child: a temp file in dir, then signal_number (0: none) raised between defer and
 * resume. The child reports on the pipe how far it got: 'd' after the raise (the signal
 * waited), 'r' after the resume (the process lived on). Returns the child's wait status
 * and what it wrote. */
static int deferred_child(const char *dir, int signal_number, char *said, size_t room)
{
	int fds[2];
	if (pipe(fds) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		char path[PATH_MAX];
		temp_files_init(&dir, 1);
		temp_signals_handle(); /* as the command asks for it */
		int fd = temp_file_create(path, sizeof path);
		temp_signals_defer();
		if (signal_number)
			raise(signal_number);
		(void)!write(fds[1], "d", 1);
		temp_signals_resume();
		(void)!write(fds[1], "r", 1);
		close(fd);
		_exit(0); /* without atexit: a temp file that outlives resume stays */
	}
	close(fds[1]);
	ssize_t got = read(fds[0], said, room - 1);
	while (got > 0 && (size_t)got < room - 1) {
		ssize_t more = read(fds[0], said + got, room - 1 - (size_t)got);
		if (more <= 0)
			break;
		got += more;
	}
	said[got > 0 ? got : 0] = '\0';
	close(fds[0]);
	int status = -1;
	waitpid(pid, &status, 0);
	return status;
}

static int entries(const char *dir)
{
	int count = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		count += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return count;
}

int main(void)
{
	char base[] = "/tmp/test_io_temp.XXXXXX";
	if (!mkdtemp(base))
		return 1;
	char dirs[4][300];
	const char *names[3];
	for (int i = 0; i < 4; i++) {
		snprintf(dirs[i], sizeof dirs[i], "%s/d%d%s", base, i, i == 1 ? "/" : "");
		mkdir(dirs[i], 0700);
		if (i < 3)
			names[i] = dirs[i];
	}
	/* $TMPDIR is the default when no -T was given. */
	setenv("TMPDIR", dirs[3], 1);
	char path[PATH_MAX];
	tap_ok(temp_files_init(NULL, 0) == 0, "init without directories");
	int fd = temp_file_create(path, sizeof path);
	tap_ok(fd >= 0 && strncmp(path, dirs[3], strlen(dirs[3])) == 0 && entries(dirs[3]) == 1,
	       "without -T the file goes to $TMPDIR (%s)", path);
	close(fd);

	tap_ok(temp_files_init(names, 3) == 0, "init with three directories");
	char made[6][PATH_MAX];
	bool round_robin = true, named = true;
	for (int i = 0; i < 6; i++) {
		fd = temp_file_create(made[i], sizeof made[i]);
		if (fd < 0)
			return tap_ok(false, "create failed: %d", fd), tap_done();
		if (write(fd, "x", 1) != 1)
			named = false;
		close(fd);
		char prefix[PATH_MAX];
		size_t len = strlen(dirs[i % 3]);
		snprintf(prefix, sizeof prefix, "%.*s/gpusort.", (int)(dirs[i % 3][len - 1] == '/' ? len - 1 : len), dirs[i % 3]);
		round_robin &= strncmp(made[i], prefix, strlen(prefix)) == 0;
		named &= strlen(made[i]) == strlen(prefix) + 6;
	}
	tap_ok(round_robin, "six files go round-robin over three directories");
	tap_ok(named, "names are DIR/gpusort.XXXXXX (%s)", made[1]);
	tap_ok(entries(dirs[0]) == 2 && entries(dirs[1]) == 2 && entries(dirs[2]) == 2,
	       "two files in each directory");

	temp_file_remove(made[0]);
	tap_ok(access(made[0], F_OK) != 0 && entries(dirs[0]) == 1, "temp_file_remove unlinks");
	temp_file_forget(made[1]);
	char foreign[PATH_MAX];
	snprintf(foreign, sizeof foreign, "%s/foreign", dirs[2]);
	close(open(foreign, O_CREAT | O_WRONLY, 0600));
	tap_ok(temp_file_register(foreign) == 0, "a foreign path registers");

	temp_files_remove_all();
	tap_ok(access(made[1], F_OK) == 0, "a forgotten file stays");
	tap_ok(entries(dirs[0]) == 0 && entries(dirs[2]) == 0 && entries(dirs[3]) == 0
	       && entries(dirs[1]) == 1, "remove_all removes every remembered file");
	/* Entries are reused after removal. */
	fd = temp_file_create(made[0], sizeof made[0]);
	tap_ok(fd >= 0 && access(made[0], F_OK) == 0, "create after remove_all works");
	close(fd);
	temp_files_remove_all();
	tap_ok(access(made[0], F_OK) != 0, "and is removed again");

	/* an output's twin among run files: all go, the twin (removed first) included */
	char twin[PATH_MAX];
	snprintf(twin, sizeof twin, "%s/.gpusort-out.XXXXXX", dirs[1]);
	for (int i = 0; i < 3; i++)
		close(temp_file_create(made[i], sizeof made[i]));
	fd = temp_output_create_registered(twin, O_CLOEXEC);
	tap_ok(fd >= 0 && access(twin, F_OK) == 0, "an output's twin is made and registered (%s)", twin);
	close(fd);
	temp_files_remove_all();
	tap_ok(access(twin, F_OK) != 0 && access(made[0], F_OK) != 0 && access(made[1], F_OK) != 0 &&
		       access(made[2], F_OK) != 0,
	       "remove_all removes the twin and the run files");

	char said[8];
	int status = deferred_child(dirs[0], SIGTERM, said, sizeof said);
	tap_ok(strcmp(said, "d") == 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM
	       && entries(dirs[0]) == 0,
	       "SIGTERM while deferred: waits for resume, then removes the temp file and kills "
	       "(said '%s', status %#x)", said, status);
	status = deferred_child(dirs[0], 0, said, sizeof said);
	tap_ok(strcmp(said, "dr") == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0
	       && entries(dirs[0]) == 1, "no signal while deferred: resume returns (said '%s')", said);
	/* A directory that cannot take the file: the error, and the directory as given
	 * (the trailing slash kept) for the caller's message. */
	char missing[PATH_MAX];
	snprintf(missing, sizeof missing, "%s/missing/", base);
	const char *bad[] = {missing};
	tap_ok(temp_files_init(bad, 1) == 0, "init with a missing directory succeeds (GNU fails only on use)");
	fd = temp_file_create(path, sizeof path);
	tap_ok(fd == -ENOENT && strcmp(path, missing) == 0,
	       "creating in it fails with -ENOENT and names it as given (%d, %s)", fd, path);

	unlink(made[1]);
	DIR *d = opendir(dirs[0]);
	for (struct dirent *e; d && (e = readdir(d));) {
		char leftover[PATH_MAX];
		snprintf(leftover, sizeof leftover, "%s/%s", dirs[0], e->d_name);
		if (e->d_name[0] != '.')
			unlink(leftover);
	}
	if (d)
		closedir(d);
	for (int i = 0; i < 4; i++)
		rmdir(dirs[i]);
	rmdir(base);
	return tap_done();
}
