/* The list of text inputs: the operands, or the NUL-separated names of --files0-from. */
#ifndef GPUSORT_TEXT_INPUTS_H
#define GPUSORT_TEXT_INPUTS_H

#include <stddef.h>
#include "options.h"

struct text_inputs {
	const char **names;
	size_t count;
	char *storage; /* the --files0-from text the names point into */
};

/* Returns 0, or 2 after reporting what was wrong (as GNU sort words it). */
int text_inputs_resolve(const struct options *options, struct text_inputs *inputs);
void text_inputs_free(struct text_inputs *inputs);

#endif
