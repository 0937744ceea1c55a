# SPDX-License-Identifier: MIT
# kernels/: the CUDA backend, built when configure found nvcc.
noinst_HEADERS += kernels/gpu_backend.h kernels/gpu_backend_state.cuh \
	kernels/gpu_items.cuh kernels/gpu_block_sort.cuh kernels/gpu_bucket_kernels.cuh kernels/gpu_bucket_sort.cuh kernels/gpu_errors.cuh kernels/gpu_merge.cuh
if HAVE_CUDA
libkernels_la_SOURCES += kernels/gpu_backend.cu kernels/gpu_resident.cu kernels/gpu_bucket_sort.cu kernels/gpu_merge.cu
endif
EXTRA_DIST += kernels/gpu_backend.cu kernels/gpu_resident.cu kernels/gpu_bucket_sort.cu kernels/gpu_merge.cu
# The single steps' test hooks, compiled into tests/test_gpu_steps only (tests/gpu.mk).
noinst_HEADERS += kernels/gpu_bucket_steps.h
EXTRA_DIST += kernels/gpu_bucket_steps.cu
# The seeds' other methods behind --algorithm (sample, radix, bitonic, quick).
noinst_HEADERS += kernels/gpu_algorithms.cuh kernels/gpu_small_sort.cuh
if HAVE_CUDA
libkernels_la_SOURCES += kernels/gpu_sample_sort.cu kernels/gpu_radix_sort.cu kernels/gpu_bitonic_sort.cu kernels/gpu_quick_sort.cu
endif
EXTRA_DIST += kernels/gpu_sample_sort.cu kernels/gpu_radix_sort.cu kernels/gpu_bitonic_sort.cu kernels/gpu_quick_sort.cu
