/* SPDX-License-Identifier: MIT */
/* Holds a context on every GPU until it is killed, so that the driver keeps the GPUs
 * initialized between the runs of a benchmark, as the persistence daemon
 * (nvidia-persistenced) would on a machine that runs it: the runs then show what a
 * sort costs where a GPU's first start is not paid by its first user each time.
 * Prints "held N" once the contexts exist. Changes no setting of the machine.
 * Build: nvcc -O2 -o gpu_hold bench/gpu_hold.cu */
#include <cuda_runtime.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	int count = 0;
	if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
		printf("no GPU\n");
		return 1;
	}
	for (int d = 0; d < count; d++)
		if (cudaSetDevice(d) != cudaSuccess || cudaFree(0) != cudaSuccess) {
			printf("no context on GPU %d\n", d);
			return 1;
		}
	printf("held %d\n", count);
	fflush(stdout);
	for (;;)
		pause();
}
