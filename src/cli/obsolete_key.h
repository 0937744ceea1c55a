/* SPDX-License-Identifier: MIT */
/* GNU sort's obsolete key syntax, +POS1 [-POS2] (fields and characters counted from
 * 0), read as GNU sort 9 reads it and turned into the KEYDEF it means. */
#ifndef GPUSORT_CLI_OBSOLETE_KEY_H
#define GPUSORT_CLI_OBSOLETE_KEY_H

#include <stdbool.h>
#include <stddef.h>

/* +POS1 (plus) and perhaps -POS2 (minus, or NULL) as a KEYDEF, into keydef. Returns 0
 * for a key, 1 when plus is no +POS1 (GNU then takes it as a file, silently), 2 after
 * reporting a bad -POS2. */
int obsolete_keydef(const char *plus, const char *minus, char *keydef, size_t size);

/* Whether GNU sort 9 reads +POS1 as a key: unless _POSIX2_VERSION names POSIX
 * 1003.1-2001 (200112 up to 200809, where +POS1 alone is a file). */
bool traditional_usage(void);

#endif
