/* SPDX-License-Identifier: MIT */
/* Temporary files in the -T directories (round-robin), remembered so that every one is
 * removed: by the job at its end, and where the command asks (temp_signals_handle) at
 * exit and on SIGINT, SIGTERM, SIGHUP and SIGPIPE. */
#ifndef GPUSORT_TEMP_FILES_H
#define GPUSORT_TEMP_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The temp files of a job are its io scope's (io_scope.h): its end removes them
 * (temp_files_remove_scope) and no other job's. */
struct io_scope;
/* Removes the scope's files and forgets its directories; the scope may be used again. */
void temp_scope_release(struct io_scope *scope);

/* The current scope's -T directories; dirs may be empty: then $TMPDIR, else /tmp.
 * Touches no signal: see temp_signals_handle. */
int temp_files_init(const char *const *dirs, size_t count);
/* Creates and opens a new temp file (O_RDWR) in the next -T directory; path receives
 * its name. Returns an fd, or a negative errno with the directory that refused in path
 * (for "cannot create temporary file in DIR"). */
int temp_file_create(char *path, size_t path_size);
/* The same in dir, which need not be a -T directory. */
int temp_file_create_in(const char *dir, char *path, size_t path_size);
/* In dir when it is given and the file can be made there, else in the next -T
 * directory (temp_file_create). */
int temp_file_create_preferring(const char *dir, char *path, size_t path_size);
/* dir where it is a memory file system (tmpfs: the caller's, GPUSORT_MEMORY_DIR; NULL or
 * "" for none) that this process may write and that has bytes free, else NULL. For files that hold what is in
 * memory anyway: there they skip the disk's write-back, which all writers share. */
const char *temp_memory_dir(const char *dir, uint64_t bytes);
/* mkostemp(path, flags) and registration as one step that no signal can split, on any
 * thread: path is a template ending in XXXXXX. Returns an fd or a negative errno. */
int temp_file_create_registered(char *path, int flags);
/* The same for an output's temp twin, which temp_files_remove_all removes before any
 * other file. */
int temp_output_create_registered(char *path, int flags);
/* Registers a path created elsewhere for removal on signals. */
int temp_file_register(const char *path);
/* Registers a directory (made or not yet) whose files other processes make too (the
 * ranks of one distributed sort): temp_files_remove_all empties and removes it, after
 * the files, so that what a rank killed outright made goes with the others. */
int temp_dir_register(const char *path);
/* Forgets a file or directory registered (a directory's files are left). */
void temp_file_forget(const char *path);
/* Unlinks and forgets. */
void temp_file_remove(const char *path);
/* Between these two, SIGINT, SIGTERM, SIGHUP and SIGPIPE wait: a step that must not be
 * cut short (writing the sorted result into the file it replaces) runs to its end, and
 * then a signal that came meanwhile removes the temp files and ends the process. One
 * such step at a time. */
void temp_signals_defer(void);
void temp_signals_resume(void);
/* For a command, once: handlers for SIGINT, SIGTERM, SIGHUP and SIGPIPE (those not
 * ignored) that remove the temp files and then end the process as the signal would,
 * and the same removal at exit. A library's caller keeps its signals: without this
 * call, nothing is installed. */
void temp_signals_handle(void);
/* Whether temp_signals_handle was called: the process is a command's, not a library
 * caller's. */
bool temp_signals_owned(void);
/* For a command: temp_signals_handle, and SIGINT, SIGTERM and SIGHUP taken from now on
 * by a thread of their own, which removes the temp files and ends the process by the
 * signal, whatever the other threads are doing; they are blocked in the calling thread
 * and so in every thread it starts after. Call before other threads start (the
 * handlers still act where one did not block them). Returns 0 or a negative
 * errno (no thread: the handlers alone act). */
int temp_signals_thread_start(void);
/* Removes every remembered file, then every remembered directory with its files;
 * async-signal-safe. */
void temp_files_remove_all(void);
/* The same for the files and directories made in scope alone. */
void temp_files_remove_scope(const struct io_scope *scope);

#endif
