/* SPDX-License-Identifier: MIT */
/* Reading an input in large blocks with io_uring reads kept in flight ahead of the
 * consumer: depth slots of block bytes each, submitted at increasing offsets and consumed
 * in order. Pipes, terminals and machines without io_uring read synchronously straight
 * into the caller's buffer (a pipe gives no offsets to read ahead at). */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include "fault_inject.h"
#include "input_file.h"
#include "parallel_io.h"
#include "safe_fd.h"
#include "io_ring.h"
#include "io_scope.h"
#include "output_path.h"

/* The read-ahead window is INPUT_DEPTH x INPUT_BLOCK = 64 MiB: a window smaller than
 * the caller's piece overlaps little, and a deeper one gains nothing on page-cached
 * data, where the copy out of the slots costs more than pread (bench/RESULTS.md). */
#ifndef INPUT_DEPTH
#define INPUT_DEPTH 8
#endif
#ifndef INPUT_BLOCK
#define INPUT_BLOCK (8u << 20)
#endif
/* A smaller window (input_file_set_read_ahead) keeps the depth while it can and shrinks
 * the blocks, down to this; below that it keeps fewer slots. */
#define INPUT_BLOCK_MIN ((size_t)256 << 10)
#define INPUT_WINDOW_MIN ((size_t)1 << 20)

/* The least a regular file holds past its first read for that file to be read ahead. */
#define INPUT_RING_MINIMUM ((off_t)4 << 20)

/* The capacity asked of a pipe read from: an unprivileged process's most by default
 * (/proc/sys/fs/pipe-max-size). */
#define INPUT_PIPE_BYTES (1 << 20)

/* How often a read waiting on a pipe asks whether its job was stopped. */
#define STREAM_STOP_POLL_MS 20

enum slot_state { SLOT_IDLE, SLOT_READING, SLOT_DONE };

struct read_slot {
	unsigned char *data;
	off_t offset;
	size_t want;
	size_t filled;
	int error;
	bool at_end;          /* the file ended inside (or at the start of) this slot */
	enum slot_state state;
};

struct input_file {
	int fd;
	bool owns_fd;
	off_t size;           /* -1 when not a regular file */
	dev_t device;
	ino_t inode;
	bool use_ring;
	bool ring_tried;
	bool fixed_buffers;
	struct io_uring ring;
	struct read_slot slots[INPUT_DEPTH];
	unsigned depth;       /* slots in use (at most INPUT_DEPTH) */
	size_t block;         /* bytes per slot */
	unsigned char *buffers;
	unsigned head;        /* the slot being consumed */
	size_t head_used;
	unsigned in_flight;
	off_t next_offset;    /* where the next submitted read starts */
	off_t sync_offset;    /* where the synchronous path reads next (regular files) */
	off_t end_offset;     /* the file's size at open: read ahead stops there */
	bool bounded;         /* a range of the file: reads stop at end_offset */
	bool ended;
	int error;
	unsigned char *ahead; /* input_file_read_ahead's bytes, served first by the reads */
	size_t ahead_length, ahead_used;
};

static void read_ring_queue(struct input_file *file, struct read_slot *slot, size_t bytes)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&file->ring);
	unsigned char *target = slot->data + slot->filled;
	off_t offset = slot->offset + slot->filled;
	if (file->fixed_buffers)
		io_uring_prep_read_fixed(sqe, file->fd, target, bytes, offset, 0);
	else
		io_uring_prep_read(sqe, file->fd, target, bytes, offset);
	io_uring_sqe_set_data(sqe, slot);
	file->in_flight++;
	int submitted = io_uring_submit(&file->ring);
	if (submitted < 0) {
		file->in_flight--;
		slot->error = submitted;
		slot->state = SLOT_DONE;
	}
}

static void read_slot_start(struct input_file *file, struct read_slot *slot)
{
	slot->offset = file->next_offset;
	slot->want = file->block;
	if (file->bounded && (off_t)slot->want > file->end_offset - file->next_offset)
		slot->want = (size_t)(file->end_offset - file->next_offset);
	slot->filled = 0;
	slot->error = 0;
	slot->at_end = false;
	slot->state = SLOT_READING;
	file->next_offset += slot->want;
	int fault = fault_at(FAULT_INPUT_READ);
	if (fault < 0) {
		slot->error = fault;
		slot->state = SLOT_DONE;
		return;
	}
	read_ring_queue(file, slot, fault == FAULT_SHORT ? slot->want / 2 : slot->want);
}

