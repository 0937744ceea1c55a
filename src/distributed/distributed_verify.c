/* SPDX-License-Identifier: MIT */
/* The distributed sort's self-check (see distributed_verify.h). */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "distributed_verify.h"
#include "../common/report.h"

static int copy_into(unsigned char **to, size_t *capacity, const unsigned char *from, size_t len)
{
	if (len > *capacity) {
		unsigned char *grown = realloc(*to, len);
		if (!grown)
			return -ENOMEM;
		*to = grown;
		*capacity = len;
	}
	if (len)
		memcpy(*to, from, len);
	return 0;
}

void range_ends_note(struct range_ends *ends, const struct record_order *order, const unsigned char *block,
		     size_t bytes)
{
	if (bytes == 0 || ends->error)
		return;
	/* the block's last record: fixed-size, or the line before the final terminator */
	size_t start = 0, len;
	if (order->record_size) {
		start = bytes - order->record_size;
		len = order->record_size;
	} else {
		start = bytes - 1;
		while (start > 0 && block[start - 1] != order->eol)
			start--;
		len = bytes - 1 - start;
	}
	if (!ends->have) {
		size_t step, first_len = record_length(order, block, bytes, &step), capacity = 0;
		ends->error = copy_into(&ends->first, &capacity, block, first_len);
		ends->first_len = first_len;
		ends->have = true;
	}
	if (!ends->error)
		ends->error = copy_into(&ends->last, &ends->last_capacity, block + start, len);
	ends->last_len = len;
}

void range_ends_free(struct range_ends *ends)
{
	free(ends->first);
	free(ends->last);
	memset(ends, 0, sizeof *ends);
}

/* [have][first length][last length] then the two records, as 64-bit words and bytes. */
static unsigned char *ends_encode(const struct range_ends *ends, size_t *bytes)
{
	uint64_t header[3] = {ends->have, ends->have ? ends->first_len : 0, ends->have ? ends->last_len : 0};
	*bytes = sizeof header + header[1] + header[2];
	unsigned char *encoded = malloc(*bytes);
	if (encoded) {
		memcpy(encoded, header, sizeof header);
		if (header[1])
			memcpy(encoded + sizeof header, ends->first, header[1]);
		if (header[2])
			memcpy(encoded + sizeof header + header[1], ends->last, header[2]);
	}
	return encoded;
}

int distributed_verify(const struct cluster *cluster, const struct record_order *order, const struct range_ends *ends,
		       uint64_t disorder, uint64_t run_bytes, uint64_t range_bytes)
{
	size_t encoded_bytes = 0;
	unsigned char *encoded = ends->error ? NULL : ends_encode(ends, &encoded_bytes), *all = NULL;
	uint64_t *offsets = malloc(((size_t)cluster->size + 1) * sizeof *offsets);
	int error = cluster_agree(cluster, encoded && offsets ? 0 : -ENOMEM);
	if (error) {
		report_error(-ENOMEM, "internal error: distributed self-check: %s", strerror(ENOMEM));
		goto out;
	}
	error = cluster_allgather_bytes(cluster, encoded, encoded_bytes, &all, offsets);
	uint64_t disordered = cluster_sum(cluster, disorder), runs = cluster_sum(cluster, run_bytes),
		 ranges = cluster_sum(cluster, range_bytes);
	if ((error = cluster_agree(cluster, error)) != 0)
		goto out;
	if (cluster->rank == 0) {
		char what[160] = "";
		if (disordered)
			snprintf(what, sizeof what, "%" PRIu64 " records out of order within the ranks' ranges", disordered);
		else if (!order->unique && runs != ranges)
			snprintf(what, sizeof what, "the ranks' runs held %" PRIu64 " bytes, their ranges %" PRIu64, runs,
				 ranges);
		/* each non-empty range's first record against the last of the one before */
		const unsigned char *last = NULL;
		size_t last_len = 0;
		int last_rank = -1;
		for (int r = 0; r < cluster->size && !what[0]; r++) {
			uint64_t header[3];
			memcpy(header, all + offsets[r], sizeof header);
			if (!header[0])
				continue;
			const unsigned char *first = all + offsets[r] + sizeof header;
			if (last) {
				int c = record_compare(order, last, last_len, first, (size_t)header[1]);
				if (c > 0 || (c == 0 && order->unique))
					snprintf(what, sizeof what, "rank %d's range does not follow rank %d's", r, last_rank);
			}
			last = first + header[1];
			last_len = (size_t)header[2];
			last_rank = r;
		}
		if (what[0]) {
			report_internal("distributed self-check: %s", what);
			error = -EIO;
		}
	}
	error = cluster_agree(cluster, error);
out:
	free(encoded);
	free(all);
	free(offsets);
	return error;
}
