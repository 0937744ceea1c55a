# SPDX-License-Identifier: MIT
# src/distributed/: the sort across the ranks of an MPI job (built with Open MPI only,
# configure --with-mpi). cluster_mpi.c alone calls MPI: it is the module gpusort-mpi.so
# (the one thing that links libmpi), which cluster_load.c opens only when an MPI launch
# is there. Without MPI, distributed_none.c answers that no launch is there, so the
# ordinary pipeline runs.
libpipeline_la_SOURCES += \
	src/distributed/distributed_sort.h \
	src/distributed/cluster.h
if HAVE_MPI
libpipeline_la_SOURCES += \
	src/distributed/distributed_sort.c \
	src/distributed/cluster_calls.h src/distributed/cluster_load.c \
	src/distributed/input_share.h src/distributed/input_share.c \
	src/distributed/job_dirs.h src/distributed/job_dirs.c \
	src/distributed/local_run.h src/distributed/local_run.c \
	src/distributed/splitters.h src/distributed/splitters.c \
	src/distributed/agreed_splitters.h src/distributed/agreed_splitters.c \
	src/distributed/exchange.h src/distributed/exchange.c \
	src/distributed/distributed_output.h src/distributed/distributed_output.c \
	src/distributed/distributed_stats.h src/distributed/distributed_stats.c \
	src/distributed/distributed_verify.h src/distributed/distributed_verify.c \
	src/distributed/rank_merge.h src/distributed/rank_merge.c \
	src/distributed/resident_sort.h src/distributed/resident_sort.c
pkglib_LTLIBRARIES += gpusort-mpi.la
gpusort_mpi_la_SOURCES = src/distributed/cluster_mpi.c src/distributed/cluster_calls.h src/distributed/cluster.h
gpusort_mpi_la_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
gpusort_mpi_la_LIBADD = $(MPI_LIBS)
gpusort_mpi_la_LDFLAGS = -module -avoid-version -shared -export-symbols-regex '^gpusort_cluster_calls$$'
else
libpipeline_la_SOURCES += src/distributed/distributed_none.c
endif
EXTRA_DIST += src/distributed/README.md
