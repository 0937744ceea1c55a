/* SPDX-License-Identifier: MIT */
/* CUDA errors as the project's negative errno values, with CUDA's own words copied
 * into the caller's reason buffer. */
#ifndef GPUSORT_GPU_ERRORS_CUH
#define GPUSORT_GPU_ERRORS_CUH

#include <cuda_runtime.h>
#include <errno.h>
#include <stdio.h>

static inline int gpu_error_to_errno(cudaError_t error)
{
	switch (error) {
	case cudaSuccess:
		return 0;
	case cudaErrorMemoryAllocation:
		return -ENOMEM;
	case cudaErrorNoDevice:
	case cudaErrorInsufficientDriver:
	case cudaErrorInvalidDevice:
	case cudaErrorDevicesUnavailable:
	case cudaErrorStubLibrary:
	case cudaErrorCallRequiresNewerDriver:
	case cudaErrorSystemDriverMismatch:
	case cudaErrorCompatNotSupportedOnDevice:
		return -ENODEV;
	case cudaErrorInvalidValue:
		return -EINVAL;
	default:
		return -EIO;
	}
}

/* Returns the errno for error and writes "what: CUDA's message" into reason. */
static inline int gpu_error_report(cudaError_t error, const char *what, char *reason, size_t reason_size)
{
	if (error != cudaSuccess && reason && reason_size)
		snprintf(reason, reason_size, "%s: %s", what, cudaGetErrorString(error));
	return gpu_error_to_errno(error);
}

#endif
