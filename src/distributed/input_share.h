/* SPDX-License-Identifier: MIT */
/* A rank's share of the inputs: the inputs taken as one stream of bytes are cut into
 * as many equal parts as there are ranks, each cut moved to the next record boundary (a
 * multiple of the record size, or the byte after a line's terminator; an input's end is
 * always one), so that every record is read by exactly one rank. Inputs that are not
 * regular files (standard input, pipes) cannot be cut: rank 0 reads all of them. */
#ifndef GPUSORT_INPUT_SHARE_H
#define GPUSORT_INPUT_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../pipeline/input_list.h"
#include "../settings/input_range.h"

struct input_share {
	const char **names;         /* the inputs this rank reads, in order */
	struct input_range *ranges; /* the part of each it reads; NULL: each whole */
	size_t count;
	uint64_t bytes;             /* of all of them (0 when not known: a pipe) */
};

/* This rank's share of inputs; record_size 0: lines ended by eol. Returns 0 or a
 * negative errno, reported (naming the input) unless quiet. */
int input_share_plan(const struct input_list *inputs, size_t record_size, unsigned char eol, int rank, int size,
		     bool quiet, struct input_share *share);
void input_share_free(struct input_share *share);

#endif
