/* SPDX-License-Identifier: MIT */
/* The ranks (cluster.h) through the MPI module: gpusort-mpi.so, the one part of gpusort
 * that links libmpi, is opened only when the environment shows an MPI launch, so that
 * a gpusort started without one loads no MPI library at all (Open MPI's shared
 * libraries cost start-up time). GPUSORT_MPI_MODULE names another path; a gpusort not
 * installed finds the one built beside it (kernels/module_open.h). */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cluster_calls.h"
#include "../../kernels/module_open.h"
#include "../common/environment.h"
#include "../common/report.h"

/* The launchers' variables that say how many processes were started: Open MPI's mpirun,
 * PMI-1/2 (MPICH's hydra, Slurm's srun --mpi=pmi2), and PMIx's. PMIx alone may name no
 * size before MPI starts: PMIX_RANK then means "ask MPI". */
bool cluster_launched(void)
{
	static const char *const sizes[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		const char *value = getenv(sizes[i]);
		if (value)
			return atoi(value) > 1;
	}
	return getenv("PMIX_RANK") != NULL || getenv("PMI_RANK") != NULL;
}

static const struct cluster_calls *calls;

int cluster_join(struct cluster *cluster)
{
	if (!calls) {
		char why[512];
		const struct cluster_calls *found =
			module_open(environment_string(ENVIRONMENT_MPI_MODULE), GPUSORT_MPI_MODULE_PATH, "gpusort-mpi.so",
				    "gpusort_cluster_calls", why, sizeof why);
		if (found && found->version != CLUSTER_CALLS_VERSION)
			snprintf(why, sizeof why, "gpusort-mpi.so: not this gpusort's");
		else
			calls = found;
		if (!calls) {
			report("MPI module: %s", why);
			return -ENOENT;
		}
	}
	int error = calls->join(cluster);
	if (error)
		report("MPI: the job's ranks could not be joined");
	return error;
}

int cluster_agree(const struct cluster *cluster, int error)
{
	int agreed = calls->agree(cluster, error);
	/* the first failing rank's messages are said; the others' were the same, or only
	 * followed from it */
	bool say = true;
	if (agreed) {
		uint64_t first = UINT64_MAX - calls->max(cluster, error ? UINT64_MAX - (uint64_t)cluster->rank : 0);
		say = error && first == (uint64_t)cluster->rank;
	}
	report_release(say);
	report_hold();
	return agreed;
}

uint64_t cluster_max(const struct cluster *cluster, uint64_t value)
{
	return calls->max(cluster, value);
}

uint64_t cluster_sum(const struct cluster *cluster, uint64_t value)
{
	return calls->sum(cluster, value);
}

uint64_t cluster_exscan(const struct cluster *cluster, uint64_t value)
{
	return calls->exscan(cluster, value);
}

int cluster_allgather(const struct cluster *cluster, const uint64_t *values, size_t count, uint64_t *all)
{
	return calls->allgather(cluster, values, count, all);
}

int cluster_allgather_bytes(const struct cluster *cluster, const void *bytes, size_t length, unsigned char **all,
			    uint64_t *offsets)
{
	return calls->allgather_bytes(cluster, bytes, length, all, offsets);
}

int cluster_alltoall_bytes(const struct cluster *cluster, const void *send, const size_t *send_counts,
			   const size_t *send_offsets, void *recv, const size_t *recv_counts, const size_t *recv_offsets)
{
	return calls->alltoall_bytes(cluster, send, send_counts, send_offsets, recv, recv_counts, recv_offsets);
}

int cluster_alltoall(const struct cluster *cluster, const uint64_t *from, uint64_t *to)
{
	return calls->alltoall(cluster, from, to);
}

int cluster_broadcast(const struct cluster *cluster, void *bytes, size_t length, int root)
{
	return calls->broadcast(cluster, bytes, length, root);
}

int cluster_send(const struct cluster *cluster, const void *bytes, size_t length, int to)
{
	return calls->send(cluster, bytes, length, to);
}

int cluster_receive(const struct cluster *cluster, void *bytes, size_t length, int from)
{
	return calls->receive(cluster, bytes, length, from);
}