static int read_ring_reap(struct input_file *file)
{
	struct io_uring_cqe *cqe;
	int error;
	do
		error = io_uring_wait_cqe(&file->ring, &cqe);
	while (error == -EINTR);
	if (error)
		return error;
	struct read_slot *slot = io_uring_cqe_get_data(cqe);
	int result = cqe->res;
	io_uring_cqe_seen(&file->ring, cqe);
	file->in_flight--;
	if (result == -EINTR || result == -EAGAIN) {
		read_ring_queue(file, slot, slot->want - slot->filled);
		return 0;
	}
	/* we cancel nothing: the kernel had no worker for it (none may be started past
	 * RLIMIT_NPROC) and read none of it: read here instead */
	while (result == -ECANCELED || result == -EINTR) {
		ssize_t got = pread(file->fd, slot->data + slot->filled, slot->want - slot->filled,
				    slot->offset + slot->filled);
		result = got < 0 ? -errno : (int)got;
	}
	if (result < 0)
		slot->error = result;
	else if (result == 0)
		slot->at_end = true;
	else
		slot->filled += result;
	/* A short read that is not the end: ask again for the rest. */
	if (result > 0 && slot->filled < slot->want) {
		read_ring_queue(file, slot, slot->want - slot->filled);
		return 0;
	}
	slot->state = SLOT_DONE;
	return 0;
}

void input_file_set_read_ahead(size_t bytes)
{
	if (bytes == 0 || bytes > (size_t)INPUT_DEPTH * INPUT_BLOCK)
		bytes = (size_t)INPUT_DEPTH * INPUT_BLOCK;
	atomic_store(&io_scope_current()->read_window, bytes < INPUT_WINDOW_MIN ? INPUT_WINDOW_MIN : bytes);
}

/* Splits the window into slots: all INPUT_DEPTH of them while blocks stay at least
 * INPUT_BLOCK_MIN, fewer (at least two) below that. */
static void input_window_split(struct input_file *file)
{
	size_t window = atomic_load(&io_scope_current()->read_window);
	if (window == 0)
		window = (size_t)INPUT_DEPTH * INPUT_BLOCK;
	/* a small file needs no window larger than itself */
	if (file->size >= 0 && (uint64_t)file->size < window)
		window = (size_t)file->size > 2 * INPUT_BLOCK_MIN ? (size_t)file->size : 2 * INPUT_BLOCK_MIN;
	size_t block = window / INPUT_DEPTH;
	unsigned depth = INPUT_DEPTH;
	if (block < INPUT_BLOCK_MIN) {
		block = INPUT_BLOCK_MIN;
		depth = (unsigned)(window / block);
		if (depth < 2)
			depth = 2;
	}
	file->depth = depth;
	file->block = (block + 4095) & ~(size_t)4095;
}

static bool input_ring_setup(struct input_file *file)
{
	input_window_split(file);
	if (io_ring_init(&file->ring, file->depth) != 0)
		return false;
	file->buffers = aligned_alloc(4096, (size_t)file->depth * file->block);
	if (!file->buffers) {
		io_uring_queue_exit(&file->ring);
		return false;
	}
	struct iovec whole = { file->buffers, (size_t)file->depth * file->block };
	/* Registration pins the pages once instead of per read; it needs RLIMIT_MEMLOCK
	 * room, and plain reads are fine without it. */
	file->fixed_buffers = io_uring_register_buffers(&file->ring, &whole, 1) == 0;
	for (unsigned i = 0; i < file->depth; i++)
		file->slots[i].data = file->buffers + (size_t)i * file->block;
	return true;
}

/* Waits for reads in flight and frees the ring and its buffers. */
static void input_ring_release(struct input_file *file)
{
	if (!file->buffers)
		return;
	while (file->in_flight && read_ring_reap(file) == 0)
		;
	io_uring_queue_exit(&file->ring);
	free(file->buffers);
	file->buffers = NULL;
	file->use_ring = false;
}

