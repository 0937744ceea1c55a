/* SPDX-License-Identifier: MIT */
/* The output: stdout, or a temp twin that becomes the final file on commit. The twin lives
 * beside the final path (registered with temp_files so that signals remove it) and is
 * renamed over it when that loses nothing: a new file, or an existing one with one link
 * whose owner, group, extended attributes and mode the twin could take on. Otherwise
 * (hard links, an owner or attribute we cannot give, a directory we cannot write, where
 * the twin goes to the -T directory) the existing file, opened for writing at the start,
 * gets the twin's bytes copied into it on commit. Writes are copied into the write
 * queue's buffers, so the caller's buffer is free when output_file_write returns. */
#include "config.h"
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
#include <sys/stat.h>
#include <unistd.h>
#include "cache_budget.h"
#include "fault_inject.h"
#include "file_attributes.h"
#include "file_copy.h"
#include "file_map.h"
#include "file_move.h"
#include "output_file.h"
#include "output_path.h"
#include "parallel_io.h"
#include "safe_fd.h"
#include "temp_files.h"
#include "write_queue.h"

#define OUTPUT_DEPTH 4
#define OUTPUT_BLOCK (4u << 20)

struct output_file {
	int fd;
	bool owns_fd;
	char *final_path;     /* NULL: written in place (stdout, a device, a FIFO) */
	char *temp_path;
	/* >= 0: the existing output, open for writing, which commit copies the twin into
	 * instead of renaming the twin over it */
	int original_fd;
	struct write_queue *queue;
	unsigned char *buffer;   /* the queue buffer being filled */
	size_t filled;
	int error;
	/* output_file_map's: the twin allocated to a bound (and mapped, where that pays);
	 * the commit cuts it to the end of what was written, by output_file_write_at
	 * (written_end) or in order (the queue's offset) */
	bool allocated;
	struct file_map map;
	struct file_prefault prefault; /* threads faulting the map's pages in */
	_Atomic uint64_t written_end;
	bool prefixed; /* output_file_write_prefix wrote bytes at the start */
	/* output_file_set_filter's: every write's bytes go through it, via filtered */
	output_filter filter;
	void *filter_context;
	unsigned char *filtered;
};

/* The temp twin in the final file's directory, so that rename is atomic. */
static int output_twin_beside(struct output_file *file)
{
	const char *slash = strrchr(file->final_path, '/');
	int dir_len = slash ? (int)(slash - file->final_path) + 1 : 0;
	if (asprintf(&file->temp_path, "%.*s.gpusort-out.XXXXXX", dir_len, file->final_path) < 0) {
		file->temp_path = NULL;
		return -ENOMEM;
	}
	file->fd = temp_output_create_registered(file->temp_path, O_CLOEXEC);
	if (file->fd < 0) {
		int error = file->fd;
		free(file->temp_path);
		file->temp_path = NULL;
		return error;
	}
	file->owns_fd = true;
	return 0;
}

/* The temp twin in a -T directory (or $TMPDIR), for an output whose own directory does
 * not let us create it; commit then copies, which works across file systems. */
static int output_twin_in_temp_dir(struct output_file *file)
{
	char path[PATH_MAX];
	file->fd = temp_file_create(path, sizeof path);
	if (file->fd < 0)
		return file->fd;
	file->owns_fd = true;
	if (!(file->temp_path = strdup(path))) {
		temp_file_remove(path);
		return -ENOMEM;
	}
	return 0;
}

/* Opens an existing output (final_path, no symbolic link) for writing (it is not changed
 * until commit) and makes the twin; keeps the original open only when a rename would
 * lose one of its properties. */
