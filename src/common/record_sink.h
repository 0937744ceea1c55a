/* Where sorted records go, a block at a time: the output, a run file, a merge's buffer. */
#ifndef GPUSORT_RECORD_SINK_H
#define GPUSORT_RECORD_SINK_H

#include <stddef.h>

/* Receives records in order: count whole records in bytes[0, len) (lines with their
 * terminators). Returns 0 or a negative errno. */
typedef int (*record_sink)(void *context, const unsigned char *bytes, size_t len, size_t count);

#endif
