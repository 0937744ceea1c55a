/* SPDX-License-Identifier: MIT */
/* Splitters across ranks (see splitters.h). */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "splitters.h"

/* An encoded sample: rank, position, length (64 bits each), then the bytes, padded to
 * a multiple of 8. */
#define SAMPLE_HEADER 24
/* Samples per rank: enough that the ranges come out within a few percent of equal,
 * few enough that gathering them stays cheap on many ranks. */
#define SAMPLES_MIN 256
#define SAMPLES_MAX 4096

static size_t padded(size_t len)
{
	return (len + 7) & ~(size_t)7;
}

size_t splitters_sample_count(int ranks)
{
	size_t each = (size_t)ranks * 16;
	return each < SAMPLES_MIN ? SAMPLES_MIN : each > SAMPLES_MAX ? SAMPLES_MAX : each;
}

/* Appends one encoded sample to the buffer (grown as needed). */
static int sample_append(unsigned char **buffer, size_t *used, size_t *capacity, int rank, uint64_t position,
			 const unsigned char *record, size_t len)
{
	size_t need = *used + SAMPLE_HEADER + padded(len);
	if (need > *capacity) {
		size_t grown = *capacity ? *capacity * 2 : 4096;
		while (grown < need)
			grown *= 2;
		unsigned char *more = realloc(*buffer, grown);
		if (!more)
			return -ENOMEM;
		*buffer = more;
		*capacity = grown;
	}
	uint64_t header[3] = {(uint64_t)rank, position, len};
	memcpy(*buffer + *used, header, SAMPLE_HEADER);
	memcpy(*buffer + *used + SAMPLE_HEADER, record, len);
	memset(*buffer + *used + SAMPLE_HEADER + len, 0, padded(len) - len);
	*used = need;
	return 0;
}

int splitters_sample(struct local_run *run, int rank, size_t count, unsigned char **encoded, size_t *bytes)
{
	size_t used = 0, capacity = 0;
	unsigned char *buffer = NULL;
	int error = 0;
	uint64_t last = UINT64_MAX;
	*encoded = NULL;
	*bytes = 0;
	for (size_t j = 0; j < count && run->size > 0; j++) {
		/* equidistant by bytes: each splitter range holds about as many bytes */
		uint64_t at = (uint64_t)((unsigned __int128)run->size * j / count), start, next;
		const unsigned char *record;
		size_t len;
		if ((error = local_run_next_start(run, at, &start)) != 0)
			break;
		if (start >= run->size || start == last)
			continue;
		last = start;
		if ((error = local_run_record(run, start, &record, &len, &next)) != 0 ||
		    (error = sample_append(&buffer, &used, &capacity, rank, start, record, len)) != 0)
			break;
	}
	if (error) {
		free(buffer);
		return error;
	}
	*encoded = buffer;
	*bytes = used;
	return 0;
}

int splitters_encode(int rank, const unsigned char *records, size_t record_size, const uint64_t *positions,
		     size_t count, unsigned char **encoded, size_t *bytes)
{
	size_t used = 0, capacity = 0;
	unsigned char *buffer = NULL;
	*encoded = NULL;
	*bytes = 0;
	for (size_t j = 0; j < count; j++)
		if (sample_append(&buffer, &used, &capacity, rank, positions[j], records + j * record_size,
				  record_size) != 0) {
			free(buffer);
			return -ENOMEM;
		}
	*encoded = buffer;
	*bytes = used;
	return 0;
}

int splitters_decode(const unsigned char *encoded, size_t bytes, struct sample **samples, size_t *count)
{
	size_t n = 0, capacity = 64;
	struct sample *array = malloc(capacity * sizeof *array);
	if (!array)
		return -ENOMEM;
	for (size_t at = 0; at + SAMPLE_HEADER <= bytes;) {
		uint64_t header[3];
		memcpy(header, encoded + at, SAMPLE_HEADER);
		if (n == capacity) {
			struct sample *more = realloc(array, 2 * capacity * sizeof *array);
			if (!more) {
				free(array);
				return -ENOMEM;
			}
			array = more;
			capacity *= 2;
		}
		array[n++] = (struct sample){encoded + at + SAMPLE_HEADER, (size_t)header[2], header[0], header[1]};
		at += SAMPLE_HEADER + padded((size_t)header[2]);
	}
	*samples = array;
	*count = n;
	return 0;
}

struct sample_order {
	const struct record_order *order;
	bool unique;
};

/* Key, then (unless -u) rank, then position in the rank's share: the global order. */
static int sample_compare(const struct sample_order *by, const unsigned char *a, size_t alen, uint64_t arank,
			  uint64_t aposition, const struct sample *b)
{
	int c = record_compare(by->order, a, alen, b->record, b->len);
	if (c || by->unique)
		return c;
	if (arank != b->rank)
		return arank < b->rank ? -1 : 1;
	return (aposition > b->position) - (aposition < b->position);
}

static int samples_compare(const void *x, const void *y, void *context)
{
	const struct sample *a = x, *b = y;
	struct sample_order by = *(const struct sample_order *)context;
	by.unique = false; /* the samples themselves always in one total order */
	return sample_compare(&by, a->record, a->len, a->rank, a->position, b);
}

void splitters_choose(const struct record_order *order, bool unique, struct sample *samples, size_t count,
		      int parts, struct sample *chosen, size_t *chosen_count)
{
	struct sample_order by = {order, unique};
	*chosen_count = 0;
	if (count == 0)
		return;
	qsort_r(samples, count, sizeof *samples, samples_compare, &by);
	for (int i = 1; i < parts; i++)
		chosen[(*chosen_count)++] = samples[(size_t)((unsigned __int128)count * (unsigned)i / (unsigned)parts)];
}

/* Whether the record at start of this rank's share goes before the splitter. */
static int goes_before(struct local_run *run, const struct sample_order *by, int rank, uint64_t start,
		       const struct sample *splitter, bool *before, uint64_t *next)
{
	const unsigned char *record;
	size_t len;
	int error = local_run_record(run, start, &record, &len, next);
	if (!error)
		*before = sample_compare(by, record, len, (uint64_t)rank, start, splitter) < 0;
	return error;
}

int splitters_cut(struct local_run *run, bool unique, int rank, const struct sample *splitter, uint64_t *cut)
{
	struct sample_order by = {run->order, unique};
	/* lo: a record start with every record before it going before the splitter; the
	 * answer lies in [lo, hi], hi a record start (or the end) that does not */
	uint64_t lo = 0, hi = run->size, next;
	bool before;
	int error = 0;
	while (lo < hi && !error) {
		uint64_t mid = lo + (hi - lo) / 2, start;
		if ((error = local_run_next_start(run, mid, &start)) != 0)
			break;
		if (start >= hi) {
			/* no record starts in [mid, hi): decide on the one at lo */
			if ((error = goes_before(run, &by, rank, lo, splitter, &before, &next)) == 0) {
				if (before)
					lo = next;
				else
					hi = lo;
			}
			continue;
		}
		if ((error = goes_before(run, &by, rank, start, splitter, &before, &next)) == 0) {
			if (before)
				lo = next;
			else
				hi = start;
		}
	}
	*cut = lo;
	return error;
}
