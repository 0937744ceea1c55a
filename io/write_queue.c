/* Writes queued behind the caller (see write_queue.h). Slots are used in order, so a
 * buffer is reused only after the write submitted depth slots ago has completed; short
 * writes are continued from where they stopped, so a full disk shows as -ENOSPC. */
#include "config.h"
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include "fault_inject.h"
#include "io_ring.h"
#include "write_queue.h"

struct write_slot {
	unsigned char *data;
	size_t capacity;
	size_t bytes;
	size_t done;
	off_t offset;
	bool busy;
};

struct write_queue {
	int fd;
	bool use_ring;
	bool seekable;
	struct io_uring ring;
	unsigned depth;
	unsigned next;            /* the slot handed out by write_queue_buffer */
	unsigned in_flight;
	struct write_slot *slots;
	off_t start;
	off_t offset;             /* where the next submitted buffer goes */
	int error;
	const char *fault_op;
	double wait_seconds;      /* in the writes: waiting for them, or writing */
	off_t behind_started;     /* write-behind: the device writes started up to here */
	off_t behind_waited;      /* ... and waited for up to here */
};

static double monotonic_seconds(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

static void write_slot_fail(struct write_queue *queue, struct write_slot *slot, int error)
{
	if (!queue->error)
		queue->error = error;
	slot->busy = false;
}

static void write_ring_queue(struct write_queue *queue, struct write_slot *slot, size_t bytes)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&queue->ring);
	/* depth sqes at most are in flight and the ring has depth entries: never NULL. */
	io_uring_prep_write(sqe, queue->fd, slot->data + slot->done, bytes,
			    slot->offset + slot->done);
	io_uring_sqe_set_data(sqe, slot);
	queue->in_flight++;
	/* the kernel may do the write right here: its time is the caller's */
	double started = monotonic_seconds();
	int submitted = io_uring_submit(&queue->ring);
	queue->wait_seconds += monotonic_seconds() - started;
	if (submitted < 0) {
		queue->in_flight--;
		write_slot_fail(queue, slot, submitted);
	}
}

static void write_sync(struct write_queue *queue, struct write_slot *slot, size_t first)
{
	double started = monotonic_seconds();
	while (slot->done < slot->bytes) {
		size_t want = slot->done ? slot->bytes - slot->done : first;
		ssize_t wrote = queue->seekable
			? pwrite(queue->fd, slot->data + slot->done, want, slot->offset + slot->done)
			: write(queue->fd, slot->data + slot->done, want);
		if (wrote < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (wrote <= 0) {
			write_slot_fail(queue, slot, wrote < 0 ? -errno : -EIO);
			return;
		}
		slot->done += wrote;
	}
	slot->busy = false;
	queue->wait_seconds += monotonic_seconds() - started;
}

static int write_ring_reap(struct write_queue *queue)
{
	struct io_uring_cqe *cqe;
	int error;
	double started = monotonic_seconds();
	do
		error = io_uring_wait_cqe(&queue->ring, &cqe);
	while (error == -EINTR);
	queue->wait_seconds += monotonic_seconds() - started;
	if (error)
		return error;
	struct write_slot *slot = io_uring_cqe_get_data(cqe);
	int result = cqe->res;
	io_uring_cqe_seen(&queue->ring, cqe);
	queue->in_flight--;
	if (result == -EINTR || result == -EAGAIN) {
		write_ring_queue(queue, slot, slot->bytes - slot->done);
		return 0;
	}
	if (result == -ECANCELED && queue->seekable) {
		/* we cancel nothing: the kernel had no worker for it (none may be started
		 * past RLIMIT_NPROC) and wrote none of it; written here instead, at its
		 * offset (a pipe's later writes may have gone ahead: not there) */
		write_sync(queue, slot, slot->bytes - slot->done);
		return 0;
	}
	if (result < 0 || (result == 0 && slot->bytes > slot->done)) {
		write_slot_fail(queue, slot, result < 0 ? result : -EIO);
		return 0;
	}
	slot->done += result;
	if (slot->done < slot->bytes && !queue->error)
		write_ring_queue(queue, slot, slot->bytes - slot->done);
	else
		slot->busy = false;
	return 0;
}

int write_queue_open(int fd, unsigned depth, size_t slot_bytes, const char *fault_op,
		     struct write_queue **result)
{
	struct write_queue *queue = calloc(1, sizeof *queue);
	if (!queue)
		return -ENOMEM;
	queue->fd = fd;
	queue->fault_op = fault_op;
	struct stat st;
	int flags = fcntl(fd, F_GETFL);
	off_t here = lseek(fd, 0, SEEK_CUR);
	/* Explicit offsets need a seekable file without O_APPEND; pipes and terminals write
	 * in order with one synchronous write at a time. */
	queue->seekable = fstat(fd, &st) == 0 && (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))
			  && here >= 0 && flags >= 0 && !(flags & O_APPEND);
	queue->start = queue->offset = queue->seekable ? here : 0;
	queue->behind_started = queue->behind_waited = queue->start;
	if (depth < 1)
		depth = 1;
	queue->use_ring = queue->seekable && depth > 1 && io_ring_init(&queue->ring, depth) == 0;
	queue->depth = queue->use_ring ? depth : 1;
	queue->slots = calloc(queue->depth, sizeof *queue->slots);
	if (!queue->slots) {
		write_queue_close(queue);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < queue->depth; i++) {
		queue->slots[i].data = malloc(slot_bytes);
		if (!queue->slots[i].data) {
			write_queue_close(queue);
			return -ENOMEM;
		}
		queue->slots[i].capacity = slot_bytes;
	}
	*result = queue;
	return 0;
}

