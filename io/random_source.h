/* SPDX-License-Identifier: MIT */
/* The salt of a random order (-R): bytes read from --random-source's file, or drawn
 * from the kernel (getrandom) when there is none. What they salt is not io's concern. */
#ifndef GPUSORT_RANDOM_SOURCE_H
#define GPUSORT_RANDOM_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

/* Fills bytes[0, size) with the first size bytes of the file name, or from getrandom()
 * when name is NULL. Returns 0 or a negative errno; *open_failed tells whether opening
 * failed (GNU's "open failed: FILE: ...") rather than reading, and -ENODATA means the
 * file ended before size bytes (GNU's "'FILE': end of file"). */
int random_source_read(const char *name, void *bytes, size_t size, bool *open_failed);

#endif
