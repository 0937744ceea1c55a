/* SPDX-License-Identifier: MIT */
/* An output written past the page cache (output_file_uncached, write_queue_direct): the
 * parallel merge's way, threads that each take a range of the output, seek their queue
 * to its start and write it in blocks. Ranges and blocks of every size around a page:
 * ranges that start and end mid-page, ranges inside one page, empty ones; blocks of one
 * byte up to several pages, through write_queue_buffer and write_queue_submit_exchange.
 * The file must hold exactly the bytes meant for it, whole pages must have gone past the
 * page cache (none where io_uring cannot start: the queues then stay on it), and an
 * injected write error (GPUSORT_FAULT, from
 * test_io_uncached_faults.sh) must come back from the queue. Skipped where the
 * directory's file system takes no O_DIRECT, and on a tmpfs (never past its cache). */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "io/fault_inject.h"
#include "io/file_map.h"
#include "io/io_ring.h"
#include "io/output_file.h"
#include "io/write_queue.h"
#include "tests/distributions.h"
#include "tests/tap.h"

#define PAGE 4096
#define THREADS 3
#define DEPTH 3

static char dir[PATH_MAX];

struct layout {
	const unsigned char *data;
	size_t total;
	size_t *cuts;     /* range j is [cuts[j], cuts[j + 1]) */
	size_t ranges;
	size_t block_max; /* blocks of 1 to block_max bytes */
	uint64_t seed;
};

struct writer {
	const struct layout *layout;
	struct output_file *file;
	atomic_size_t *next_range;
	pthread_t thread;
	int error;
	off_t direct_bytes;
	unsigned index;
};

/* One thread's share: ranges taken in turn, each written in blocks of random sizes,
 * every other block lent whole (submit_exchange). */
static void *writer_main(void *context)
{
	struct writer *w = context;
	const struct layout *layout = w->layout;
	uint64_t seed = layout->seed * 31 + w->index;
	struct write_queue *queue;
	w->error = output_file_write_queue(w->file, DEPTH, layout->block_max, &queue);
	if (w->error)
		return NULL;
	output_file_uncached(w->file, queue);
	size_t lent_capacity = layout->block_max;
	unsigned char *lent = malloc(lent_capacity);
	for (;;) {
		size_t j = atomic_fetch_add(w->next_range, 1);
		if (j >= layout->ranges || w->error)
			break;
		size_t at = layout->cuts[j], end = layout->cuts[j + 1];
		if ((w->error = write_queue_seek(queue, (off_t)at)) != 0)
			break;
		while (at < end && !w->error) {
			size_t bytes = 1 + random_next(&seed) % layout->block_max;
			if (bytes > end - at)
				bytes = end - at;
			if (random_next(&seed) & 1) {
				void *buffer;
				if ((w->error = write_queue_buffer(queue, bytes, &buffer)) == 0) {
					memcpy(buffer, layout->data + at, bytes);
					w->error = write_queue_submit(queue, bytes);
				}
			} else {
				memcpy(lent, layout->data + at, bytes);
				void *block = lent;
				w->error = write_queue_submit_exchange(queue, &block, &lent_capacity, bytes);
				lent = block;
			}
			at += bytes;
		}
	}
	int last = write_queue_wait(queue);
	if (!w->error)
		w->error = last;
	w->direct_bytes = write_queue_direct_bytes(queue);
	write_queue_close(queue);
	free(lent);
	return NULL;
}

static unsigned char *slurp(const char *path, size_t *bytes)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	unsigned char *data = malloc((size_t)st.st_size + 1);
	size_t have = 0;
	ssize_t got;
	while (have < (size_t)st.st_size && (got = read(fd, data + have, (size_t)st.st_size - have)) > 0)
		have += (size_t)got;
	close(fd);
	*bytes = have;
	return data;
}

/* Writes layout to a new output through THREADS threads; the first error, or 0 and
 * the bytes that went past the page cache in *direct. */
static int write_output(const struct layout *layout, const char *path, off_t *direct)
{
	struct output_file *file;
	int error = output_file_open(path, &file);
	if (error)
		return error;
	if (!output_file_uncached_wanted(file, layout->total, 1)) {
		output_file_abort(file);
		return -ENOTSUP;
	}
	atomic_size_t next_range;
	atomic_init(&next_range, 0);
	struct writer writers[THREADS];
	*direct = 0;
	for (unsigned t = 0; t < THREADS; t++) {
		writers[t] = (struct writer){.layout = layout, .file = file, .next_range = &next_range, .index = t};
		pthread_create(&writers[t].thread, NULL, writer_main, &writers[t]);
	}
	for (unsigned t = 0; t < THREADS; t++) {
		pthread_join(writers[t].thread, NULL);
		if (writers[t].error && !error)
			error = writers[t].error;
		*direct += writers[t].direct_bytes;
	}
	if (error) {
		output_file_abort(file);
		return error;
	}
	return output_file_commit(file);
}

/* Cuts [0, total) into ranges: at random places, at page boundaries, a byte either side
 * of them, and twice at the same place (an empty range). */
