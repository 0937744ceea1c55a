/* SPDX-License-Identifier: MIT */
/* Where -o's name leads, followed as open(2) follows it: through symbolic links (chains,
 * a relative target taken from the link's directory) to the file to write, which need
 * not exist yet; or to one of the process's own descriptors (/dev/stdout, /dev/fd/N,
 * /proc/self/fd/N), which is then written in place, never replaced. The errors are
 * open(O_WRONLY | O_CREAT)'s, as GNU sort meets them. Returns 0 or a negative errno. */
#ifndef GPUSORT_OUTPUT_PATH_H
#define GPUSORT_OUTPUT_PATH_H

#include <stdbool.h>

struct output_path {
	char *path;     /* malloc'd: the file to write (no symbolic link), or NULL */
	bool exists;    /* path names a file now (else it is to be created) */
	int descriptor; /* >= 0: the output is this descriptor of ours, path NULL */
};

/* Resolves name (not NULL, not "-"): -ENOENT for "" or a file whose directory is
 * missing (a dangling link into one too) or a closed descriptor, -EISDIR for a
 * directory or a name ending in '/', -ELOOP, -ENOTDIR... as open would say. */
int output_path_resolve(const char *name, struct output_path *resolved);
void output_path_free(struct output_path *resolved);

/* The descriptor of this process's own that name leads to (/dev/stdin, /dev/fd/N,
 * /proc/self/fd/N, or links to one), open now, whatever its mode; else -1, *closed
 * telling whether name leads to one of ours that is closed. */
int path_own_descriptor(const char *name, bool *closed);

#endif
