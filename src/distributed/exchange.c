/* SPDX-License-Identifier: MIT */
/* The all-to-all exchange of key ranges (see exchange.h). */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "exchange.h"
#include "../common/environment.h"
#include "../common/report.h"
#include "../../io/fault_inject.h"
#include "../../io/parallel_io.h"
#include "../../io/temp_files.h"

static double seconds_now(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec + now.tv_nsec / 1e9;
}

/* Appends length bytes to a received file (faults injected as temp_write). */
static int append(int fd, const unsigned char *bytes, size_t length)
{
	while (length) {
		int fault = fault_at(FAULT_TEMP_WRITE);
		if (fault < 0)
			return fault;
		size_t want = length < IO_CALL_MAX ? length : IO_CALL_MAX; /* a signal waits for one call */
		if (fault == FAULT_SHORT && want > 1)
			want /= 2;
		ssize_t wrote = write(fd, bytes, want);
		if (wrote < 0 && errno == EINTR)
			continue;
		if (wrote <= 0)
			return wrote < 0 ? -errno : -EIO;
		bytes += wrote;
		length -= (size_t)wrote;
	}
	return 0;
}

static size_t smaller(uint64_t a, size_t b)
{
	return a < b ? (size_t)a : b;
}

/* What a rank says of its run, for the others to find it: its identity, then its name
 * (NUL-terminated) right after, at any alignment in the gathered bytes. */
struct run_identity {
	uint64_t device, inode, size;
};

/* The file at path opened, where it is the run described (the same device, inode and
 * size), else -1. */
