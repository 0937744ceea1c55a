/* SPDX-License-Identifier: MIT */
/* The tests' oracle for sort items: the C library's qsort over items of a width. */
#ifndef GPUSORT_ITEM_ORACLE_H
#define GPUSORT_ITEM_ORACLE_H

#include <stddef.h>
#include "kernels/items.h"

/* Sorts n items of the width ascending with qsort. */
void item_oracle_sort(enum item_width width, void *items, size_t n);

#endif
