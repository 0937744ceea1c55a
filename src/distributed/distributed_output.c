/* SPDX-License-Identifier: MIT */
/* The one output of a distributed sort (see distributed_output.h). */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "distributed_output.h"
#include "../common/environment.h"
#include "../common/report.h"
#include "../pipeline/output_check.h"
#include "../../io/fault_inject.h"
#include "../../io/file_map.h"
#include "../../io/output_file.h"
#include "../../io/parallel_io.h"
#include "../../io/temp_files.h"

int distributed_output_open(const struct cluster *cluster, const struct output_target *target,
			    struct distributed_output *output)
{
	char twin[PATH_MAX] = "";
	memset(output, 0, sizeof *output);
	output->fd = -1;
	output->name = report_output_name(target->to_fd ? NULL : target->name);
	int error = 0;
	if (cluster->rank == 0) {
		error = output_open(target, &output->file); /* reports */
		const char *path = error ? NULL : output_file_temp_path(output->file);
		if (path && strlen(path) < sizeof twin)
			snprintf(twin, sizeof twin, "%s", path);
	}
	if ((error = cluster_agree(cluster, error)) != 0)
		return error;
	cluster_broadcast(cluster, twin, sizeof twin, 0);
	/* a twin the other ranks cannot open (another machine's -T directory) sends the
	 * ranges through rank 0 instead */
	if (twin[0]) {
		/* read too where the twin's mode allows: a shared mapping needs it */
		output->fd = open(twin, O_RDWR | O_CLOEXEC);
		if (output->fd < 0 && errno == EACCES)
			output->fd = open(twin, O_WRONLY | O_CLOEXEC);
	}
	/* the other ranks remove the twin too on signals: rank 0 may be killed outright */
	if (cluster->rank != 0 && output->fd >= 0 && (output->twin = strdup(twin)) != NULL &&
	    temp_file_register(output->twin) != 0) {
		free(output->twin);
		output->twin = NULL;
	}
	fault_tag(output->fd, FAULT_RANGE_WRITE);
	output->positional = cluster_agree(cluster, twin[0] && output->fd >= 0 ? 0 : -ENOENT) == 0;
	if (!output->positional && output->fd >= 0) {
		close(output->fd);
		output->fd = -1;
	}
	return 0;
}

/* [offset, offset + length) of the twin into map, where mapping it pays and can be. */
static int map_range(struct distributed_output *output, uint64_t offset, uint64_t length, struct file_map *map)
{
	/* a rank's range is worth mapping at any size */
	if (!output->positional || output->fd < 0 || !file_map_wanted(environment_switch(ENVIRONMENT_OUTPUT_MAP), length, 0))
		return 0;
	return file_map_range(output->fd, offset, length, false, map);
}

int distributed_output_map(struct distributed_output *output, uint64_t offset, uint64_t length)
{
	/* the pages faulted in ahead, where they hold the range: their mapping is taken over
	 * (a new one would fault every page in again) */
	const struct file_map *ahead = &output->ahead;
	file_prefault_stop(&output->prefault);
	if (ahead->bytes && ahead->from <= offset && offset + length <= ahead->from + ahead->length) {
		file_map_release(&output->mapping);
		output->mapping = output->ahead;
		output->ahead = (struct file_map){.bytes = NULL};
		return 0;
	}
	file_map_release(&output->ahead);
	return map_range(output, offset, length, &output->mapping);
}

int distributed_output_prefault_start(struct distributed_output *output, uint64_t offset, uint64_t length,
				      uint64_t total)
{
	/* mapped with some room either side, since the range comes out about, not exactly,
	 * where the share lies; the share's place faulted in */
	uint64_t slack = length / 16 + ((uint64_t)1 << 20);
	uint64_t from = offset > slack ? offset - slack : 0;
	uint64_t to = total - (offset + length) > slack ? offset + length + slack : total;
	int error = map_range(output, from, to - from, &output->ahead);
	if (!error)
		file_prefault_start(&output->prefault, &output->ahead, offset, length);
	return error;
}

void distributed_output_prefault_stop(struct distributed_output *output)
{
	file_prefault_stop(&output->prefault);
}

int distributed_output_write_at(struct distributed_output *output, const void *bytes, size_t length, uint64_t offset)
{
	int copied = file_map_copy(&output->mapping, offset, bytes, length);
	if (copied)
		return copied < 0 ? copied : 0;
	return write_whole_at(output->fd, bytes, length, offset);
}

