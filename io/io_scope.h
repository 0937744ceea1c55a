/* SPDX-License-Identifier: MIT */
/* A job's own io settings and files, so that jobs of one process may run at once: its
 * -T directories and temp files (temp_files.h) and its read-ahead window
 * (input_file.h). A thread works in the scope it entered, else in the process's, which
 * a command's one job at a time uses. */
#ifndef GPUSORT_IO_SCOPE_H
#define GPUSORT_IO_SCOPE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

struct io_scope {
	/* temp_files.c's: the -T directories, used in turn */
	char **dirs;
	size_t dir_count;
	atomic_size_t dir_next;
	/* input_file.c's: bytes read ahead of a reader; 0: the default window */
	atomic_size_t read_window;
	/* whether the scope's job is to stop: a read that would wait gives up */
	bool (*stopped)(void);
};

/* The calling thread's scope from now on; NULL: the process's. */
void io_scope_enter(struct io_scope *scope);
/* The calling thread's scope, never NULL. */
struct io_scope *io_scope_current(void);

#endif
