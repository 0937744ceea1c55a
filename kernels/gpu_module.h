/* SPDX-License-Identifier: MIT */
/* The CUDA backend's module, gpusort-cuda.so (module_open.h): opened the first time a
 * GPU is asked for, so that a sort on the CPU loads neither the CUDA runtime nor the
 * C++ library it needs (their loading and static constructors cost a small sort more
 * than the sort). */
#ifndef GPUSORT_GPU_MODULE_H
#define GPUSORT_GPU_MODULE_H

#include <stddef.h>

struct gpu_backend_calls;

/* The module's path (NULL or empty: the installed one, else the build tree's), for
 * the settings layer to hand down (GPUSORT_CUDA_MODULE) before a GPU is first used. */
void gpu_module_choose(const char *path);
/* The backend's calls, or NULL with why not in reason (the loader's words, which name
 * the file). The first call opens the module; its outcome stays for the process. */
const struct gpu_backend_calls *gpu_module(char *reason, size_t reason_size);

#endif
