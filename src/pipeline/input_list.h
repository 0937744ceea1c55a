/* SPDX-License-Identifier: MIT */
/* The list of inputs of either mode: the operands (none: standard input), or the
 * NUL-terminated names read from the file that --files0-from names. */
#ifndef GPUSORT_INPUT_LIST_H
#define GPUSORT_INPUT_LIST_H

#include <stddef.h>
#include "../settings/input_range.h"

/* The inputs a job names. */
struct input_spec {
	const char **names;      /* the operands, in order; none means stdin ("-") */
	size_t count;
	/* NULL: every input whole; else the part of names[i] to read, for each i (set
	 * by the distributed sort for a rank's share, never with files0_from) */
	const struct input_range *ranges;
	const char *files0_from; /* --files0-from: the file that names the inputs instead */
};

struct input_list {
	const char **names;
	size_t count;
	const struct input_range *ranges; /* the part of each to read, or NULL: all */
	char *storage; /* the --files0-from text the names point into */
};

/* The list the spec names; check: -c or -C's letter (0: neither), which takes one
 * input. Returns 0, or 2 after reporting what was wrong with the list as GNU sort
 * words it (also a list of several names under -c or -C). */
int input_list_resolve(const struct input_spec *spec, int check, struct input_list *list);
void input_list_free(struct input_list *list);

#endif
