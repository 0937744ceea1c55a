/* SPDX-License-Identifier: MIT */
/* A part of an input: what a rank of the distributed sort reads of each of its inputs. */
#ifndef GPUSORT_INPUT_RANGE_H
#define GPUSORT_INPUT_RANGE_H

#include <stdint.h>

/* Bytes [offset, offset + length) of an input. */
struct input_range {
	uint64_t offset, length;
};

#endif
