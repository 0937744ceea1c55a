/* SPDX-License-Identifier: MIT */
/* Writes queued behind the caller (see write_queue.h). Slots are used in order, so a
 * buffer is reused only after the write submitted depth slots ago has completed; short
 * writes are continued from where they stopped, so a full disk shows as -ENOSPC.
 *
 * Direct mode (write_queue_direct): a slot's first byte stands for a page-aligned file
 * offset, so the whole pages of what is submitted go out from aligned memory through the
 * O_DIRECT descriptor; a partial page before them (a range that starts mid-page) is
 * written through the page cache at once, and the partial page after them is carried
 * into the next buffer, or written through the page cache by a wait, seek or flush.
 * Direct writes never touch a page that a cached write touches. */
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
	size_t skip;   /* the write starts at data + skip (direct mode: whole pages) */
	size_t bytes;
	size_t done;
	off_t offset;
	int fd;        /* the queue's descriptor, or its O_DIRECT one */
	bool busy;
};

/* Direct writes: offsets, lengths and memory aligned to this (a multiple of every
 * common logical block size). */
#define DIRECT_ALIGN 4096
/* The bytes a direct queue may hold back, carried from one buffer to the next: less
 * than two pages and the start of the page before them. */
#define DIRECT_CARRY (3 * DIRECT_ALIGN)
/* A direct queue measures itself once this many bytes went out directly: where it
 * spent more than DIRECT_MOST_WAITING of its time since waiting for the device, the
 * device is slower than the caller and the page cache takes the rest. */
#define DIRECT_PROBE_BYTES ((off_t)16 << 20)
#define DIRECT_MOST_WAITING 0.25