int input_file_check(const char *path)
{
	if (strcmp(path, "-") == 0)
		return 0;
	return access(path, R_OK) == 0 ? 0 : -errno;
}

size_t input_file_descriptors_free(size_t most)
{
	int taken[256];
	size_t count = 0;
	most = most < sizeof taken / sizeof *taken ? most : sizeof taken / sizeof *taken;
	while (count < most) {
		int fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			break;
		taken[count++] = fd;
	}
	for (size_t i = 0; i < count; i++)
		close(taken[i]);
	return count;
}

/* A copy of the descriptor of ours that path names (/dev/stdin, /dev/fd/N,
 * /proc/self/fd/N, or a link to one), -ENOENT where that one is closed, or -1 for a
 * name of anything else. Such an input is that descriptor, read as it is, from its
 * offset, as "-" is and as -o writes one: open(2) would begin a regular file anew at
 * its start and cannot reopen a socket at all. */
static int input_descriptor_named(const char *path)
{
	if (strncmp(path, "/dev/", 5) != 0 && strncmp(path, "/proc/", 6) != 0)
		return -1; /* the common case, without a walk: a link elsewhere reopens */
	bool closed;
	int fd = path_own_descriptor(path, &closed);
	if (closed)
		return -ENOENT;
	if (fd < 0)
		return -1;
	int copy = fd_safer(fcntl(fd, F_DUPFD_CLOEXEC, 0));
	return copy >= 0 ? copy : -errno; /* EMFILE, never -1 (EPERM) */
}

int input_file_open(const char *path, struct input_file **result)
{
	struct input_file *file = calloc(1, sizeof *file);
	if (!file)
		return -ENOMEM;
	if (strcmp(path, "-") == 0) {
		file->fd = fd_standard(STDIN_FILENO); /* closed: fstat says EBADF */
	} else {
		int given = input_descriptor_named(path);
		file->fd = given == -1 ? fd_safer(open(path, O_RDONLY | O_CLOEXEC)) : given;
		if (file->fd < 0) {
			int error = given < -1 ? given : -errno;
			free(file);
			return error;
		}
		file->owns_fd = true;
	}
	fault_tag(file->fd, FAULT_INPUT_READ);
	struct stat st = {0}; /* read below also when fstat fails */
	if (fstat(file->fd, &st) != 0 || S_ISDIR(st.st_mode)) {
		int error = S_ISDIR(st.st_mode) ? -EISDIR : -errno;
		input_file_close(file);
		return error;
	}
	file->device = st.st_dev;
	file->inode = st.st_ino;
	file->size = -1;
	/* A pipe's default 64 KiB makes a read, and a switch to the writer, of every 64 KiB;
	 * a larger one, where the system allows it, lets both sides move more at a time. */
	if (S_ISFIFO(st.st_mode))
		(void)fcntl(file->fd, F_SETPIPE_SZ, INPUT_PIPE_BYTES);
	if (S_ISREG(st.st_mode)) {
		/* stdin redirected from a file may already be partly read. */
		off_t here = lseek(file->fd, 0, SEEK_CUR);
		if (here >= 0) {
			file->size = st.st_size > here ? st.st_size - here : 0;
			file->next_offset = file->sync_offset = here;
			file->end_offset = st.st_size;
		}
	}
	*result = file;
	return 0;
}

int input_file_open_range(const char *path, off_t offset, off_t length, struct input_file **result)
{
	struct input_file *file;
	int error = input_file_open(path, &file);
	if (error)
		return error;
	if (file->size < 0 || offset < 0 || length < 0) {
		input_file_close(file);
		return -ESPIPE;
	}
	off_t end = offset + length < file->end_offset ? offset + length : file->end_offset;
	if (offset > end)
		offset = end;
	file->next_offset = file->sync_offset = offset;
	file->end_offset = end;
	file->size = end - offset;
	file->bounded = true;
	*result = file;
	return 0;
}

off_t input_file_size(const struct input_file *file)
{
	return file->size;
}

