/* SPDX-License-Identifier: MIT */
/* A rank's share of the inputs (see input_share.h). */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "input_share.h"
#include "../common/report.h"

/* The inputs taken as one stream of bytes: input i's are [starts[i], starts[i] + sizes[i])
 * of total; record_size 0: lines ended by eol. quiet: failures are not reported. */
struct joined_inputs {
	const struct input_list *inputs;
	uint64_t *starts, *sizes, total;
	size_t record_size;
	unsigned char eol;
	bool quiet;
};

/* The first record boundary at or after global position at: an input's start and end
 * are boundaries; inside one, the byte after a terminator. */
static int line_boundary(const struct joined_inputs *joined, uint64_t at, uint64_t *boundary)
{
	const struct input_list *inputs = joined->inputs;
	const uint64_t *starts = joined->starts, *sizes = joined->sizes;
	unsigned char eol = joined->eol;
	bool quiet = joined->quiet;
	size_t i = 0;
	while (i < inputs->count && at >= starts[i] + sizes[i])
		i++;
	if (i == inputs->count || at == starts[i]) {
		*boundary = at;
		return 0;
	}
	int fd = open(inputs->names[i], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int error = -errno;
		if (!quiet)
			report_file_error(inputs->names[i], error);
		return error;
	}
	/* the line that holds the byte before at ends the part before */
	unsigned char buffer[65536];
	uint64_t offset = at - starts[i] - 1;
	int error = 0;
	*boundary = starts[i] + sizes[i];
	while (offset < sizes[i]) {
		ssize_t got = pread(fd, buffer, sizeof buffer, (off_t)offset);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			error = got < 0 ? -errno : 0;
			break;
		}
		const unsigned char *end = memchr(buffer, eol, (size_t)got);
		if (end) {
			*boundary = starts[i] + offset + (uint64_t)(end - buffer) + 1;
			break;
		}
		offset += (uint64_t)got;
	}
	close(fd);
	if (error && !quiet)
		report_file_error(inputs->names[i], error);
	return error;
}

/* Global position to cut at, before rank r's share. */
static int share_cut(const struct joined_inputs *joined, int r, int size, uint64_t *cut)
{
	/* r x total / size without overflow for any file size */
	uint64_t at = (uint64_t)((unsigned __int128)joined->total * (unsigned)r / (unsigned)size);
	if (joined->record_size) {
		*cut = at / joined->record_size * joined->record_size;
		return 0;
	}
	return line_boundary(joined, at, cut);
}

int input_share_plan(const struct input_list *inputs, size_t record_size, unsigned char eol, int rank, int size,
		     bool quiet, struct input_share *share)
{
	memset(share, 0, sizeof *share);
	size_t count = inputs->count;
	uint64_t *starts = calloc(count, sizeof *starts), *sizes = calloc(count, sizeof *sizes);
	share->names = calloc(count, sizeof *share->names);
	share->ranges = calloc(count, sizeof *share->ranges);
	int error = -ENOMEM;
	if (!starts || !sizes || !share->names || !share->ranges) {
		if (!quiet)
			report_errno(-ENOMEM);
		goto out;
	}
	bool cuttable = true;
	uint64_t total = 0;
	for (size_t i = 0; i < count; i++) {
		struct stat st;
		const char *name = inputs->names[i];
		if (strcmp(name, "-") == 0) {
			cuttable = false;
			continue;
		}
		if (stat(name, &st) != 0) {
			error = -errno;
			if (!quiet)
				report_file_error(name, error);
			goto out;
		}
		if (S_ISDIR(st.st_mode)) {
			error = -EISDIR;
			if (!quiet)
				report_file_error(name, error);
			goto out;
		}
		if (!S_ISREG(st.st_mode)) {
			cuttable = false;
			continue;
		}
		if (record_size && (uint64_t)st.st_size % record_size) {
			error = -EINVAL;
			if (!quiet)
				report_partial_record(name, (uint64_t)st.st_size, record_size);
			goto out;
		}
		starts[i] = total;
		sizes[i] = (uint64_t)st.st_size;
		total += sizes[i];
	}
	error = 0;
	if (!cuttable) {
		/* rank 0 reads every input whole, in order */
		free(share->ranges);
		share->ranges = NULL;
		if (rank == 0) {
			for (size_t i = 0; i < count; i++)
				share->names[i] = inputs->names[i];
			share->count = count;
		}
		goto out;
	}
	const struct joined_inputs joined = {inputs, starts, sizes, total, record_size, eol, quiet};
	uint64_t begin, end;
	if ((error = share_cut(&joined, rank, size, &begin)) != 0 || (error = share_cut(&joined, rank + 1, size, &end)) != 0)
		goto out;
	for (size_t i = 0; i < count && begin < end; i++) {
		uint64_t from = begin > starts[i] ? begin : starts[i];
		uint64_t to = end < starts[i] + sizes[i] ? end : starts[i] + sizes[i];
		if (from >= to)
			continue;
		share->names[share->count] = inputs->names[i];
		share->ranges[share->count].offset = from - starts[i];
		share->ranges[share->count].length = to - from;
		share->count++;
		share->bytes += to - from;
	}
out:
	free(starts);
	free(sizes);
	if (error)
		input_share_free(share);
	return error;
}

void input_share_free(struct input_share *share)
{
	free(share->names);
	free(share->ranges);
	memset(share, 0, sizeof *share);
}
