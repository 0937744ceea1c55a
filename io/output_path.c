/* SPDX-License-Identifier: MIT */
/* Following -o's name (see output_path.h) one symbolic link at a time, up to the
 * kernel's 40: readlink, and a relative target joined to the link's directory. A name in
 * a descriptor directory of /proc (where /dev/fd, /dev/stdout and /proc/self/fd lead)
 * is no ordinary link: the walk stops at the descriptor it stands for. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "output_path.h"

#define LINKS_MOST 40 /* the kernel's MAXSYMLINKS */

/* path's directory (malloc'd): "." for a bare name, "/" for "/name". */
static char *directory_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return strdup(".");
	return slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
}

/* 0 when path's directory is one, where a new file could be made: else stat's error, or
 * -ENOTDIR. */
static int directory_exists(const char *path)
{
	char *dir = directory_of(path);
	if (!dir)
		return -ENOMEM;
	struct stat st;
	int error = stat(dir, &st) != 0 ? -errno : S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	free(dir);
	return error;
}

/* "NAME/": open(O_CREAT) refuses it once its directory resolves, whatever NAME is. */
static int trailing_slash_error(const char *name)
{
	char *bare = strdup(name);
	if (!bare)
		return -ENOMEM;
	size_t len = strlen(bare);
	while (len > 0 && bare[len - 1] == '/')
		bare[--len] = '\0';
	int error = len == 0 ? 0 : directory_exists(bare);
	free(bare);
	return error ? error : -EISDIR;
}

/* Whether dir (resolved) is a process's descriptor directory, /proc/PID/fd or
 * /proc/PID/task/TID/fd; *own: this process's (/proc/self's PID). */
static bool descriptor_directory(const char *dir, bool *own)
{
	if (strncmp(dir, "/proc/", 6) != 0)
		return false;
	const char *pid = dir + 6, *end = pid + strspn(pid, "0123456789");
	if (end == pid)
		return false;
	if (strncmp(end, "/task/", 6) == 0) {
		const char *tid = end + 6;
		end = tid + strspn(tid, "0123456789");
		if (end == tid)
			return false;
	}
	if (strcmp(end, "/fd") != 0)
		return false;
	char self[32];
	ssize_t got = readlink("/proc/self", self, sizeof self - 1);
	self[got > 0 ? got : 0] = '\0';
	*own = got > 0 && strspn(pid, "0123456789") == (size_t)got && strncmp(pid, self, (size_t)got) == 0;
	return true;
}

/* The number N when path names an entry N of a descriptor directory, else -1. */
static int descriptor_number(const char *path, bool *own)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t digits = strspn(base, "0123456789");
	if (digits == 0 || digits > 9 || base[digits])
		return -1;
	char *dir = directory_of(path);
	char *real = dir ? realpath(dir, NULL) : NULL;
	bool found = real && descriptor_directory(real, own);
	free(dir);
	free(real);
	return found ? atoi(base) : -1;
}

/* A descriptor's entry: our own, open for writing, is the output, in place; closed (or
 * the command's stand-in for a closed one) it is a name that is not there. Another
 * process's, or ours only for reading, is what open(2) gives again through it: the file
 * its link text names (*next) where that is the same file, else the entry itself. */
static int descriptor_step(const char *path, int number, bool own, struct output_path *resolved,
			   char **next)
{
	if (own) {
		int flags = fcntl(number, F_GETFL);
		if (flags < 0 || (flags & O_PATH))
			return -ENOENT;
		if ((flags & O_ACCMODE) != O_RDONLY) {
			resolved->descriptor = number;
			return 0;
		}
	}
	struct stat by_link, by_text;
	if (stat(path, &by_link) != 0)
		return -errno;
	if (S_ISDIR(by_link.st_mode))
		return -EISDIR;
	char text[PATH_MAX];
	ssize_t got = readlink(path, text, sizeof text - 1);
	text[got > 0 ? got : 0] = '\0';
	if (text[0] == '/' && stat(text, &by_text) == 0 && by_text.st_dev == by_link.st_dev &&
	    by_text.st_ino == by_link.st_ino)
		return (*next = strdup(text)) ? 0 : -ENOMEM;
	resolved->exists = true;
	return 0;
}

/* A symbolic link's target, relative ones from the link's directory, in *next. */
static int link_step(const char *path, char **next)
{
	char text[PATH_MAX];
	ssize_t got = readlink(path, text, sizeof text);
	if (got < 0)
		return -errno;
	if (got == sizeof text)
		return -ENAMETOOLONG;
	text[got] = '\0';
	if (text[0] == '/')
		return (*next = strdup(text)) ? 0 : -ENOMEM;
	char *dir = directory_of(path);
	int made = dir ? asprintf(next, "%s/%s", dir, text) : -1;
	free(dir);
	if (made < 0) {
		*next = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* One step from path: its end (a file, there or to be made, or a descriptor), or the
 * next name in *next. */
static int output_path_step(const char *path, struct output_path *resolved, char **next)
{
	bool own = false;
	int number = descriptor_number(path, &own);
	if (number >= 0)
		return descriptor_step(path, number, own, resolved, next);
	struct stat st;
	if (lstat(path, &st) != 0)
		return errno == ENOENT ? directory_exists(path) : -errno;
	if (S_ISLNK(st.st_mode))
		return link_step(path, next);
	resolved->exists = true;
	return S_ISDIR(st.st_mode) ? -EISDIR : 0;
}

int output_path_resolve(const char *name, struct output_path *resolved)
{
	*resolved = (struct output_path){NULL, false, -1};
	if (!*name)
		return -ENOENT;
	if (name[strlen(name) - 1] == '/')
		return trailing_slash_error(name);
	char *path = strdup(name);
	if (!path)
		return -ENOMEM;
	int error = 0;
	for (int links = 0;; links++) {
		char *next = NULL;
		error = output_path_step(path, resolved, &next);
		if (error || !next)
			break;
		free(path);
		path = next;
		if (links == LINKS_MOST) {
			error = -ELOOP;
			break;
		}
	}
	if (!error && resolved->descriptor < 0) {
		resolved->path = path;
		path = NULL;
	}
	free(path);
	return error;
}

int path_own_descriptor(const char *name, bool *closed)
{
	*closed = false;
	char *path = strdup(name);
	int found = -1;
	for (int links = 0; path && links <= LINKS_MOST; links++) {
		bool own = false;
		int number = descriptor_number(path, &own);
		struct stat st;
		char *next = NULL;
		if (number >= 0 && own) {
			int flags = fcntl(number, F_GETFL);
			*closed = flags < 0 || (flags & O_PATH); /* the command's stand-in for a closed one */
			found = *closed ? -1 : number;
		}
		else if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && link_step(path, &next) == 0) {
			free(path);
			path = next;
			continue;
		}
		break;
	}
	free(path);
	return found;
}

void output_path_free(struct output_path *resolved)
{
	free(resolved->path);
	resolved->path = NULL;
}
