# SPDX-License-Identifier: MIT
# kernels/: the CUDA backend, built when configure found nvcc: the objects in libgpu
# (which the GPU tests link directly), made into the module gpusort-cuda.so, which the
# engine opens the first time a GPU is asked for (kernels/gpu_module.h). Its one
# exported symbol is the backend's calls, gpu_cuda.
noinst_HEADERS += kernels/gpu_backend.h kernels/gpu_backend_state.cuh \
	kernels/gpu_items.cuh kernels/gpu_block_sort.cuh kernels/gpu_bucket_kernels.cuh kernels/gpu_bucket_sort.cuh kernels/gpu_errors.cuh kernels/gpu_merge.cuh \
	kernels/gpu_algorithms.cuh kernels/gpu_small_sort.cuh
GPU_SOURCES = kernels/gpu_backend.cu kernels/gpu_resident.cu kernels/gpu_bucket_sort.cu kernels/gpu_merge.cu \
	kernels/gpu_sample_sort.cu kernels/gpu_radix_sort.cu kernels/gpu_bitonic_sort.cu kernels/gpu_quick_sort.cu
EXTRA_DIST += $(GPU_SOURCES)
if HAVE_CUDA
libkernels_la_SOURCES += kernels/gpu_module.c
noinst_LTLIBRARIES += libgpu.la
libgpu_la_SOURCES = $(GPU_SOURCES)
pkglib_LTLIBRARIES += gpusort-cuda.la
gpusort_cuda_la_SOURCES =
gpusort_cuda_la_LIBADD = libgpu.la $(CUDA_LIBS)
gpusort_cuda_la_LDFLAGS = -module -avoid-version -shared -export-symbols-regex '^gpu_cuda$$'
endif
# The single steps' test hooks, compiled into tests/test_gpu_steps only (tests/gpu.mk).
noinst_HEADERS += kernels/gpu_bucket_steps.h
EXTRA_DIST += kernels/gpu_bucket_steps.cu
