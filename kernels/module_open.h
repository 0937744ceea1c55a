/* SPDX-License-Identifier: MIT */
/* gpusort's modules (the CUDA backend's gpusort-cuda.so, the ranks' gpusort-mpi.so),
 * opened only when their part is used, so that a sort that needs neither loads neither
 * the CUDA runtime nor an MPI library. */
#ifndef GPUSORT_MODULE_OPEN_H
#define GPUSORT_MODULE_OPEN_H

#include <stddef.h>

/* The module's symbol `symbol`, from the chosen path when one is given (not empty),
 * else from the installed path, else from the build tree's .libs/FILE beside this
 * program (libtool's). NULL with the reason in why: dlerror's words, which name the
 * file, or "FILE: not this gpusort's" where the symbol is missing. RTLD_GLOBAL: Open
 * MPI's plugins look for libmpi's symbols globally. */
void *module_open(const char *chosen, const char *installed, const char *file, const char *symbol, char *why,
		  size_t why_size);

#endif
