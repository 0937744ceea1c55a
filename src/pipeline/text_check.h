/* -c and -C for text: is the input already in order (strictly, under -u)? */
#ifndef GPUSORT_TEXT_CHECK_H
#define GPUSORT_TEXT_CHECK_H

#include "../text/text_order.h"

/* Returns the exit status: 0 in order, 1 disorder (with -c reported as GNU sort does:
 * "gpusort: FILE:LINE: disorder: TEXT"), 2 trouble (reported). */
int text_check(const struct text_order *order, const char *name, int mode);

#endif
