/* SPDX-License-Identifier: MIT */
/* The splitters every rank agrees on, and the cuts they make (agreed_splitters.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "agreed_splitters.h"
#include "../common/report.h"
#include "../../io/fault_inject.h"

struct agreed_splitters {
	unsigned char *gathered; /* every rank's encoded samples, which the samples point into */
	struct sample *samples;
	struct sample *chosen;   /* one per rank, of which count are set */
	size_t count;
};

/* error: this rank's failure in making its samples (already reported), or 0. Returns 0
 * with the splitters in agreed (freed with agreed_splitters_free, also after a failure),
 * or the first failing rank's error. */
static int agreed_splitters_choose(const struct cluster *cluster, const struct record_order *order, bool unique, int error,
				   const unsigned char *encoded, size_t encoded_bytes, struct agreed_splitters *agreed)
{
	size_t size = (size_t)cluster->size, count = 0;
	uint64_t *offsets = malloc((size + 1) * sizeof *offsets);
	*agreed = (struct agreed_splitters){ .chosen = malloc(size * sizeof *agreed->chosen) };
	if (!error && !(offsets && agreed->chosen)) {
		error = -ENOMEM;
		report_error(error, "samples: %s", strerror(-error));
	}
	if ((error = cluster_agree(cluster, error)) != 0)
		goto out;
	error = cluster_allgather_bytes(cluster, encoded, encoded_bytes, &agreed->gathered, offsets);
	if (!error)
		error = splitters_decode(agreed->gathered, offsets[size], &agreed->samples, &count);
	if (error)
		report_error(error, "samples: %s", strerror(-error));
	if ((error = cluster_agree(cluster, error)) == 0)
		splitters_choose(order, unique, agreed->samples, count, cluster->size, agreed->chosen, &agreed->count);
out:
	free(offsets);
	return error;
}

static void agreed_splitters_free(struct agreed_splitters *agreed)
{
	free(agreed->gathered);
	free(agreed->samples);
	free(agreed->chosen);
	*agreed = (struct agreed_splitters){ 0 };
}

int agreed_splitters_split(const struct cluster *cluster, const struct record_order *order, bool unique, int error,
			   const unsigned char *encoded, size_t encoded_bytes, const struct share_cutter *cutter,
			   uint64_t *cuts)
{
	int size = cluster->size;
	struct agreed_splitters agreed;
	error = agreed_splitters_choose(cluster, order, unique, error, encoded, encoded_bytes, &agreed);
	if (error) {
		agreed_splitters_free(&agreed);
		return error;
	}
	size_t count = agreed.count < (size_t)size - 1 ? agreed.count : (size_t)size - 1;
	cuts[0] = 0;
	for (int d = 1; d <= size; d++)
		cuts[d] = cutter->end;
	if (count && cutter->end)
		error = cutter->cut(cutter->context, agreed.chosen, count, cuts + 1);
	if (size > 1 && fault_at(FAULT_DISTRIBUTED_CUT) == FAULT_SHORT)
		cuts[1] = 0; /* the planted bug (io/fault_inject.h) */
	for (int d = 1; d <= size; d++)
		if (cuts[d] < cuts[d - 1])
			cuts[d] = cuts[d - 1];
	agreed_splitters_free(&agreed);
	return cluster_agree(cluster, error);
}