static int output_twin_create(struct output_file *file)
{
	int fault = fault_at(FAULT_OUTPUT_OPEN);
	if (fault < 0)
		return fault;
	file->original_fd = fd_safer(open(file->final_path, O_WRONLY | O_CLOEXEC | O_NOCTTY));
	if (file->original_fd < 0 && errno != ENOENT)
		return -errno;
	int error = output_twin_beside(file);
	if (file->original_fd < 0) {
		if (error)
			return error;
		/* mkstemp makes 0600; a new output gets what open(O_CREAT, 0666) would give. */
		mode_t mask = umask(0);
		umask(mask);
		fchmod(file->fd, 0666 & ~mask);
		return 0;
	}
	if (error == -EACCES || error == -EPERM || error == -EROFS)
		return output_twin_in_temp_dir(file);
	if (error)
		return error;
	struct stat st;
	if (fstat(file->original_fd, &st) != 0)
		return -errno;
	if (st.st_nlink == 1 && file_attributes_copy(file->original_fd, file->fd) == 0) {
		close(file->original_fd);
		file->original_fd = -1;
	}
	return 0;
}

/* A new file's directory must let us create it. */
static int output_creatable(const char *path)
{
	char *dir = strdup(path);
	if (!dir)
		return -ENOMEM;
	char *slash = strrchr(dir, '/');
	if (slash == dir)
		dir[1] = '\0'; /* "/name": the root directory */
	else if (slash)
		*slash = '\0';
	int error = faccessat(AT_FDCWD, slash ? dir : ".", W_OK | X_OK, AT_EACCESS) == 0 ? 0 : -errno;
	free(dir);
	return error;
}

int output_file_check(const char *path)
{
	if (!path || strcmp(path, "-") == 0)
		return 0;
	struct output_path target;
	int error = output_path_resolve(path, &target);
	if (error || target.descriptor >= 0)
		return error;
	/* AT_EACCESS: the effective IDs decide, as they do for open. */
	if (target.exists)
		error = faccessat(AT_FDCWD, target.path, W_OK, AT_EACCESS) == 0 ? 0 : -errno;
	else
		error = output_creatable(target.path);
	output_path_free(&target);
	return error;
}

/* A descriptor of the caller's (stdout among them), written in place from its offset. */
static int output_open_descriptor(int fd, struct output_file **result)
{
	struct output_file *file = calloc(1, sizeof *file);
	if (!file)
		return -ENOMEM;
	file->original_fd = -1;
	file->fd = fd;
	fault_tag(file->fd, FAULT_OUTPUT_WRITE);
	int error = write_queue_open(file->fd, OUTPUT_DEPTH, OUTPUT_BLOCK, &file->queue);
	if (error) {
		output_file_abort(file);
		return error;
	}
	*result = file;
	return 0;
}

int output_file_open_fd(int fd, struct output_file **file)
{
	return fd < 0 ? -EBADF : output_open_descriptor(fd, file);
}

