/* Temporary files in the -T directories (round-robin), remembered so that every one is
 * removed on exit and on SIGINT, SIGTERM, SIGHUP and SIGPIPE. */
#ifndef GPUSORT_TEMP_FILES_H
#define GPUSORT_TEMP_FILES_H

#include <stddef.h>

/* dirs may be empty: then $TMPDIR, else /tmp. Installs the signal handlers. */
int temp_files_init(const char *const *dirs, size_t count);
/* Creates and opens a new temp file (O_RDWR) in the next -T directory; path receives
 * its name. Returns an fd, or a negative errno with the directory that refused in path
 * (for "cannot create temporary file in DIR"). */
int temp_file_create(char *path, size_t path_size);
/* mkostemp(path, flags) and registration as one step that no signal can split, on any
 * thread: path is a template ending in XXXXXX. Returns an fd or a negative errno. */
int temp_file_create_registered(char *path, int flags);
/* Registers a path created elsewhere (the output's temp twin) for removal on signals. */
int temp_file_register(const char *path);
void temp_file_forget(const char *path);
/* Unlinks and forgets. */
void temp_file_remove(const char *path);
/* Between these two, SIGINT, SIGTERM, SIGHUP and SIGPIPE wait: a step that must not be
 * cut short (writing the sorted result into the file it replaces) runs to its end, and
 * then a signal that came meanwhile removes the temp files and ends the process. One
 * such step at a time. */
void temp_signals_defer(void);
void temp_signals_resume(void);
/* Removes every remembered file; async-signal-safe. */
void temp_files_remove_all(void);

#endif
