/* SPDX-License-Identifier: MIT */
/* Copies owner, group, extended attributes and mode from one open file to another (see
 * file_attributes.h), in the order the kernel needs: chown clears the set-user-ID and
 * set-group-ID bits and file capabilities, and writing an ACL rewrites the group bits of
 * the mode, so the owner goes first, the attributes next and the mode last. */
#include "config.h"
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "file_attributes.h"

/* The names of fd's extended attributes, each ending in NUL, in *names (malloc'd; NULL
 * when there are none) and their total length in *length. */
static int xattr_names(int fd, char **names, ssize_t *length)
{
	*names = NULL;
	*length = 0;
	for (;;) {
		ssize_t want = flistxattr(fd, NULL, 0);
		if (want < 0)
			/* a file system without extended attributes has none to lose */
			return errno == ENOTSUP ? 0 : -errno;
		if (want == 0)
			return 0;
		char *list = malloc((size_t)want);
		if (!list)
			return -ENOMEM;
		ssize_t got = flistxattr(fd, list, (size_t)want);
		if (got >= 0) {
			*names = list;
			*length = got;
			return 0;
		}
		free(list);
		if (errno != ERANGE) /* ERANGE: the list grew meanwhile; ask again */
			return -errno;
	}
}

static bool xattr_listed(const char *names, ssize_t length, const char *name)
{
	for (const char *at = names; at < names + length; at += strlen(at) + 1)
		if (strcmp(at, name) == 0)
			return true;
	return false;
}

static int xattr_copy_one(int from_fd, int to_fd, const char *name)
{
	for (;;) {
		ssize_t want = fgetxattr(from_fd, name, NULL, 0);
		if (want < 0)
			return -errno;
		void *value = malloc(want ? (size_t)want : 1);
		if (!value)
			return -ENOMEM;
		ssize_t got = fgetxattr(from_fd, name, value, (size_t)want);
		int error = got < 0 ? -errno : 0;
		if (!error && fsetxattr(to_fd, name, value, (size_t)got, 0) != 0)
			error = -errno;
		free(value);
		if (error != -ERANGE)
			return error;
	}
}

/* to_fd ends with exactly from_fd's extended attributes. */
static int xattrs_copy(int from_fd, int to_fd)
{
	char *from_names, *to_names;
	ssize_t from_length, to_length;
	int error = xattr_names(from_fd, &from_names, &from_length);
	if (error)
		return error;
	error = xattr_names(to_fd, &to_names, &to_length);
	for (const char *at = to_names; !error && at < to_names + to_length; at += strlen(at) + 1)
		if (!xattr_listed(from_names, from_length, at) && fremovexattr(to_fd, at) != 0)
			error = -errno;
	for (const char *at = from_names; !error && at < from_names + from_length;
	     at += strlen(at) + 1)
		error = xattr_copy_one(from_fd, to_fd, at);
	free(from_names);
	free(to_names);
	return error;
}

int file_attributes_copy(int from_fd, int to_fd)
{
	struct stat from, to;
	if (fstat(from_fd, &from) != 0 || fstat(to_fd, &to) != 0)
		return -errno;
	if ((to.st_uid != from.st_uid || to.st_gid != from.st_gid) &&
	    fchown(to_fd, from.st_uid, from.st_gid) != 0)
		return -errno;
	int error = xattrs_copy(from_fd, to_fd);
	if (error)
		return error;
	if (fchmod(to_fd, from.st_mode & 07777) != 0)
		return -errno;
	/* fchmod drops the set-group-ID bit silently for a group we are not in. */
	if (fstat(to_fd, &to) != 0)
		return -errno;
	if (to.st_uid != from.st_uid || to.st_gid != from.st_gid ||
	    (to.st_mode & 07777) != (from.st_mode & 07777))
		return -EPERM;
	return 0;
}
