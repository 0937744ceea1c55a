/* SPDX-License-Identifier: MIT */
/* Where sorted records go, a block at a time: the output, a run file, a merge's buffer;
 * and a sink call made on a thread of its own, so that the next block is gathered
 * while this one is written. */
#ifndef GPUSORT_RECORD_SINK_H
#define GPUSORT_RECORD_SINK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Receives records in order: count whole records in bytes[0, len) (lines with their
 * terminators). Returns 0 or a negative errno. */
typedef int (*record_sink)(void *context, const unsigned char *bytes, size_t len, size_t count);

/* Where each record's place in the output is known before it is written (an in-memory
 * sort into a regular file): writes whole records bytes[0, len) at offset, from several
 * threads at once for disjoint ranges. Returns 0 or a negative errno, not reported. */
typedef int (*record_sink_at)(void *context, const unsigned char *bytes, size_t len, uint64_t offset);

struct sink_call {
	record_sink sink;
	void *context;
	const unsigned char *bytes;
	size_t len, count;
	int error;
	pthread_t thread;
	bool running;
};

/* Waits for the call in flight, if any; returns its error (0 when none). */
int sink_call_wait(struct sink_call *call);
/* Waits for the call in flight, then, if it succeeded, hands bytes to sink on a thread
 * (in line below a mebibyte, which is written sooner than a thread starts, or when none
 * starts; bytes must stay as they are until the next wait). Returns
 * the error of the call waited for, or of the call made in line. */
int sink_call_start(struct sink_call *call, record_sink sink, void *context, const unsigned char *bytes,
		    size_t len, size_t count);

/* The two blocks an emit gathers records (or lines) into, kept by a caller that emits
 * chunk after chunk (NULL: each emit makes and frees its own): each chunk's gather then
 * writes into pages touched before, not fresh ones, which the kernel must fault in and
 * clear (bench/RESULTS.md counts the page faults saved). */
struct emit_scratch {
	unsigned char *blocks[2];
	size_t bytes; /* each */
};
/* The scratch's two blocks, made or grown to at least bytes each; false where memory
 * is short. */
bool emit_scratch_reserve(struct emit_scratch *scratch, size_t bytes);
void emit_scratch_free(struct emit_scratch *scratch);

#endif
