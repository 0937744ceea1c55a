# src/distributed/: the sort across the ranks of an MPI job (built with Open MPI only,
# configure --with-mpi). cluster_mpi.c alone calls MPI; without MPI, distributed_none.c
# answers that no MPI launch is there, so the ordinary pipeline runs.
libpipeline_la_SOURCES += \
	src/distributed/distributed_sort.h \
	src/distributed/cluster.h
if HAVE_MPI
libpipeline_la_SOURCES += \
	src/distributed/distributed_sort.c \
	src/distributed/cluster_mpi.c \
	src/distributed/input_share.h src/distributed/input_share.c \
	src/distributed/local_run.h src/distributed/local_run.c \
	src/distributed/splitters.h src/distributed/splitters.c \
	src/distributed/exchange.h src/distributed/exchange.c \
	src/distributed/distributed_output.h src/distributed/distributed_output.c \
	src/distributed/distributed_stats.h src/distributed/distributed_stats.c \
	src/distributed/distributed_verify.h src/distributed/distributed_verify.c
else
libpipeline_la_SOURCES += src/distributed/distributed_none.c
endif
EXTRA_DIST += src/distributed/README.md
