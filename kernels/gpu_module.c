/* SPDX-License-Identifier: MIT */
/* The CUDA backend's module (gpu_module.h), opened once for the process. */
#include "config.h"
#include <pthread.h>
#include <stdio.h>
#include "gpu_backend.h"
#include "gpu_module.h"
#include "module_open.h"

static char chosen[4096];
static pthread_once_t opened = PTHREAD_ONCE_INIT;
static const struct gpu_backend_calls *calls;
static char failure[512];

void gpu_module_choose(const char *path)
{
	snprintf(chosen, sizeof chosen, "%s", path ? path : "");
}

static void open_module(void)
{
	char why[sizeof failure - 32];
	const struct gpu_backend_calls *found =
		module_open(chosen, GPUSORT_CUDA_MODULE_PATH, "gpusort-cuda.so", "gpu_cuda", why, sizeof why);
	if (found && found->version != GPU_BACKEND_CALLS_VERSION)
		snprintf(why, sizeof why, "%.400s: not this gpusort's", chosen[0] ? chosen : "gpusort-cuda.so");
	else
		calls = found;
	if (!calls)
		snprintf(failure, sizeof failure, "CUDA module: %s", why);
}

const struct gpu_backend_calls *gpu_module(char *reason, size_t reason_size)
{
	pthread_once(&opened, open_module);
	if (!calls && reason && reason_size)
		snprintf(reason, reason_size, "%s", failure);
	return calls;
}