/* Before a read of a pipe or socket, in a scope that can be stopped: waits until it has
 * data, asking every STREAM_STOP_POLL_MS whether to give up (-ECANCELED). */
static int stream_wait(int fd)
{
	bool (*stopped)(void) = io_scope_current()->stopped;
	if (!stopped)
		return 0;
	for (;;) {
		if (stopped())
			return -ECANCELED;
		struct pollfd ready = {.fd = fd, .events = POLLIN};
		int got = poll(&ready, 1, STREAM_STOP_POLL_MS);
		if (got > 0 || (got < 0 && errno != EINTR))
			return 0; /* data, an end or an error: the read says which */
	}
}

static ssize_t input_read_sync(struct input_file *file, unsigned char *buffer, size_t len)
{
	size_t have = 0;
	while (have < len) {
		size_t want = len - have;
		if (file->bounded)
			want = file->sync_offset >= file->end_offset ? 0
			       : (off_t)want < file->end_offset - file->sync_offset ? want
			       : (size_t)(file->end_offset - file->sync_offset);
		if (want == 0) {
			file->ended = true;
			break;
		}
		if (want > IO_CALL_MAX)
			want = IO_CALL_MAX; /* a signal waits for one call at most */
		int fault = fault_at(FAULT_INPUT_READ);
		if (fault < 0)
			return fault;
		if (fault == FAULT_SHORT && want > 1)
			want /= 2;
		int waited = file->size >= 0 ? 0 : stream_wait(file->fd);
		if (waited < 0)
			return waited;
		ssize_t got = file->size >= 0 ? pread(file->fd, buffer + have, want, file->sync_offset)
					      : read(file->fd, buffer + have, want);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0) {
			file->ended = true;
			break;
		}
		have += got;
		file->sync_offset += got;
	}
	return have;
}

static ssize_t input_read_ring(struct input_file *file, unsigned char *buffer, size_t len)
{
	size_t have = 0;
	while (have < len) {
		struct read_slot *slot = &file->slots[file->head];
		if (slot->state == SLOT_IDLE) {
			/* Read ahead ran out at the size seen at open; the file may have grown. */
			input_ring_release(file);
			file->sync_offset = file->next_offset;
			ssize_t got = input_read_sync(file, buffer + have, len - have);
			return got < 0 ? got : (ssize_t)(have + got);
		}
		while (slot->state == SLOT_READING) {
			int error = read_ring_reap(file);
			if (error)
				return error;
		}
		if (slot->error)
			return slot->error;
		size_t take = slot->filled - file->head_used;
		if (take > len - have)
			take = len - have;
		memcpy(buffer + have, slot->data + file->head_used, take);
		have += take;
		file->head_used += take;
		if (file->head_used < slot->filled)
			break;
		if (slot->at_end || slot->filled < slot->want) {
			file->ended = true;
			break;
		}
		slot->state = SLOT_IDLE;
		file->head_used = 0;
		file->head = (file->head + 1) % file->depth;
		if (file->next_offset < file->end_offset)
			read_slot_start(file, slot);
	}
	return have;
}

/* A large read of a regular file that is not being read ahead goes straight into the
 * caller's buffer, on several threads. */
static ssize_t input_read_direct(struct input_file *file, unsigned char *buffer, size_t len)
{
	if (file->bounded)
		len = file->sync_offset >= file->end_offset ? 0
		      : (off_t)len < file->end_offset - file->sync_offset ? len
		      : (size_t)(file->end_offset - file->sync_offset);
	if (len == 0) {
		file->ended = true;
		return 0;
	}
	ssize_t got = parallel_pread(file->fd, buffer, len, file->sync_offset);
	if (got < 0)
		return got;
	file->sync_offset += got;
	/* only a read that finds nothing ends the file: a short one is read on from */
	if (got == 0)
		file->ended = true;
	return got;
}

