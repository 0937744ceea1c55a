/* Merging text inputs that are each already in order (-m, and the runs of an external
 * sort): a k-way merge by the full comparator, earlier inputs first among equals. */
#ifndef GPUSORT_TEXT_MERGE_H
#define GPUSORT_TEXT_MERGE_H

#include <stddef.h>
#include "../common/stats.h"
#include "../text/text_order.h"
#include "text_write.h"

/* One sorted input of a merge: next() gives its lines in order (1 with the line, valid
 * until the next call; 0 at the end; or a negative errno). */
struct text_source {
	int (*next)(void *state, const char **line, size_t *len);
	void *state;
};

/* Merges the sources into writer. Returns 0, or a negative errno with *failed set to
 * the source that failed (count when it was the writer). */
int text_merge_sources(const struct text_order *order, struct text_source *sources,
		       size_t count, struct text_writer *writer, size_t *failed);

/* Merges the named inputs into writer. Returns 0, or a negative errno with *failed set
 * to the name that failed (NULL when it was the output or memory). The inputs' reads
 * count in stats' read stage (stats may be NULL). */
int text_merge_files(const struct text_order *order, const char *const *names, size_t count,
		     struct text_writer *writer, const char **failed, struct sort_stats *stats);

#endif