static size_t make_cuts(size_t total, size_t ranges, uint64_t *seed, size_t *cuts)
{
	cuts[0] = 0;
	for (size_t j = 1; j < ranges; j++) {
		size_t at = (size_t)(random_next(seed) % (total + 1));
		switch (random_next(seed) % 5) {
		case 0:
			at = at / PAGE * PAGE;
			break;
		case 1:
			at = at / PAGE * PAGE + 1;
			break;
		case 2:
			at = at / PAGE * PAGE + PAGE - 1;
			break;
		case 3:
			at = cuts[j - 1] + random_next(seed) % (2 * PAGE); /* a short range */
			break;
		}
		if (at > total)
			at = total;
		cuts[j] = at;
	}
	cuts[ranges] = total;
	/* in order: a range is [cuts[j], cuts[j + 1]) */
	for (size_t i = 1; i < ranges; i++)
		for (size_t j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
			size_t swap = cuts[j];
			cuts[j] = cuts[j - 1];
			cuts[j - 1] = swap;
		}
	return ranges;
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/test_io_uncached.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		tap_plan_skip_all("no temp directory");
		return 0;
	}
	char probe[PATH_MAX + 16];
	snprintf(probe, sizeof probe, "%s/probe", dir);
	int fd = open(probe, O_CREAT | O_WRONLY | O_DIRECT, 0600);
	bool in_memory = fd >= 0 && file_in_memory(fd);
	if (fd >= 0)
		close(fd);
	unlink(probe);
	bool faults = getenv("GPUSORT_FAULT") != NULL;
	if (fd < 0 || in_memory) {
		rmdir(dir);
		tap_plan_skip_all(in_memory ? "the temp directory is in memory (tmpfs): no output there goes past a page cache"
					    : "the temp directory's file system takes no O_DIRECT");
		return 0;
	}
	fault_arm(getenv("GPUSORT_FAULT"));
	/* without io_uring the queues stay on the page cache (write_queue_direct): the
	 * bytes must still be right, and none go direct */
	struct io_uring probe_ring;
	bool ring = io_ring_init(&probe_ring, 2) == 0;
	if (ring)
		io_uring_queue_exit(&probe_ring);
	else
		tap_diag("io_uring cannot start here: every write goes through the page cache");
	char path[PATH_MAX + 16];
	snprintf(path, sizeof path, "%s/out", dir);

	if (faults) {
		/* test_io_uncached_faults.sh: the third write of the output fails */
		size_t total = 1 << 20, cuts[2];
		uint64_t seed = 7;
		unsigned char *data = malloc(total);
		for (size_t i = 0; i < total; i++)
			data[i] = (unsigned char)(random_next(&seed) >> 56);
		struct layout layout = {data, total, cuts, make_cuts(total, 1, &seed, cuts), 64 << 10, 7};
		off_t direct;
		int error = write_output(&layout, path, &direct);
		tap_ok(error == -EIO, "an injected EIO in a direct write comes back from the queue (%d)", error);
		struct stat st;
		tap_ok(stat(path, &st) != 0, "and no output is left");
		free(data);
		rmdir(dir);
		return tap_done();
	}

	/* totals around pages, and random ones; ranges and block sizes varied */
	const size_t totals[] = {1, PAGE - 1, PAGE, PAGE + 1, 2 * PAGE - 1, 3 * PAGE + 7, 65535, 65536, 65537,
				 1 << 20, (1 << 20) + 4095, 3000001};
	const size_t block_maxes[] = {1, 100, PAGE, 3 * PAGE + 5, 256 << 10};
	uint64_t seed = 2026112812;
	for (size_t t = 0; t < sizeof totals / sizeof *totals; t++)
		for (size_t b = 0; b < sizeof block_maxes / sizeof *block_maxes; b++) {
			size_t total = totals[t], block_max = block_maxes[b];
			if (block_max == 1 && total > 70000)
				continue; /* a byte a write: slow and says nothing more */
			unsigned char *data = malloc(total);
			for (size_t i = 0; i < total; i++)
				data[i] = (unsigned char)(random_next(&seed) >> 56);
			size_t ranges = 1 + random_next(&seed) % 24;
			size_t *cuts = malloc((ranges + 1) * sizeof *cuts);
			struct layout layout = {data, total, cuts, make_cuts(total, ranges, &seed, cuts), block_max, seed};
			off_t direct = 0;
			int error = write_output(&layout, path, &direct);
			size_t have = 0;
			unsigned char *written = error ? NULL : slurp(path, &have);
			bool same = written && have == total && memcmp(written, data, total) == 0;
			/* whole pages inside a range that blocks of a page or more filled go past the
			 * page cache: some do in every output of a few ranges of 64 KiB */
			bool past = ring ? total < (1 << 20) || block_max < PAGE || direct > 0 : direct == 0;
			tap_ok(!error && same && past, "%zu bytes in %zu ranges, blocks up to %zu: %s, %lld bytes direct",
			       total, ranges, block_max, error ? strerror(-error) : same ? "the same bytes" : "different bytes",
			       (long long)direct);
			unlink(path);
			free(written);
			free(cuts);
			free(data);
		}

	/* where not wanted: not for a stdout, never when told so (GPUSORT_OUTPUT_DIRECT=0) */
	struct output_file *file;
	int error = output_file_open(path, &file);
	tap_ok(!error && !output_file_uncached_wanted(file, (uint64_t)1 << 40, 0), "GPUSORT_OUTPUT_DIRECT=0: never");
	if (!error)
		output_file_abort(file);
	error = output_file_open(NULL, &file);
	tap_ok(!error && !output_file_uncached_wanted(file, 1 << 20, 1), "stdout: never");
	if (!error)
		output_file_abort(file);
	rmdir(dir);
	return tap_done();
}