struct write_queue {
	int fd;
	bool use_ring;
	/* The ring is set up once a second buffer is asked for (ring_start): an output of
	 * one buffer (a small sort's -o FILE) goes out in one write without it. */
	bool ring_pending;
	bool sent;                /* a write was sent */
	size_t slot_bytes;        /* a slot's buffer, allocated at its first use */
	bool seekable;
	struct io_uring ring;
	unsigned depth;
	unsigned next;            /* the slot handed out by write_queue_buffer */
	unsigned in_flight;
	struct write_slot *slots;
	off_t start;
	off_t offset;             /* where the next submitted buffer goes */
	int error;
	double wait_seconds;      /* in the writes: waiting for them, or writing */
	off_t behind_started;     /* write-behind: the device writes started up to here */
	off_t behind_waited;      /* ... and waited for up to here */
	/* direct mode */
	int direct_fd;            /* -1: none */
	bool direct;              /* on: whole pages go through direct_fd */
	unsigned char *carry;     /* the file's [offset - carried, offset), not yet written */
	size_t carried;
	off_t direct_bytes;       /* written through direct_fd */
	double direct_since;      /* when direct mode began, */
	double direct_waited;     /* and wait_seconds then */
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
	io_uring_prep_write(sqe, slot->fd, slot->data + slot->skip + slot->done, bytes,
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
			? pwrite(slot->fd, slot->data + slot->skip + slot->done, want, slot->offset + slot->done)
			: write(slot->fd, slot->data + slot->skip + slot->done, want);
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
	if (result == -EINVAL && slot->fd == queue->direct_fd) {
		/* the file system refused the alignment after all: this write and the rest
		 * through the page cache */
		queue->direct = false;
		slot->fd = queue->fd;
		write_sync(queue, slot, slot->bytes - slot->done);
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

int write_queue_open(int fd, unsigned depth, size_t slot_bytes, struct write_queue **result)
{
	struct write_queue *queue = calloc(1, sizeof *queue);
	if (!queue)
		return -ENOMEM;
	queue->fd = fd;
	queue->direct_fd = -1;
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
	queue->ring_pending = queue->seekable && depth > 1;
	queue->depth = queue->ring_pending ? depth : 1;
	queue->slot_bytes = slot_bytes;
	queue->slots = calloc(queue->depth, sizeof *queue->slots);
	if (!queue->slots) {
		write_queue_close(queue);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < queue->depth; i++)
		queue->slots[i].fd = fd;
	*result = queue;
	return 0;
}

/* The ring, once more than one write is coming. Without it (io_uring refused or
 * switched off) the writes are synchronous, one buffer enough: called before any slot
 * but the first has its buffer, so the queue falls back to that one. */
static void ring_start(struct write_queue *queue)
{
	if (!queue->ring_pending)
		return;
	queue->ring_pending = false;
	queue->use_ring = io_ring_init(&queue->ring, queue->depth) == 0;
	if (!queue->use_ring)
		queue->depth = 1, queue->next = 0;
}

/* The slot the next submit uses, once the write in it (if any) is done. */
static int next_slot(struct write_queue *queue, struct write_slot **result)
{
	if (queue->sent)
		ring_start(queue);
	struct write_slot *slot = &queue->slots[queue->next];
	while (slot->busy) {
		int error = write_ring_reap(queue);
		if (error)
			return error;
	}
	if (!slot->data) {
		if (!(slot->data = malloc(queue->slot_bytes))) {
			if (queue->next == 0)
				return -ENOMEM;
			/* memory for fewer buffers only: fewer writes in flight */
			queue->depth = queue->next;
			queue->next = 0;
			return next_slot(queue, result);
		}
		slot->capacity = queue->slot_bytes;
	}
	*result = slot;
	return queue->error;
}

static off_t page_down(off_t offset)
{
	return offset / DIRECT_ALIGN * DIRECT_ALIGN;
}

static off_t page_up(off_t offset)
{
	return page_down(offset + DIRECT_ALIGN - 1);
}

/* Writes len bytes at offset through the page cache, now (direct mode's partial pages). */
static void write_cached(struct write_queue *queue, const unsigned char *bytes, size_t len, off_t offset)
{
	struct write_slot part = {.data = (unsigned char *)bytes, .bytes = len, .offset = offset, .fd = queue->fd,
				  .busy = true};
	if (len && !queue->error)
		write_sync(queue, &part, len);
}

/* The bytes carried, through the page cache: the queue holds none back after this. */
static void carry_write(struct write_queue *queue)
{
	if (!queue->carried)
		return; /* and no carry buffer outside direct mode */
	off_t from = queue->offset - (off_t)queue->carried;
	write_cached(queue, queue->carry + (from - page_down(from)), queue->carried, from);
	queue->carried = 0;
}

static void direct_stop(struct write_queue *queue)
{
	carry_write(queue);
	queue->direct = false;
}

/* After DIRECT_PROBE_BYTES, whether the device kept up: the rest through the page
 * cache where it did not. */
static void direct_probe(struct write_queue *queue)
{
	if (!queue->direct || queue->direct_bytes < DIRECT_PROBE_BYTES || queue->direct_since < 0)
		return;
	double elapsed = monotonic_seconds() - queue->direct_since;
	if (queue->wait_seconds - queue->direct_waited > DIRECT_MOST_WAITING * elapsed)
		direct_stop(queue);
	queue->direct_since = -1; /* measured once */
}

/* Direct mode's buffer: its first byte stands for the page the carried bytes start in,
 * which are copied in before the caller's place. */
static int direct_buffer(struct write_queue *queue, struct write_slot *slot, size_t min_bytes, void **buffer)
{
	off_t from = queue->offset - (off_t)queue->carried, base = page_down(from);
	size_t lead = (size_t)(queue->offset - base);
	if (slot->capacity < lead + min_bytes) {
		void *bigger;
		if (posix_memalign(&bigger, DIRECT_ALIGN, lead + min_bytes) != 0)
			return -ENOMEM;
		free(slot->data);
		slot->data = bigger;
		slot->capacity = lead + min_bytes;
	}
	memcpy(slot->data + (from - base), queue->carry + (from - base), queue->carried);
	*buffer = slot->data + lead;
	return 0;
}

int write_queue_buffer(struct write_queue *queue, size_t min_bytes, void **buffer)
{
	struct write_slot *slot;
	int error = next_slot(queue, &slot);
	if (error)
		return error;
	if (queue->carried && !queue->direct)
		carry_write(queue); /* direct mode ended in the wait for the slot */
	direct_probe(queue);
	if (queue->direct)
		return direct_buffer(queue, slot, min_bytes, buffer) ? -ENOMEM : queue->error;
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
	if (queue->direct) {
		/* direct mode's buffers are laid out by file offset: the bytes are copied */
		void *mine;
		int error = write_queue_buffer(queue, bytes, &mine);
		if (error)
			return error;
		memcpy(mine, *buffer, bytes);
		return write_queue_submit(queue, bytes);
	}
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

/* Sends the slot's bytes [skip, skip + bytes) to offset through fd. */
static int slot_send(struct write_queue *queue, struct write_slot *slot, size_t skip, size_t bytes, off_t offset,
		     int fd)
{
	slot->skip = skip;
	slot->bytes = bytes;
	slot->done = 0;
	slot->offset = offset;
	slot->fd = fd;
	slot->busy = true;
	queue->next = (queue->next + 1) % queue->depth;
	queue->sent = true;
	int fault = fault_at_fd(queue->fd);
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

/* Direct mode's submit: of the carried bytes and these, the whole pages go directly,
 * a partial page before them through the page cache, the partial page after them (or
 * all, where no page is whole) is carried. */
static int direct_submit(struct write_queue *queue, struct write_slot *slot, size_t bytes)
{
	off_t from = queue->offset - (off_t)queue->carried, to = queue->offset + (off_t)bytes;
	off_t base = page_down(from), first = page_up(from), last = page_down(to);
	queue->offset = to;
	if (last <= first) {
		memcpy(queue->carry + (from - base), slot->data + (from - base), (size_t)(to - from));
		queue->carried = (size_t)(to - from);
		return queue->error;
	}
	write_cached(queue, slot->data + (from - base), (size_t)(first - from), from);
	memcpy(queue->carry, slot->data + (last - base), (size_t)(to - last));
	queue->carried = (size_t)(to - last);
	queue->direct_bytes += last - first;
	return slot_send(queue, slot, (size_t)(first - base), (size_t)(last - first), first, queue->direct_fd);
}

int write_queue_submit(struct write_queue *queue, size_t bytes)
{
	if (queue->error)
		return queue->error;
	struct write_slot *slot = &queue->slots[queue->next];
	if (bytes == 0)
		return 0;
	if (queue->direct)
		return direct_submit(queue, slot, bytes);
	off_t offset = queue->offset;
	queue->offset += bytes;
	return slot_send(queue, slot, 0, bytes, offset, queue->fd);
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
	if (!error)
		carry_write(queue);
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
	carry_write(queue);
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
	if (queue->direct_fd >= 0)
		close(queue->direct_fd);
	free(queue->carry);
	if (queue->slots)
		for (unsigned i = 0; i < queue->depth; i++)
			free(queue->slots[i].data);
	free(queue->slots);
	free(queue);
}

int write_queue_direct(struct write_queue *queue, int direct_fd)
{
	ring_start(queue);
	if (!queue->use_ring || queue->in_flight || queue->direct_fd >= 0) {
		close(direct_fd); /* a write at a time would wait for the device in turn */
		return -ENOTSUP;
	}
	queue->carry = malloc(DIRECT_CARRY);
	if (!queue->carry) {
		close(direct_fd);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < queue->depth; i++) {
		void *aligned;
		size_t capacity = (queue->slots[i].data ? queue->slots[i].capacity : queue->slot_bytes) + DIRECT_CARRY;
		if (posix_memalign(&aligned, DIRECT_ALIGN, capacity) != 0) {
			close(direct_fd);
			return -ENOMEM;
		}
		free(queue->slots[i].data);
		queue->slots[i].data = aligned;
		queue->slots[i].capacity = capacity;
	}
	queue->direct_fd = direct_fd;
	queue->direct = true;
	queue->direct_since = monotonic_seconds();
	queue->direct_waited = queue->wait_seconds;
	return 0;
}

off_t write_queue_direct_bytes(const struct write_queue *queue)
{
	return queue->direct_bytes;
}
