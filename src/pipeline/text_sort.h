/* Text mode: sorting, merging (-m) or checking (-c/-C) lines as GNU sort, in the locale. */
#ifndef GPUSORT_TEXT_SORT_H
#define GPUSORT_TEXT_SORT_H

#include "../settings/options.h"

/* Returns the exit status: 0, 1 (disorder under -c/-C) or 2 (trouble, reported). */
int text_sort_run(const struct options *options);

#endif
