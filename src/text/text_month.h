/* SPDX-License-Identifier: MIT */
/* -M: month names as GNU sort reads them: the locale's abbreviated names (LC_TIME), or
 * JAN to DEC in the C locale. */
#ifndef GPUSORT_TEXT_MONTH_H
#define GPUSORT_TEXT_MONTH_H

#include <stddef.h>
#include "text_locale.h"

/* 1 (January) to 12 (December) for a key starting, after blanks, with a month's name
 * from `months` in any case (ASCII letters fold); 0 (before every month) otherwise. */
int text_month(const struct text_month_name months[12], const char *key, size_t len);
/* The same, and when a name matched, *matched (if not NULL) is where it ends: the
 * leading blanks and the name's bytes (GNU's getmonth's end pointer, for --debug). */
int text_month_match(const struct text_month_name months[12], const char *key, size_t len, size_t *matched);

#endif
