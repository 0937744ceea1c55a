/* SPDX-License-Identifier: MIT */
/* A build without MPI (configure --without-mpi, or no Open MPI found): no process is a
 * rank of a distributed sort, so gpusort_run takes the ordinary pipeline. */
#include "config.h"
#include "../common/report.h"
#include "distributed_sort.h"

bool distributed_launched(void)
{
	return false;
}

int distributed_sort_run(const struct sort_job *job)
{
	(void)job;
	report("built without MPI: configure --with-mpi for the distributed sort");
	return 2;
}
