# SPDX-License-Identifier: MIT
# tests/ for the CUDA backend: each GPU step against its CPU twin, the whole GPU sort
# against the CPU sort, the clean failure without a device, and one device exposed
# alone. Without a GPU they skip.
GPU_TEST_LINK = tests/libtesthelp.a libgpu.la libkernels.la $(CUDA_LIBS) $(DLOPEN_LIBS) -lpthread -lm
noinst_HEADERS += tests/test_gpu_items.h
if HAVE_CUDA
check_PROGRAMS += tests/test_gpu_steps tests/test_gpu_sort tests/test_gpu_nodevice tests/test_gpu_expose
# the step hooks come with the test, not the library (kernels/gpu_bucket_steps.h)
tests_test_gpu_steps_SOURCES = tests/test_gpu_steps.c kernels/gpu_bucket_steps.cu
tests_test_gpu_steps_LDADD = $(GPU_TEST_LINK)
tests_test_gpu_sort_SOURCES = tests/test_gpu_sort.c
tests_test_gpu_sort_LDADD = $(GPU_TEST_LINK)
tests_test_gpu_nodevice_SOURCES = tests/test_gpu_nodevice.c
tests_test_gpu_nodevice_LDADD = $(GPU_TEST_LINK)
tests_test_gpu_expose_SOURCES = tests/test_gpu_expose.c
tests_test_gpu_expose_LDADD = $(GPU_TEST_LINK)
TESTS += tests/test_gpu_steps tests/test_gpu_sort tests/test_gpu_nodevice tests/test_gpu_expose
endif
# The GPU through the command line against --device=cpu (skips without a GPU), and the
# command line's boundary sweep.
TESTS += tests/test_gpu_cli.sh tests/test_gpu_sweep.sh
EXTRA_DIST += tests/test_gpu_cli.sh tests/test_gpu_sweep.sh
# The seeds' other methods (sample, radix, bitonic, quick) against the CPU bucket sort.
if HAVE_CUDA
check_PROGRAMS += tests/test_gpu_algorithms
tests_test_gpu_algorithms_SOURCES = tests/test_gpu_algorithms.c
tests_test_gpu_algorithms_LDADD = $(GPU_TEST_LINK)
TESTS += tests/test_gpu_algorithms
# The boundary sweep (a seeded random subset here; GPUSORT_SWEEP=full for the grid).
# (Not test_gpu_sweep: that log name belongs to test_gpu_sweep.sh.)
check_PROGRAMS += tests/test_gpu_boundaries
tests_test_gpu_boundaries_SOURCES = tests/test_gpu_boundaries.c
tests_test_gpu_boundaries_LDADD = $(GPU_TEST_LINK)
TESTS += tests/test_gpu_boundaries
endif
# --device=N that cannot be used: the driver's reason, or "built without CUDA".
TESTS += tests/test_device_reason.sh
EXTRA_DIST += tests/test_device_reason.sh
