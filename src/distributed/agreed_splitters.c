/* SPDX-License-Identifier: MIT */
/* The splitters every rank agrees on (agreed_splitters.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "agreed_splitters.h"
#include "../common/report.h"

int agreed_splitters_choose(const struct cluster *cluster, const struct record_order *order, bool unique, int error,
			    const unsigned char *encoded, size_t encoded_bytes, struct agreed_splitters *agreed)
{
	size_t size = (size_t)cluster->size, count = 0;
	uint64_t *offsets = malloc((size + 1) * sizeof *offsets);
	*agreed = (struct agreed_splitters){ .chosen = malloc(size * sizeof *agreed->chosen) };
	if (!error && !(offsets && agreed->chosen)) {
		error = -ENOMEM;
		report("samples: %s", strerror(-error));
	}
	if ((error = cluster_agree(cluster, error)) != 0)
		goto out;
	error = cluster_allgather_bytes(cluster, encoded, encoded_bytes, &agreed->gathered, offsets);
	if (!error)
		error = splitters_decode(agreed->gathered, offsets[size], &agreed->samples, &count);
	if (error)
		report("samples: %s", strerror(-error));
	if ((error = cluster_agree(cluster, error)) == 0)
		splitters_choose(order, unique, agreed->samples, count, cluster->size, agreed->chosen, &agreed->count);
out:
	free(offsets);
	return error;
}

void agreed_splitters_free(struct agreed_splitters *agreed)
{
	free(agreed->gathered);
	free(agreed->samples);
	free(agreed->chosen);
	*agreed = (struct agreed_splitters){ 0 };
}