static ssize_t input_read_source(struct input_file *file, void *buffer, size_t len)
{
	if (file->error)
		return file->error;
	if (file->ended || len == 0)
		return 0;
	if (file->size > 0 && !file->use_ring && len >= PARALLEL_IO_MINIMUM) {
		file->ring_tried = true; /* from here on the file is read synchronously */
		ssize_t got = input_read_direct(file, buffer, len);
		if (got < 0)
			file->error = got;
		return got;
	}
	/* A small first read of a file large enough for parallel reads is made as it is,
	 * and the path is chosen at the next: a reader that sizes its first piece before it
	 * knows the data (text, whose lines' length it learns from that piece) and reads
	 * large pieces after it would otherwise leave the file to the read-ahead, and each
	 * large piece would be copied out of the ring's slots on one thread. */
	if (!file->ring_tried && file->sync_offset == file->next_offset /* nothing read yet */
	    && file->size >= (off_t)PARALLEL_IO_MINIMUM) {
		ssize_t got = input_read_sync(file, buffer, len);
		if (got < 0)
			file->error = got;
		return got;
	}
	/* A small file is read as it is asked for: a ring and its pinned buffers take
	 * longer to set up than the reads they would overlap. */
	if (!file->ring_tried && file->size > 0 && file->end_offset - file->sync_offset < INPUT_RING_MINIMUM)
		file->ring_tried = true;
	/* The read-ahead starts at the first read, not at open: a caller opens every input
	 * at once, and only the one being read should hold buffers. */
	if (!file->ring_tried && file->size > 0) {
		file->ring_tried = true;
		file->next_offset = file->sync_offset; /* after a first read, if one was made */
		if (input_ring_setup(file)) {
			file->use_ring = true;
			for (unsigned i = 0; i < file->depth && file->next_offset < file->end_offset; i++)
				read_slot_start(file, &file->slots[i]);
		}
	}
	ssize_t got = file->use_ring ? input_read_ring(file, buffer, len)
				     : input_read_sync(file, buffer, len);
	if (got < 0)
		file->error = got;
	if (file->ended || got < 0)
		input_ring_release(file);
	return got;
}

ssize_t input_file_read(struct input_file *file, void *buffer, size_t len)
{
	size_t have = file->ahead_length - file->ahead_used;
	if (have == 0)
		return input_read_source(file, buffer, len);
	if (have > len)
		have = len;
	memcpy(buffer, file->ahead + file->ahead_used, have);
	file->ahead_used += have;
	if (file->ahead_used == file->ahead_length) {
		free(file->ahead);
		file->ahead = NULL;
		file->ahead_length = file->ahead_used = 0;
	}
	if (have == len)
		return (ssize_t)have;
	ssize_t got = input_read_source(file, (unsigned char *)buffer + have, len - have);
	return got < 0 ? got : (ssize_t)have + got;
}

ssize_t input_file_read_ahead(struct input_file *file, size_t bytes)
{
	if (file->ahead_length > file->ahead_used)
		return (ssize_t)(file->ahead_length - file->ahead_used);
	free(file->ahead);
	file->ahead_length = file->ahead_used = 0;
	if (!(file->ahead = malloc(bytes ? bytes : 1)))
		return -ENOMEM;
	ssize_t got = input_read_source(file, file->ahead, bytes);
	if (got <= 0) {
		free(file->ahead);
		file->ahead = NULL;
		return got;
	}
	file->ahead_length = (size_t)got;
	return got;
}

int input_file_unread(struct input_file *file, const void *bytes, size_t len)
{
	size_t have = file->ahead_length - file->ahead_used;
	unsigned char *joined = malloc(len + have ? len + have : 1);
	if (!joined)
		return -ENOMEM;
	memcpy(joined, bytes, len);
	if (have)
		memcpy(joined + len, file->ahead + file->ahead_used, have);
	free(file->ahead);
	file->ahead = joined;
	file->ahead_length = len + have;
	file->ahead_used = 0;
	return 0;
}

bool input_file_ended(const struct input_file *file)
{
	return file->ended;
}

bool input_file_same(const struct input_file *file, const char *path)
{
	struct stat st;
	return path && stat(path, &st) == 0 && st.st_dev == file->device
	       && st.st_ino == file->inode;
}

void input_file_close(struct input_file *file)
{
	if (!file)
		return;
	input_ring_release(file);
	if (file->owns_fd)
		close(file->fd);
	free(file->ahead);
	free(file);
}
