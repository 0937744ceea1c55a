/* SPDX-License-Identifier: MIT */
/* A rank's sorted share, read at any offset (see local_run.h). */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "local_run.h"
#include "../../io/parallel_io.h"

int local_run_open(struct local_run *run, const char *path, const struct record_order *order)
{
	memset(run, 0, sizeof *run);
	snprintf(run->path, sizeof run->path, "%s", path);
	run->order = order;
	run->fd = -1;
	run->fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (run->fd < 0 || fstat(run->fd, &st) != 0) {
		int error = -errno;
		local_run_close(run);
		return error;
	}
	run->size = (uint64_t)st.st_size;
	return 0;
}

int local_run_open_range(struct local_run *run, const char *path, uint64_t base, uint64_t length,
			 const struct record_order *order)
{
	int error = local_run_open(run, path, order);
	if (error)
		return error;
	run->base = base < run->size ? base : run->size;
	run->size -= run->base;
	if (length < run->size)
		run->size = length;
	return 0;
}

void local_run_close(struct local_run *run)
{
	if (run->fd >= 0)
		close(run->fd);
	run->fd = -1;
	free(run->buffer);
	run->buffer = NULL;
	run->capacity = 0;
}

int local_run_read(const struct local_run *run, void *buffer, size_t length, uint64_t offset)
{
	unsigned char *to = buffer;
	while (length) {
		/* in pieces: a signal waits for one call at most */
		size_t want = length < IO_CALL_MAX ? length : IO_CALL_MAX;
		ssize_t got = pread(run->fd, to, want, (off_t)(run->base + offset));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return got < 0 ? -errno : -EIO;
		to += got;
		offset += (uint64_t)got;
		length -= (size_t)got;
	}
	return 0;
}

static int local_run_reserve(struct local_run *run, size_t bytes)
{
	if (bytes <= run->capacity)
		return 0;
	size_t capacity = run->capacity ? run->capacity : 4096;
	while (capacity < bytes)
		capacity *= 2;
	unsigned char *buffer = realloc(run->buffer, capacity);
	if (!buffer)
		return -ENOMEM;
	run->buffer = buffer;
	run->capacity = capacity;
	return 0;
}

/* Lines: the offset of the first terminator at or after from, or run->size. */
static int find_terminator(struct local_run *run, uint64_t from, uint64_t *at)
{
	unsigned char block[16384];
	while (from < run->size) {
		size_t want = run->size - from < sizeof block ? (size_t)(run->size - from) : sizeof block;
		int error = local_run_read(run, block, want, from);
		if (error)
			return error;
		const unsigned char *end = memchr(block, run->order->eol, want);
		if (end) {
			*at = from + (uint64_t)(end - block);
			return 0;
		}
		from += want;
	}
	*at = run->size;
	return 0;
}

int local_run_next_start(struct local_run *run, uint64_t offset, uint64_t *start)
{
	size_t size = run->order->record_size;
	if (offset == 0 || offset >= run->size) {
		*start = offset < run->size ? offset : run->size;
		return 0;
	}
	if (size) {
		uint64_t next = (offset + size - 1) / size * size;
		*start = next < run->size ? next : run->size;
		return 0;
	}
	/* the line holding the byte before offset ends where the next one starts */
	uint64_t end;
	int error = find_terminator(run, offset - 1, &end);
	if (!error)
		*start = end < run->size ? end + 1 : run->size;
	return error;
}

int local_run_record(struct local_run *run, uint64_t start, const unsigned char **record, size_t *len,
		     uint64_t *next)
{
	size_t size = run->order->record_size;
	uint64_t end;
	int error = 0;
	if (size) {
		end = start + size;
	} else if ((error = find_terminator(run, start, &end)) != 0) {
		return error;
	}
	size_t length = (size_t)(end - start);
	if ((error = local_run_reserve(run, length + 1)) != 0 ||
	    (length && (error = local_run_read(run, run->buffer, length, start)) != 0))
		return error;
	*record = run->buffer;
	*len = length;
	*next = size ? end : end + 1;
	return 0;
}
