/* SPDX-License-Identifier: MIT */
/* -c and -C of either mode: is the input already in order (strictly, under -u)? */
#ifndef GPUSORT_ORDER_CHECK_H
#define GPUSORT_ORDER_CHECK_H

#include <stdbool.h>
#include "record_order.h"

struct input_header;

/* Reads the input NAME ("-": standard input) as records of the order's kind and
 * compares each with the one before. mode is 'c' (the first disorder is reported, as
 * GNU sort does for lines: "gpusort: NAME:LINE: disorder: TEXT"; for binary records
 * "gpusort: NAME: disorder at record N") or 'C' (silent). When the input holds any
 * byte, admit(arg), where given, is asked first whether to go on: false (admit has
 * reported why) ends the check. header (NULL: none): --header's lines, skipped first
 * and counted in the line numbers reported. Returns the exit status: 0 in order, 1 disorder, 2
 * trouble (reported, naming the file). */
int order_check(const struct record_order *order, const char *name, int mode, struct input_header *header,
		bool (*admit)(const void *arg), const void *arg);

#endif
