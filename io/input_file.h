/* SPDX-License-Identifier: MIT */
/* Sequential reading of an input file or stdin in large blocks, with reads kept in
 * flight ahead of the consumer (io_uring; pread or read where io_uring is unavailable).
 * Functions return 0 or a byte count, or a negative errno. */
#ifndef GPUSORT_INPUT_FILE_H
#define GPUSORT_INPUT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct input_file;

/* The read-ahead window (bytes kept in flight per input being read) for inputs whose
 * first read comes after this call (the buffers are made at the first read); 0 restores
 * the default of 64 MiB. Lets a small memory budget (-S) shrink it; windows below 1 MiB
 * are raised to 1 MiB. Not thread-safe: set it before reading. */
void input_file_set_read_ahead(size_t bytes);
/* "-" is stdin. Fails with -EISDIR for a directory. */
int input_file_open(const char *path, struct input_file **file);
/* A part of a regular file as an input of its own: length bytes from offset (the
 * distributed sort's share of an input). -ESPIPE for anything but a regular file. */
int input_file_open_range(const char *path, off_t offset, off_t length, struct input_file **file);
/* The size of a regular file, or -1 for a pipe, terminal or socket. */
off_t input_file_size(const struct input_file *file);
/* Reads up to len bytes; returns fewer only at the end of the input (0 at the end). */
ssize_t input_file_read(struct input_file *file, void *buffer, size_t len);
/* Reads up to bytes now and keeps them for the next reads, which return them first:
 * how much an input of unknown size holds, learned before the sort is planned. Returns
 * the bytes held (fewer than asked only when the input ended; those already held when
 * some are) or a negative errno. */
ssize_t input_file_read_ahead(struct input_file *file, size_t bytes);
/* Puts len bytes back in front of what the next reads return, as if not read yet: the
 * part of a read past what its caller took (a header's last line). 0 or -ENOMEM. */
int input_file_unread(struct input_file *file, const void *bytes, size_t len);
/* Whether the input's end has been read: all it holds is in what was read or read ahead. */
bool input_file_ended(const struct input_file *file);
/* The device and inode, to tell whether -o names this input. */
bool input_file_same(const struct input_file *file, const char *path);
void input_file_close(struct input_file *file);
/* 0 when path ("-" aside) may be opened for reading, else a negative errno: the check of
 * an input that is not opened yet. */
int input_file_check(const char *path);
/* How many more descriptors this process may open now (counted up to most). */
size_t input_file_descriptors_free(size_t most);

#endif