int output_file_open(const char *path, struct output_file **result)
{
	/* a closed stdout (or the command's stand-in) is -1 here: its writes fail, EBADF */
	if (!path || strcmp(path, "-") == 0)
		return output_open_descriptor(fd_standard(STDOUT_FILENO), result);
	struct output_path target;
	int error = output_path_resolve(path, &target);
	if (error)
		return error;
	if (target.descriptor >= 0) /* /dev/stdout, /dev/fd/N: that descriptor, in place */
		return output_open_descriptor(target.descriptor, result);
	struct output_file *file = calloc(1, sizeof *file);
	if (!file) {
		output_path_free(&target);
		return -ENOMEM;
	}
	file->original_fd = -1;
	file->final_path = target.path;
	struct stat st;
	if (target.exists && stat(file->final_path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* /dev/null, a FIFO, a terminal: nothing to rename, write in place. */
		error = fault_at(FAULT_OUTPUT_OPEN);
		file->fd = error ? -1 : fd_safer(open(file->final_path, O_WRONLY | O_CLOEXEC));
		if (!error && file->fd < 0)
			error = -errno;
		file->owns_fd = file->fd >= 0;
	} else {
		error = output_twin_create(file);
	}
	if (!error) {
		fault_tag(file->fd, FAULT_OUTPUT_WRITE);
		error = write_queue_open(file->fd, OUTPUT_DEPTH, OUTPUT_BLOCK, &file->queue);
	}
	if (error) {
		output_file_abort(file);
		return error;
	}
	*result = file;
	return 0;
}

static int output_submit(struct output_file *file)
{
	int error = write_queue_submit(file->queue, file->filled);
	file->buffer = NULL;
	file->filled = 0;
	return error;
}

/* A large write to the temp twin goes straight from the caller's buffer, on several
 * threads, after the queued writes before it. */
static int output_write_direct(struct output_file *file, const void *data, size_t len)
{
	if (file->filled)
		file->error = output_submit(file);
	if (!file->error)
		file->error = write_queue_flush(file->queue);
	if (file->error)
		return file->error;
	off_t offset = write_queue_offset(file->queue);
	file->error = parallel_pwrite(file->fd, data, len, offset);
	if (!file->error)
		write_queue_skip(file->queue, len);
	return file->error;
}

static int output_write_bytes(struct output_file *file, const void *data, size_t len)
{
	const unsigned char *from = data;
	if (!file->error && len >= PARALLEL_IO_MINIMUM && file->temp_path && file->fd >= 0)
		return output_write_direct(file, data, len);
	while (len && !file->error) {
		if (!file->buffer) {
			void *buffer;
			file->error = write_queue_buffer(file->queue, OUTPUT_BLOCK, &buffer);
			if (file->error)
				break;
			file->buffer = buffer;
		}
		size_t take = OUTPUT_BLOCK - file->filled;
		if (take > len)
			take = len;
		memcpy(file->buffer + file->filled, from, take);
		file->filled += take;
		from += take;
		len -= take;
		if (file->filled == OUTPUT_BLOCK)
			file->error = output_submit(file);
	}
	return file->error;
}

int output_file_write(struct output_file *file, const void *data, size_t len)
{
	if (!file->filter)
		return output_write_bytes(file, data, len);
	if (!file->filtered && !(file->filtered = malloc(OUTPUT_BLOCK)))
		return file->error = -ENOMEM;
	/* pieces the filter leaves as they are go out together, straight from data */
	const unsigned char *from = data, *unchanged = data;
	while (len && !file->error) {
		size_t take = len < OUTPUT_BLOCK ? len : OUTPUT_BLOCK;
		size_t bytes = file->filter(file->filter_context, from, take, file->filtered);
		if (bytes != OUTPUT_FILTER_UNCHANGED) {
			if (from > unchanged)
				output_write_bytes(file, unchanged, (size_t)(from - unchanged));
			output_write_bytes(file, file->filtered, bytes);
			unchanged = from + take;
		}
		from += take;
		len -= take;
	}
	if (from > unchanged && !file->error)
		output_write_bytes(file, unchanged, (size_t)(from - unchanged));
	return file->error;
}

bool output_file_positional(const struct output_file *file)
{
	return file->temp_path != NULL && file->fd >= 0 && !file->prefixed && !file->filter;
}

int output_file_write_prefix(struct output_file *file, const void *data, size_t len)
{
	if (!len)
		return 0;
	file->prefixed = true;
	return output_write_bytes(file, data, len);
}

void output_file_set_filter(struct output_file *file, output_filter filter, void *context)
{
	file->filter = filter;
	file->filter_context = context;
}

const char *output_file_temp_path(const struct output_file *file)
{
	return output_file_positional(file) ? file->temp_path : NULL;
}

int output_file_map(struct output_file *file, uint64_t bytes)
{
	if (!output_file_positional(file) || file->allocated || bytes == 0)
		return 0;
	int error = file_map_range(file->fd, 0, bytes, true, &file->map);
	/* a bare allocation (no mapping) still extends the file: the commit cuts it */
	file->allocated = error == 0;
	return error;
}

uint64_t output_file_mapped_bytes(const struct output_file *file)
{
	return file->map.bytes ? file->map.length : 0;
}

bool output_file_in_memory(const struct output_file *file)
{
	return output_file_positional(file) && file_in_memory(file->fd);
}

void output_file_prefault_start(struct output_file *file)
{
	file_prefault_stop(&file->prefault);
	file_prefault_start(&file->prefault, &file->map, file->map.from, file->map.length);
}

void output_file_prefault_stop(struct output_file *file)
{
	file_prefault_stop(&file->prefault);
}

/* Notes that the bytes up to end are written. */
static void written_to(struct output_file *file, uint64_t end)
{
	uint64_t seen = atomic_load(&file->written_end);
	while (seen < end && !atomic_compare_exchange_weak(&file->written_end, &seen, end))
		;
}

int output_file_write_at(struct output_file *file, const void *data, size_t len, off_t offset)
{
	const unsigned char *from = data;
	if (!output_file_positional(file))
		return -ESPIPE;
	if (file->allocated)
		written_to(file, (uint64_t)offset + len);
	int copied = file_map_copy(&file->map, (uint64_t)offset, from, len);
	if (copied)
		return copied < 0 ? copied : 0;
	while (len) {
		int fault = fault_at(FAULT_OUTPUT_WRITE);
		if (fault < 0)
			return fault;
		size_t want = len < IO_CALL_MAX ? len : IO_CALL_MAX; /* a signal waits for one call */
		if (fault == FAULT_SHORT && want > 1)
			want /= 2;
		ssize_t wrote = pwrite(file->fd, from, want, offset);
		if (wrote < 0 && errno == EINTR)
			continue;
		if (wrote <= 0)
			return wrote < 0 ? -errno : -EIO;
		from += wrote;
		offset += wrote;
		len -= (size_t)wrote;
	}
	return 0;
}

int output_file_write_queue(struct output_file *file, unsigned depth, size_t slot_bytes,
			    struct write_queue **queue)
{
	if (!output_file_positional(file))
		return -ESPIPE;
	return write_queue_open(file->fd, depth, slot_bytes, queue);
}

bool output_file_uncached_wanted(struct output_file *file, uint64_t bytes, int forced)
{
	if (forced == 0 || !output_file_positional(file) || file_in_memory(file->fd) || bytes == 0
	    || (forced != 1 && bytes <= dirty_background_room()))
		return false;
	/* the file's length first: writes past its end would each wait for the device */
	struct stat st;
	if (fstat(file->fd, &st) != 0 || bytes > (uint64_t)INT64_MAX)
		return false;
	return (uint64_t)st.st_size >= bytes || ftruncate(file->fd, (off_t)bytes) == 0;
}

int output_file_move(struct output_file *file, uint64_t from, uint64_t to, uint64_t len, size_t piece)
{
	if (!output_file_positional(file))
		return -EINVAL;
	/* -u's moves come after the last write: the descriptor's transfers are moves now */
	fault_tag(file->fd, FAULT_OUTPUT_MOVE);
	int error = file_move_down(file->fd, from, to, len, piece);
	fault_tag(file->fd, FAULT_OUTPUT_WRITE);
	return error;
}

int output_file_cut(struct output_file *file, uint64_t bytes)
{
	if (bytes > (uint64_t)INT64_MAX)
		return -EFBIG;
	return ftruncate(file->fd, (off_t)bytes) == 0 ? 0 : -errno;
}

void output_file_uncached(struct output_file *file, struct write_queue *queue)
{
	int fd = fd_safer(open(file->temp_path, O_WRONLY | O_DIRECT | O_CLOEXEC));
	if (fd >= 0)
		write_queue_direct(queue, fd); /* it closes fd where it cannot */
}

static void output_file_free(struct output_file *file)
{
	file_prefault_stop(&file->prefault);
	file_map_release(&file->map);
	write_queue_close(file->queue);
	if (file->owns_fd && file->fd >= 0)
		close(file->fd);
	if (file->original_fd >= 0)
		close(file->original_fd);
	free(file->final_path);
	free(file->temp_path);
	free(file->filtered);
	free(file);
}

/* Copies the finished twin into the original, which no other gpusort copies into
 * meanwhile (the lock: one whole output wins, not a mix of two); a signal during the
 * copy waits for its end. */
static int output_copy_into_original(struct output_file *file)
{
	int error = file_copy_lock(file->original_fd);
	if (error)
		return error;
	temp_signals_defer();
	error = file_copy_contents(file->fd, file->original_fd);
	if (close(file->original_fd) != 0 && !error) /* the lock goes with it */
		error = -errno;
	file->original_fd = -1;
	temp_signals_resume();
	return error;
}

int output_file_commit(struct output_file *file)
{
	int error = file->error;
	file_prefault_stop(&file->prefault);
	file_map_release(&file->map);
	if (!error && file->filled)
		error = output_submit(file);
	if (!error)
		error = write_queue_flush(file->queue);
	/* an allocated twin is cut where the last write ended, at an offset or in order */
	if (!error && file->allocated) {
		uint64_t end = atomic_load(&file->written_end);
		uint64_t in_order = file->queue ? (uint64_t)write_queue_offset(file->queue) : 0;
		if (ftruncate(file->fd, (off_t)(end > in_order ? end : in_order)) != 0)
			error = -errno;
	}
	write_queue_close(file->queue);
	file->queue = NULL;
	bool copy = file->original_fd >= 0;
	if (!error && copy)
		error = output_copy_into_original(file);
	if (file->owns_fd) {
		/* close reports late write errors on some file systems (NFS); after a copy the
		 * twin's bytes were already read back, so its close no longer matters. */
		if (close(file->fd) != 0 && !error && !copy)
			error = -errno;
		file->fd = -1;
	}
	if (!error && file->temp_path) {
		if (!copy) {
			int fault = fault_at(FAULT_OUTPUT_RENAME);
			if (fault < 0)
				error = fault;
			else if (rename(file->temp_path, file->final_path) != 0)
				error = -errno;
		}
		if (!error) {
			if (copy)
				unlink(file->temp_path);
			temp_file_forget(file->temp_path);
			free(file->temp_path);
			file->temp_path = NULL;
		}
	}
	if (error) {
		output_file_abort(file);
		return error;
	}
	output_file_free(file);
	return 0;
}

/* An abandoned temp twin this large gives its pages back on a thread of its own. */
#define RELEASE_LATER_BYTES ((uint64_t)64 << 20)

/* What an abandoned twin still holds once its name is gone and its descriptor closed:
 * its mapping, whose release gives the file's pages back (tens of milliseconds a GiB),
 * which a cancelled or failed job need not wait for. (Only the mapping: a descriptor
 * closed later might by then be a number the process has opened again.) */
static void *abandoned_map_release(void *argument)
{
	file_map_release(argument);
	free(argument);
	return NULL;
}

/* Hands a large removed twin's mapping to a detached thread (with the signals blocked,
 * which stay the job's threads'); where none starts, it stays for output_file_free. */
static void output_twin_release_later(struct output_file *file)
{
	if (file->map.length < RELEASE_LATER_BYTES)
		return;
	struct file_map *twin = malloc(sizeof *twin);
	if (!twin)
		return;
	file_prefault_stop(&file->prefault);
	*twin = file->map;
	sigset_t all, old;
	sigfillset(&all);
	pthread_attr_t attributes;
	pthread_t thread;
	bool started = false;
	if (pthread_attr_init(&attributes) == 0) {
		pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		started = pthread_create(&thread, &attributes, abandoned_map_release, twin) == 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		pthread_attr_destroy(&attributes);
	}
	if (!started) {
		free(twin);
		return;
	}
	file->map = (struct file_map){.bytes = NULL};
}

void output_file_abort(struct output_file *file)
{
	if (!file)
		return;
	if (file->temp_path) {
		temp_file_remove(file->temp_path);
		output_twin_release_later(file);
	}
	output_file_free(file);
}
