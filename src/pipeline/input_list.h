/* The list of inputs of either mode: the operands (none: standard input), or the
 * NUL-terminated names read from the file that --files0-from names. */
#ifndef GPUSORT_INPUT_LIST_H
#define GPUSORT_INPUT_LIST_H

#include <stddef.h>
#include "sort_job.h"

struct input_list {
	const char **names;
	size_t count;
	const struct input_range *ranges; /* the part of each to read, or NULL: all */
	char *storage; /* the --files0-from text the names point into */
};

/* Returns 0, or 2 after reporting what was wrong with the list as GNU sort words it
 * (also a list of several names under -c or -C). */
int input_list_resolve(const struct sort_job *options, struct input_list *list);
void input_list_free(struct input_list *list);

#endif
