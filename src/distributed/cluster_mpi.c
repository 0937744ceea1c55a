/* SPDX-License-Identifier: MIT */
/* The ranks through MPI (see cluster.h): the only file that includes <mpi.h>, built as
 * the module gpusort-mpi.so, which alone links libmpi: cluster_load.c opens it when a
 * launch is there, so that a gpusort started without one does not even load MPI. */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "cluster_calls.h"

static bool started_here;

static void cluster_leave(void)
{
	int finalized = 0;
	MPI_Finalized(&finalized);
	if (started_here && !finalized)
		MPI_Finalize();
}

/* Open MPI opens every messaging layer it has before picking one, and its cm layer
 * probes the fabrics' libraries as it opens (PSM2, OFI, Portals), most of MPI_Init's
 * time. Ranks that are all on one machine talk through shared memory, which is ob1's,
 * so there they ask for ob1 alone, unless the user chose (OMPI_MCA_pml). */
static void prefer_shared_memory_layer(void)
{
#ifdef OPEN_MPI
	const char *size = getenv("OMPI_COMM_WORLD_SIZE"), *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
	if (size && local && strcmp(size, local) == 0)
		setenv("OMPI_MCA_pml", "ob1", 0);
#endif
}

static int mpi_join(struct cluster *cluster)
{
	int initialized = 0, provided;
	MPI_Initialized(&initialized);
	if (!initialized) {
		prefer_shared_memory_layer();
		/* only the thread that joined calls MPI */
		if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
			return -EIO;
		started_here = true;
		atexit(cluster_leave);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &cluster->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &cluster->size);
	MPI_Comm local;
	if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, cluster->rank, MPI_INFO_NULL, &local) !=
	    MPI_SUCCESS)
		return -EIO;
	MPI_Comm_rank(local, &cluster->local_rank);
	MPI_Comm_size(local, &cluster->local_size);
	MPI_Comm_free(&local);
	return 0;
}

static int mpi_agree(const struct cluster *cluster, int error)
{
	int mine[2] = {error ? cluster->rank : INT_MAX, error}, first[2];
	MPI_Allreduce(mine, first, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD);
	/* MPI_MINLOC: the smallest failing rank, and its error as the "location" */
	return first[0] == INT_MAX ? 0 : first[1];
}

static uint64_t mpi_max(const struct cluster *cluster, uint64_t value)
{
	(void)cluster;
	uint64_t result;
	MPI_Allreduce(&value, &result, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
	return result;
}

static uint64_t mpi_sum(const struct cluster *cluster, uint64_t value)
{
	(void)cluster;
	uint64_t result;
	MPI_Allreduce(&value, &result, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	return result;
}

static uint64_t mpi_exscan(const struct cluster *cluster, uint64_t value)
{
	uint64_t before = 0;
	MPI_Exscan(&value, &before, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	/* MPI leaves rank 0's result undefined */
	return cluster->rank == 0 ? 0 : before;
}

static int mpi_allgather(const struct cluster *cluster, const uint64_t *values, size_t count, uint64_t *all)
{
	(void)cluster;
	return MPI_Allgather(values, (int)count, MPI_UINT64_T, all, (int)count, MPI_UINT64_T, MPI_COMM_WORLD) ==
			       MPI_SUCCESS ? 0 : -EIO;
}

static int mpi_allgather_bytes(const struct cluster *cluster, const void *bytes, size_t length, unsigned char **all,
			    uint64_t *offsets)
{
	int size = cluster->size;
	uint64_t mine = length, *lengths = malloc(size * sizeof *lengths);
	int *counts = malloc(size * sizeof *counts), *displacements = malloc(size * sizeof *displacements);
	int error = -ENOMEM;
	*all = NULL;
	if (!lengths || !counts || !displacements)
		goto out;
	MPI_Allgather(&mine, 1, MPI_UINT64_T, lengths, 1, MPI_UINT64_T, MPI_COMM_WORLD);
	offsets[0] = 0;
	for (int r = 0; r < size; r++)
		offsets[r + 1] = offsets[r] + lengths[r];
	error = -E2BIG;
	if (offsets[size] > INT_MAX)
		goto out;
	for (int r = 0; r < size; r++) {
		counts[r] = (int)lengths[r];
		displacements[r] = (int)offsets[r];
	}
	error = -ENOMEM;
	if (!(*all = malloc(offsets[size] ? offsets[size] : 1)))
		goto out;
	error = MPI_Allgatherv(bytes, (int)length, MPI_BYTE, *all, counts, displacements, MPI_BYTE, MPI_COMM_WORLD) ==
			MPI_SUCCESS ? 0 : -EIO;
out:
	free(lengths);
	free(counts);
	free(displacements);
	/* a rank short of memory still took part in every step the others made */
	return error;
}

static int mpi_alltoall_bytes(const struct cluster *cluster, const void *send, const size_t *send_counts,
			   const size_t *send_offsets, void *recv, const size_t *recv_counts, const size_t *recv_offsets)
{
	int size = cluster->size;
	int *numbers = malloc(4 * (size_t)size * sizeof *numbers);
	if (!numbers)
		return -ENOMEM;
	int *sc = numbers, *sd = numbers + size, *rc = numbers + 2 * size, *rd = numbers + 3 * size;
	for (int r = 0; r < size; r++) {
		sc[r] = (int)send_counts[r];
		sd[r] = (int)send_offsets[r];
		rc[r] = (int)recv_counts[r];
		rd[r] = (int)recv_offsets[r];
	}
	int result = MPI_Alltoallv(send, sc, sd, MPI_BYTE, recv, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
	free(numbers);
	return result == MPI_SUCCESS ? 0 : -EIO;
}

static int mpi_alltoall(const struct cluster *cluster, const uint64_t *from, uint64_t *to)
{
	(void)cluster;
	return MPI_Alltoall(from, 1, MPI_UINT64_T, to, 1, MPI_UINT64_T, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -EIO;
}

static int mpi_broadcast(const struct cluster *cluster, void *bytes, size_t length, int root)
{
	(void)cluster;
	return MPI_Bcast(bytes, (int)length, MPI_BYTE, root, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -EIO;
}

static int mpi_send(const struct cluster *cluster, const void *bytes, size_t length, int to)
{
	(void)cluster;
	return MPI_Send(bytes, (int)length, MPI_BYTE, to, 0, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -EIO;
}

static int mpi_receive(const struct cluster *cluster, void *bytes, size_t length, int from)
{
	(void)cluster;
	return MPI_Recv(bytes, (int)length, MPI_BYTE, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS ? 0
														 : -EIO;
}

/* What cluster_load.c finds by name in this module. */
const struct cluster_calls gpusort_cluster_calls = {
	.version = CLUSTER_CALLS_VERSION,
	.join = mpi_join,
	.agree = mpi_agree,
	.max = mpi_max,
	.sum = mpi_sum,
	.exscan = mpi_exscan,
	.allgather = mpi_allgather,
	.allgather_bytes = mpi_allgather_bytes,
	.alltoall_bytes = mpi_alltoall_bytes,
	.alltoall = mpi_alltoall,
	.broadcast = mpi_broadcast,
	.send = mpi_send,
	.receive = mpi_receive,
};
