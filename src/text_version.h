/* -V: version order as GNU sort's filevercmp (gnulib filenvercmp): digit runs compare
 * as numbers, letters before other bytes, '~' before everything, file suffixes last. */
#ifndef GPUSORT_TEXT_VERSION_H
#define GPUSORT_TEXT_VERSION_H

#include <stddef.h>

int text_version_compare(const char *a, size_t alen, const char *b, size_t blen);

#endif
