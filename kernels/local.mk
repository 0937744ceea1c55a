# SPDX-License-Identifier: MIT
# kernels/: the sort engine (backend interface, CPU implementation; CUDA in cuda.mk).
noinst_LTLIBRARIES += libkernels.la
libkernels_la_SOURCES = \
	kernels/items.h \
	kernels/sort_engine.h \
	kernels/sort_engine.c \
	kernels/bucket_sort_steps.h \
	kernels/bucket_sort_cpu.c \
	kernels/bucket_sort_cpu_template.h \
	kernels/thread_pool.h \
	kernels/thread_pool.c \
	kernels/huge_memory.h \
	kernels/huge_memory.c \
	kernels/module_open.h \
	kernels/module_open.c \
	kernels/gpu_module.h
EXTRA_DIST += kernels/README.md