int write_whole_at(int fd, const void *bytes, size_t length, uint64_t offset)
{
	const unsigned char *from = bytes;
	while (length) {
		int fault = fault_at_fd(fd);
		if (fault < 0)
			return fault;
		size_t want = length < IO_CALL_MAX ? length : IO_CALL_MAX; /* a signal waits for one call */
		if (fault == FAULT_SHORT && want > 1)
			want /= 2;
		ssize_t wrote = pwrite(fd, from, want, (off_t)offset);
		if (wrote < 0 && errno == EINTR)
			continue;
		if (wrote <= 0)
			return wrote < 0 ? -errno : -EIO;
		from += wrote;
		offset += (uint64_t)wrote;
		length -= (size_t)wrote;
	}
	return 0;
}

static int read_at(int fd, unsigned char *buffer, size_t length, uint64_t offset)
{
	while (length) {
		ssize_t got = pread(fd, buffer, length < IO_CALL_MAX ? length : IO_CALL_MAX, (off_t)offset);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return got < 0 ? -errno : -EIO;
		buffer += got;
		offset += (uint64_t)got;
		length -= (size_t)got;
	}
	return 0;
}

/* Positional: the piece copied into the twin at offset. */
static int put_at(struct distributed_output *output, int piece_fd, const char *piece_name, uint64_t bytes,
		  uint64_t offset, unsigned char *buffer, size_t chunk)
{
	for (uint64_t done = 0; done < bytes;) {
		size_t length = bytes - done < chunk ? (size_t)(bytes - done) : chunk;
		int error = read_at(piece_fd, buffer, length, done);
		if (error) {
			report_file_error(piece_name, error);
			return error;
		}
		if ((error = distributed_output_write_at(output, buffer, length, offset + done)) != 0) {
			report_file_error(output->name, error);
			return error;
		}
		done += length;
	}
	return 0;
}

/* Through rank 0: every rank's size, then its bytes in chunks, rank after rank. What a
 * rank cannot read it still sends (whatever the buffer holds) and what rank 0 cannot
 * write it still receives, so that no rank waits forever; the error decides later. */
static int put_through_root(const struct cluster *cluster, struct distributed_output *output, int piece_fd,
			    const char *piece_name, uint64_t bytes, unsigned char *buffer, size_t chunk)
{
	int error = 0;
	if (cluster->rank != 0) {
		cluster_send(cluster, &bytes, sizeof bytes, 0);
		for (uint64_t done = 0; done < bytes;) {
			size_t length = bytes - done < chunk ? (size_t)(bytes - done) : chunk;
			if (!error && (error = read_at(piece_fd, buffer, length, done)) != 0)
				report_file_error(piece_name, error);
			cluster_send(cluster, buffer, length, 0);
			done += length;
		}
		return error;
	}
	for (int r = 0; r < cluster->size; r++) {
		uint64_t incoming = bytes;
		if (r > 0)
			cluster_receive(cluster, &incoming, sizeof incoming, r);
		for (uint64_t done = 0; done < incoming;) {
			size_t length = incoming - done < chunk ? (size_t)(incoming - done) : chunk;
			if (r == 0) {
				if (!error && (error = read_at(piece_fd, buffer, length, done)) != 0)
					report_file_error(piece_name, error);
			} else {
				cluster_receive(cluster, buffer, length, r);
			}
			if (!error && (error = output_file_write(output->file, buffer, length)) != 0)
				report_file_error(output->name, error);
			done += length;
		}
	}
	return error;
}

int distributed_output_put(const struct cluster *cluster, struct distributed_output *output, int piece_fd,
			   const char *piece_name, uint64_t bytes, uint64_t offset, size_t chunk)
{
	unsigned char *buffer = malloc(chunk);
	int error = cluster_agree(cluster, buffer ? 0 : -ENOMEM);
	if (!error)
		error = output->positional ? put_at(output, piece_fd, piece_name, bytes, offset, buffer, chunk)
					   : put_through_root(cluster, output, piece_fd, piece_name, bytes, buffer, chunk);
	else if (!buffer)
		report_errno(-ENOMEM);
	free(buffer);
	return error;
}

int distributed_output_finish(const struct cluster *cluster, struct distributed_output *output, int error)
{
	distributed_output_prefault_stop(output);
	file_map_release(&output->ahead);
	file_map_release(&output->mapping);
	if (output->fd >= 0 && close(output->fd) != 0 && !error) {
		error = -errno;
		report_file_error(output->name, error);
	}
	output->fd = -1;
	error = cluster_agree(cluster, error);
	int committed = error;
	if (cluster->rank == 0 && output->file) {
		if (error) {
			output_file_abort(output->file);
		} else if ((committed = output_file_commit(output->file)) != 0) {
			report_file_error(output->name, committed);
		}
		output->file = NULL;
	}
	cluster_broadcast(cluster, &committed, sizeof committed, 0);
	/* renamed into place or removed by rank 0 */
	if (output->twin) {
		temp_file_forget(output->twin);
		free(output->twin);
		output->twin = NULL;
	}
	return committed;
}
