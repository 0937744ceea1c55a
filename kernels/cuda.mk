# kernels/: the CUDA backend, built when configure found nvcc.
noinst_HEADERS += kernels/gpu_backend.h kernels/gpu_bucket_steps.h \
	kernels/gpu_items.cuh kernels/gpu_bitonic.cuh kernels/gpu_bucket_sort.cuh kernels/gpu_errors.cuh
if HAVE_CUDA
libkernels_a_SOURCES += kernels/gpu_backend.cu kernels/gpu_bucket_sort.cu kernels/gpu_bucket_steps.cu
endif
EXTRA_DIST += kernels/gpu_backend.cu kernels/gpu_bucket_sort.cu kernels/gpu_bucket_steps.cu
