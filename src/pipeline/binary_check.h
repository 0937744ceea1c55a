/* -c and -C for binary records: is the input already in order? */
#ifndef GPUSORT_BINARY_CHECK_H
#define GPUSORT_BINARY_CHECK_H

#include "../settings/options.h"
#include "../binary/record_items.h"
#include "../binary/record_reader.h"

/* Returns 0 in order, 1 out of order (reported under -c), 2 on a read error. */
int binary_check(const struct options *options, const struct record_layout *layout,
		 struct record_reader *reader);

#endif
