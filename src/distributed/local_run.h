/* SPDX-License-Identifier: MIT */
/* A rank's share once sorted: one file of records in order (fixed-size records, or
 * lines each with its terminator), read at any offset, for the samples and the cuts
 * that the splitters make in it. */
#ifndef GPUSORT_LOCAL_RUN_H
#define GPUSORT_LOCAL_RUN_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include "../pipeline/record_order.h"

struct local_run {
	char path[PATH_MAX];
	int fd;
	uint64_t base;  /* a part of the file: offsets below count from here */
	uint64_t size;
	const struct record_order *order;
	unsigned char *buffer; /* the record last read */
	size_t capacity;
};

/* Opens the sorted file at path (a temp file; local_run_close leaves it). Returns 0 or
 * a negative errno. */
int local_run_open(struct local_run *run, const char *path, const struct record_order *order);
/* The part [base, base + length) of such a file (base a record boundary), as a run. */
int local_run_open_range(struct local_run *run, const char *path, uint64_t base, uint64_t length,
			 const struct record_order *order);
void local_run_close(struct local_run *run);

/* The first record boundary at or after offset (run->size when there is none). */
int local_run_next_start(struct local_run *run, uint64_t offset, uint64_t *start);

/* The record that starts at start (below run->size): its bytes without a line's
 * terminator, valid until the next call, and where the next record starts. */
int local_run_record(struct local_run *run, uint64_t start, const unsigned char **record, size_t *len,
		     uint64_t *next);

/* Reads length bytes at offset (all of them, or an error). */
int local_run_read(const struct local_run *run, void *buffer, size_t length, uint64_t offset);

#endif