static int run_open_shared(const struct run_identity *identity, const char *path)
{
	if (fault_at(FAULT_RUN_SHARE) != 0)
		return -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	bool same = fstat(fd, &st) == 0 && (uint64_t)st.st_dev == identity->device &&
		    (uint64_t)st.st_ino == identity->inode && (uint64_t)st.st_size == identity->size;
	if (!same) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Whether this process can open the file of fd again through /proc/self/fd. */
static bool descriptor_reopens(int fd)
{
	char path[32];
	struct stat st, again_st;
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	int again = open(path, O_RDONLY | O_CLOEXEC);
	bool same = again >= 0 && fstat(fd, &st) == 0 && fstat(again, &again_st) == 0 &&
		    st.st_dev == again_st.st_dev && st.st_ino == again_st.st_ino;
	if (again >= 0)
		close(again);
	return same;
}

/* Whether every rank can open every other rank's run by its name; if so, paths[s] is
 * rank s's and fds[s] this rank's descriptor of it, and exchange->by_descriptor says
 * whether every rank can open its descriptors again (the runs' names may then go).
 * Collective. */
static int runs_shared(const struct cluster *cluster, const struct local_run *run, char (*paths)[PATH_MAX],
		       struct exchange *exchange)
{
	int *fds = exchange->fds;
	bool *shared = &exchange->shared;
	bool refuse = environment_switch(ENVIRONMENT_SHARED_RUNS) == 0;
	size_t name = strlen(run->path) + 1, length = sizeof(struct run_identity) + name;
	unsigned char *mine = malloc(length);
	uint64_t *offsets = malloc(((size_t)cluster->size + 1) * sizeof *offsets);
	unsigned char *all = NULL;
	struct run_identity identity = {0, 0, 0};
	struct stat st;
	*shared = false;
	if (!mine || !offsets)
		report_errno(-ENOMEM);
	int error = cluster_agree(cluster, mine && offsets ? 0 : -ENOMEM);
	if (error)
		goto out;
	if (fstat(run->fd, &st) == 0)
		identity = (struct run_identity){(uint64_t)st.st_dev, (uint64_t)st.st_ino, (uint64_t)st.st_size};
	else
		refuse = true;
	memcpy(mine, &identity, sizeof identity);
	memcpy(mine + sizeof identity, run->path, name);
	error = cluster_allgather_bytes(cluster, mine, length, &all, offsets);
	for (int s = 0; s < cluster->size && !error && !refuse; s++) {
		size_t bytes = offsets[s + 1] - offsets[s];
		refuse = bytes <= sizeof identity || bytes - sizeof identity > PATH_MAX;
		if (refuse)
			break;
		struct run_identity theirs;
		const char *path = (const char *)all + offsets[s] + sizeof theirs;
		memcpy(&theirs, all + offsets[s], sizeof theirs);
		refuse = path[bytes - sizeof theirs - 1] != '\0' ||
			 (s != cluster->rank && (fds[s] = run_open_shared(&theirs, path)) < 0);
		if (!refuse)
			memcpy(paths[s], path, bytes - sizeof theirs);
	}
	if (error)
		report_errno(error);
	if ((error = cluster_agree(cluster, error)) == 0)
		*shared = cluster_max(cluster, refuse) == 0;
	/* every run open on every rank: the merges may read them through the descriptors */
	if (!error && *shared)
		exchange->by_descriptor = cluster_max(cluster, !descriptor_reopens(run->fd)) == 0;
out:
	for (int s = 0; !*shared && s < cluster->size; s++)
		if (s != cluster->rank && fds[s] >= 0) {
			close(fds[s]);
			fds[s] = -1;
		}
	free(mine);
	free(all);
	free(offsets);
	return error;
}

/* The ranges through MPI, in rounds, each received into a temp file per sender. */
static int transfer(const struct cluster *cluster, const struct local_run *run, const uint64_t *cuts,
		    const uint64_t *lengths, size_t batch, const char *dir, struct exchange *exchange)
{
	int size = cluster->size, me = cluster->rank, error = 0;
	uint64_t *sent = calloc(size, sizeof *sent), *got = calloc(size, sizeof *got);
	size_t *numbers = calloc(4 * (size_t)size, sizeof *numbers);
	int *fds = malloc(size * sizeof *fds);
	unsigned char *send = malloc((size_t)size * batch), *recv = malloc((size_t)size * batch);
	bool ready = sent && got && numbers && fds && send && recv;
	if (!ready)
		report_errno(-ENOMEM);
	/* a rank without its buffers cannot take part: then none does */
	if ((error = cluster_agree(cluster, ready ? 0 : -ENOMEM)) != 0)
		goto out;
	for (int s = 0; s < size; s++) {
		fds[s] = -1;
		if (s == me || exchange->received[s] == 0 || error)
			continue;
		fds[s] = temp_file_create_preferring(dir, exchange->paths[s], sizeof exchange->paths[s]);
		if (fds[s] < 0) {
			error = fds[s];
			report_temp_create_error(exchange->paths[s], error);
			exchange->paths[s][0] = '\0';
		}
	}
	/* the rounds: as many as the longest range between two ranks needs */
	uint64_t longest = 0;
	for (int r = 0; r < size; r++)
		if (r != me) {
			if (lengths[r] > longest)
				longest = lengths[r];
			if (exchange->received[r] > longest)
				longest = exchange->received[r];
		}
	exchange->rounds = cluster_max(cluster, (longest + batch - 1) / batch);
	size_t *send_counts = numbers, *send_offsets = numbers + size, *recv_counts = numbers + 2 * size,
	       *recv_offsets = numbers + 3 * size;
	for (uint64_t round = 0; round < exchange->rounds; round++) {
		for (int r = 0; r < size; r++) {
			send_offsets[r] = recv_offsets[r] = (size_t)r * batch;
			send_counts[r] = r == me ? 0 : smaller(lengths[r] - sent[r], batch);
			recv_counts[r] = r == me ? 0 : smaller(exchange->received[r] - got[r], batch);
			/* after a failure the counts still go out, with whatever the buffer holds */
			if (send_counts[r] && !error) {
				error = local_run_read(run, send + send_offsets[r], send_counts[r], cuts[r] + sent[r]);
				if (error)
					report_error(error, "%s: %s", run->path, strerror(-error));
			}
			sent[r] += send_counts[r];
		}
		int failed = cluster_alltoall_bytes(cluster, send, send_counts, send_offsets, recv, recv_counts,
						    recv_offsets);
		if (failed && !error)
			error = failed;
		for (int s = 0; s < size; s++) {
			if (recv_counts[s] && !error) {
				error = append(fds[s], recv + recv_offsets[s], recv_counts[s]);
				if (error)
					report_file_error(exchange->paths[s], error);
			}
			got[s] += recv_counts[s];
			exchange->received_bytes += recv_counts[s];
			exchange->sent_bytes += send_counts[s];
		}
	}
out:
	if (fds)
		for (int s = 0; s < size; s++)
			if (fds[s] >= 0)
				close(fds[s]);
	free(sent);
	free(got);
	free(numbers);
	free(fds);
	free(send);
	free(recv);
	return error;
}

int exchange_run(const struct cluster *cluster, const struct local_run *run, const uint64_t *cuts, size_t batch,
		 const char *dir, struct exchange *exchange)
{
	int size = cluster->size, me = cluster->rank, error = 0;
	double started = seconds_now();
	memset(exchange, 0, sizeof *exchange);
	uint64_t *lengths = calloc(size, sizeof *lengths);
	exchange->paths = calloc(size, sizeof *exchange->paths);
	exchange->bases = calloc(size, sizeof *exchange->bases);
	exchange->received = calloc(size, sizeof *exchange->received);
	exchange->fds = malloc(size * sizeof *exchange->fds);
	for (int s = 0; exchange->fds && s < size; s++)
		exchange->fds[s] = s == me ? run->fd : -1;
	bool ready = lengths && exchange->paths && exchange->bases && exchange->received && exchange->fds;
	if (!ready)
		report_errno(-ENOMEM);
	if ((error = cluster_agree(cluster, ready ? 0 : -ENOMEM)) != 0)
		goto out;
	for (int r = 0; r < size; r++)
		lengths[r] = cuts[r + 1] - cuts[r];
	/* what each rank gives this one, and where that starts in its run */
	if ((error = cluster_alltoall(cluster, lengths, exchange->received)) != 0 ||
	    (error = cluster_alltoall(cluster, cuts, exchange->bases)) != 0 ||
	    (error = runs_shared(cluster, run, exchange->paths, exchange)) != 0)
		goto out;
	if (exchange->shared) {
		for (int s = 0; s < size; s++)
			if (s != me)
				exchange->received_bytes += exchange->received[s];
		exchange->sent_bytes = run->size - lengths[me];
	} else {
		memset(exchange->paths, 0, size * sizeof *exchange->paths);
		memset(exchange->bases, 0, size * sizeof *exchange->bases);
		error = transfer(cluster, run, cuts, lengths, batch, dir, exchange);
	}
	memcpy(exchange->paths[me], run->path, sizeof exchange->paths[me]);
	exchange->bases[me] = cuts[me];
out:
	free(lengths);
	exchange->seconds = seconds_now() - started;
	return error;
}

void exchange_free(const struct cluster *cluster, struct exchange *exchange)
{
	/* the runs are their ranks' to remove, this one's too */
	if (exchange->paths && !exchange->shared)
		for (int s = 0; s < cluster->size; s++)
			if (s != cluster->rank && exchange->paths[s][0])
				temp_file_remove(exchange->paths[s]);
	for (int s = 0; exchange->fds && s < cluster->size; s++)
		if (s != cluster->rank && exchange->fds[s] >= 0)
			close(exchange->fds[s]);
	free(exchange->fds);
	free(exchange->paths);
	free(exchange->bases);
	free(exchange->received);
	memset(exchange, 0, sizeof *exchange);
}

const char *exchange_open_path(const struct exchange *exchange, int s, char *buffer, size_t size)
{
	if (!exchange->by_descriptor || exchange->fds[s] < 0)
		return exchange->paths[s];
	snprintf(buffer, size, "/proc/self/fd/%d", exchange->fds[s]);
	return buffer;
}
