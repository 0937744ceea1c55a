/* -M: month names as GNU sort reads them in the C locale. */
#ifndef GPUSORT_TEXT_MONTH_H
#define GPUSORT_TEXT_MONTH_H

#include <stddef.h>

/* 1 (JAN) to 12 (DEC) for a key starting, after blanks, with a month abbreviation in
 * any case; 0 (before every month) otherwise. */
int text_month(const char *key, size_t len);

#endif
