/* SPDX-License-Identifier: MIT */
/* The bucket sort's splitters one level up, across ranks: equidistant samples of every
 * rank's sorted share, gathered by all, sorted, and every (size)th one taken, so that
 * each rank cuts its share into one key range per rank with the same splitters. A
 * record's place in the order is its key, then (ties) its global input position,
 * which is (rank, offset in the rank's sorted share): shares are cut in input order
 * and sorted stably. So all-equal and skewed inputs still split evenly, and a record
 * keeps its place among its equals. Under -u the position is left out: records with
 * equal keys all go to one rank, whose merge keeps the first. */
#ifndef GPUSORT_SPLITTERS_H
#define GPUSORT_SPLITTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "local_run.h"

struct sample {
	const unsigned char *record; /* its bytes (a line without its terminator) */
	size_t len;
	uint64_t rank, position;     /* where it lies: a rank's sorted share, an offset in it */
};

/* How many samples each of ranks ranks takes. */
size_t splitters_sample_count(int ranks);
/* This rank's count samples, encoded for the all-gather into a buffer made here. */
int splitters_sample(struct local_run *run, int rank, size_t count, unsigned char **encoded, size_t *bytes);

/* The same for count fixed-size records (records[j * record_size]) sampled elsewhere,
 * each at its byte offset positions[j] in this rank's sorted share (ascending). */
int splitters_encode(int rank, const unsigned char *records, size_t record_size, const uint64_t *positions,
		     size_t count, unsigned char **encoded, size_t *bytes);
/* The samples of encoded bytes (pointing into them), in an array made here. */
int splitters_decode(const unsigned char *encoded, size_t bytes, struct sample **samples, size_t *count);

/* Sorts the samples and picks parts - 1 splitters (none when there are no samples:
 * *chosen_count says). */
void splitters_choose(const struct record_order *order, bool unique, struct sample *samples, size_t count,
		      int parts, struct sample *chosen, size_t *chosen_count);

/* Where this rank's sorted share is cut before splitter: the first record that does
 * not go before it. */
int splitters_cut(struct local_run *run, bool unique, int rank, const struct sample *splitter, uint64_t *cut);

#endif