/* The slot the next submit uses, once the write in it (if any) is done. */
static int next_slot(struct write_queue *queue, struct write_slot **result)
{
	struct write_slot *slot = &queue->slots[queue->next];
	while (slot->busy) {
		int error = write_ring_reap(queue);
		if (error)
			return error;
	}
	*result = slot;
	return queue->error;
}

int write_queue_buffer(struct write_queue *queue, size_t min_bytes, void **buffer)
{
	struct write_slot *slot;
	int error = next_slot(queue, &slot);
	if (error)
		return error;
	if (slot->capacity < min_bytes) {
		unsigned char *bigger = realloc(slot->data, min_bytes);
		if (!bigger)
			return -ENOMEM;
		slot->data = bigger;
		slot->capacity = min_bytes;
	}
	*buffer = slot->data;
	return 0;
}

int write_queue_submit_exchange(struct write_queue *queue, void **buffer, size_t *capacity,
				size_t bytes)
{
	struct write_slot *slot;
	int error = next_slot(queue, &slot);
	if (error)
		return error;
	unsigned char *mine = slot->data;
	size_t mine_capacity = slot->capacity;
	slot->data = *buffer;
	slot->capacity = *capacity;
	*buffer = mine;
	*capacity = mine_capacity;
	return write_queue_submit(queue, bytes);
}

int write_queue_submit(struct write_queue *queue, size_t bytes)
{
	if (queue->error)
		return queue->error;
	struct write_slot *slot = &queue->slots[queue->next];
	if (bytes == 0)
		return 0;
	slot->bytes = bytes;
	slot->done = 0;
	slot->offset = queue->offset;
	slot->busy = true;
	queue->offset += bytes;
	queue->next = (queue->next + 1) % queue->depth;
	int fault = fault_inject(queue->fault_op);
	if (fault < 0) {
		write_slot_fail(queue, slot, fault);
		return fault;
	}
	size_t first = fault == FAULT_SHORT && bytes > 1 ? bytes / 2 : bytes;
	if (queue->use_ring)
		write_ring_queue(queue, slot, first);
	else
		write_sync(queue, slot, first);
	return queue->error;
}

static int write_queue_drain(struct write_queue *queue)
{
	while (queue->use_ring && queue->in_flight) {
		int error = write_ring_reap(queue);
		if (error)
			return error;
	}
	return 0;
}

int write_queue_wait(struct write_queue *queue)
{
	int error = write_queue_drain(queue);
	return error ? error : queue->error;
}

int write_queue_seek(struct write_queue *queue, off_t offset)
{
	int error = write_queue_wait(queue);
	if (error)
		return error;
	if (!queue->seekable)
		return -ESPIPE;
	queue->start = queue->offset = offset;
	queue->behind_started = queue->behind_waited = offset;
	return 0;
}

int write_queue_flush(struct write_queue *queue)
{
	int error = write_queue_drain(queue);
	if (error)
		return error;
	if (queue->seekable && !queue->error && lseek(queue->fd, queue->offset, SEEK_SET) < 0)
		queue->error = -errno;
	return queue->error;
}

off_t write_queue_offset(const struct write_queue *queue)
{
	return queue->offset;
}

void write_queue_skip(struct write_queue *queue, size_t bytes)
{
	queue->offset += (off_t)bytes;
}

/* sync_file_range of [from, to), where the file system has one (not ESPIPE, EINVAL). */
static int write_queue_sync_range(struct write_queue *queue, off_t from, off_t to, unsigned flags)
{
	if (to <= from || sync_file_range(queue->fd, from, to - from, flags) == 0 || errno == ESPIPE
	    || errno == EINVAL)
		return 0;
	return -errno;
}

int write_queue_write_behind(struct write_queue *queue, size_t window)
{
	const unsigned wait = SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER;
	if (!queue->seekable || queue->error)
		return queue->error;
	if (window == 0) {
		/* the rest, after a flush: its device writes start, nobody waits for them */
		queue->error = write_queue_sync_range(queue, queue->behind_started, queue->offset,
						      SYNC_FILE_RANGE_WRITE);
		queue->behind_started = queue->offset;
		return queue->error;
	}
	if (queue->offset - queue->behind_started < (off_t)window)
		return 0;
	double started = monotonic_seconds();
	/* the window before: on the device before we go on */
	queue->error = write_queue_sync_range(queue, queue->behind_waited, queue->behind_started, wait);
	queue->behind_waited = queue->behind_started;
	/* this one: its device writes start now, behind the caller */
	if (!queue->error)
		queue->error = write_queue_sync_range(queue, queue->behind_started, queue->offset,
						      SYNC_FILE_RANGE_WRITE);
	queue->behind_started = queue->offset;
	queue->wait_seconds += monotonic_seconds() - started;
	return queue->error;
}

void write_queue_leave_cached(struct write_queue *queue)
{
	queue->behind_started = queue->behind_waited = queue->offset;
}

double write_queue_wait_seconds(const struct write_queue *queue)
{
	return queue->wait_seconds;
}

off_t write_queue_bytes(const struct write_queue *queue)
{
	return queue->offset - queue->start;
}

void write_queue_close(struct write_queue *queue)
{
	if (!queue)
		return;
	write_queue_drain(queue);
	if (queue->use_ring)
		io_uring_queue_exit(&queue->ring);
	if (queue->slots)
		for (unsigned i = 0; i < queue->depth; i++)
			free(queue->slots[i].data);
	free(queue->slots);
	free(queue);
}
