/* SPDX-License-Identifier: MIT */
/* How long the CUDA driver takes to start (cuInit, through the runtime's first call)
 * and to make a context on device 0: what every process that sorts on a GPU pays once.
 * With several GPUs the start grows with the GPUs the driver is told of
 * (CUDA_VISIBLE_DEVICES), which bench/multi_gpu_floor.sh compares.
 * Build: nvcc -O2 -o cuda_start bench/cuda_start.cu */
#include <cuda_runtime.h>
#include <stdio.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void)
{
	double start = now();
	int count = 0;
	if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
		printf("no GPU\n");
		return 1;
	}
	double counted = now();
	if (cudaSetDevice(0) != cudaSuccess || cudaFree(0) != cudaSuccess) {
		printf("no context on GPU 0\n");
		return 1;
	}
	double done = now();
	printf("%d GPU(s): driver %.3f s, context %.3f s\n", count, counted - start, done - counted);
	return 0;
}
