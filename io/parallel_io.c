/* SPDX-License-Identifier: MIT */
/* Positional transfers split over threads (see parallel_io.h). Each thread moves one
 * contiguous piece with pread/pwrite calls of at most IO_CALL_MAX bytes, carrying on
 * after short transfers, and gives up between calls once the caller's job is stopped
 * (io_scope.h): the caller, waiting for the threads, asks every STOP_POLL_MS. */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "fault_inject.h"
#include "io_scope.h"
#include "parallel_io.h"

#define PIECE_MINIMUM ((size_t)8 << 20)
#define THREADS_MAXIMUM 16
#define STOP_POLL_MS 5

/* Whether a transfer is to stop: asked of the job (stopped) on the caller's thread, and
 * told to the pieces' threads through the flag. */
struct transfer_stop {
	bool (*stopped)(void);
	atomic_bool flag;
};

struct piece {
	int fd;
	unsigned char *data;
	size_t len;
	off_t offset;
	bool write;
	size_t done;   /* bytes moved */
	int error;     /* negative errno, or 0 */
	struct transfer_stop *stop;
	bool on_caller; /* run on the caller's thread, which may ask stopped() itself */
};

static bool piece_stopped(const struct piece *piece)
{
	struct transfer_stop *stop = piece->stop;
	if (piece->on_caller && stop->stopped && stop->stopped())
		atomic_store(&stop->flag, true);
	return atomic_load_explicit(&stop->flag, memory_order_relaxed);
}

static void *piece_run(void *context)
{
	struct piece *piece = context;
	while (piece->done < piece->len) {
		if (piece_stopped(piece)) {
			piece->error = -ECANCELED;
			break;
		}
		size_t want = piece->len - piece->done < IO_CALL_MAX ? piece->len - piece->done : IO_CALL_MAX;
		int fault = fault_at_fd(piece->fd);
		if (fault < 0) {
			piece->error = fault;
			break;
		}
		if (fault == FAULT_SHORT && want > 1)
			want /= 2;
		off_t at = piece->offset + (off_t)piece->done;
		ssize_t moved = piece->write ? pwrite(piece->fd, piece->data + piece->done, want, at)
					     : pread(piece->fd, piece->data + piece->done, want, at);
		if (moved < 0 && errno == EINTR)
			continue;
		if (moved < 0) {
			piece->error = -errno;
			break;
		}
		if (moved == 0) {
			if (piece->write)
				piece->error = -ENOSPC;
			break; /* a read at the end of the file */
		}
		piece->done += (size_t)moved;
	}
	return NULL;
}

static unsigned thread_count(size_t len)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	size_t threads = len / PIECE_MINIMUM;
	if (online > 0 && threads > (size_t)online)
		threads = (size_t)online;
	if (threads > THREADS_MAXIMUM)
		threads = THREADS_MAXIMUM;
	return threads ? (unsigned)threads : 1;
}

/* Piece i of count: page-aligned shares of len rounded up, so that the pieces cover all
 * of it. (Rounding len / count instead lost the last len % count bytes whenever that
 * quotient was already page-aligned: one key of 2^25 + 1 u32 keys on a 16-core machine.) */
void parallel_io_piece(size_t len, unsigned count, unsigned i, size_t *begin, size_t *end)
{
	size_t share = ((len + count - 1) / count + 4095) & ~(size_t)4095;
	*begin = (size_t)i * share < len ? (size_t)i * share : len;
	*end = *begin + share < len ? *begin + share : len;
}

/* Waits for a piece's thread, telling the pieces to stop once the job is stopped. */
static void piece_join(pthread_t thread, struct transfer_stop *stop)
{
	if (!stop->stopped) {
		pthread_join(thread, NULL);
		return;
	}
	for (;;) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += STOP_POLL_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		if (pthread_timedjoin_np(thread, NULL, &until) != ETIMEDOUT)
			return;
		if (stop->stopped())
			atomic_store(&stop->flag, true);
	}
}

/* Runs the pieces; returns the contiguous bytes moved from the start, or the first
 * error (-ECANCELED once the caller's job is stopped). */
static ssize_t transfer(int fd, void *buffer, size_t len, off_t offset, bool write)
{
	struct piece pieces[THREADS_MAXIMUM];
	pthread_t threads[THREADS_MAXIMUM];
	bool started[THREADS_MAXIMUM] = {false};
	struct transfer_stop stop = {io_scope_current()->stopped, false};
	/* a read's threads for the bytes the file has, not for the room it is read into
	 * (the pieces still cover all of it: the file may have grown) */
	size_t work = len;
	struct stat st;
	if (!write && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		work = st.st_size <= offset ? 0 : (uint64_t)(st.st_size - offset) < len ? (size_t)(st.st_size - offset) : len;
	unsigned count = thread_count(work);
	for (unsigned i = 0; i < count; i++) {
		size_t begin, end;
		parallel_io_piece(len, count, i, &begin, &end);
		pieces[i] = (struct piece){fd, (unsigned char *)buffer + begin, end - begin,
					  offset + (off_t)begin, write, 0, 0, &stop, false};
	}
	/* Several pieces go to threads of their own, which start with the signals that end
	 * a process blocked, while the caller waits for them in pthread_join: the kernel
	 * gives such a signal to the caller (the main thread first), where the handler runs
	 * at once, and not to a thread in pwrite asleep past signals, waiting for the file's
	 * lock that another piece's write holds or held back while the page cache writes
	 * back. */
	if (count > 1) {
		sigset_t ending, old;
		sigemptyset(&ending);
		sigaddset(&ending, SIGINT);
		sigaddset(&ending, SIGTERM);
		sigaddset(&ending, SIGHUP);
		pthread_sigmask(SIG_BLOCK, &ending, &old);
		for (unsigned i = 0; i < count; i++)
			started[i] = pthread_create(&threads[i], NULL, piece_run, &pieces[i]) == 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	for (unsigned i = 0; i < count; i++) {
		if (started[i]) {
			piece_join(threads[i], &stop);
		} else { /* one piece, or no thread to be had: moved here */
			pieces[i].on_caller = true;
			piece_run(&pieces[i]);
		}
	}
	size_t moved = 0;
	for (unsigned i = 0; i < count; i++) {
		if (pieces[i].error)
			return pieces[i].error;
		moved += pieces[i].done;
		if (pieces[i].done < pieces[i].len)
			break; /* the file ended inside this piece */
	}
	return (ssize_t)moved;
}

ssize_t parallel_pread(int fd, void *buffer, size_t len, off_t offset)
{
	return transfer(fd, buffer, len, offset, false);
}

int parallel_pwrite(int fd, const void *buffer, size_t len, off_t offset)
{
	ssize_t moved = transfer(fd, (void *)buffer, len, offset, true);
	if (moved < 0)
		return (int)moved;
	return (size_t)moved == len ? 0 : -EIO;
}
