/* The external sort (see external_sort.h). */
#include "config.h"
#include "external_sort.h"
#include "report.h"

int external_sort_binary(const struct options *options, const struct record_layout *layout,
			 struct sort_engine *engine, struct record_reader *reader,
			 const struct memory_plan *plan, unsigned char *records, void *items,
			 struct sort_stats *stats)
{
	(void)options; (void)layout; (void)engine; (void)reader; (void)records; (void)items; (void)stats;
	report("input larger than the memory budget (%zu bytes): raise -S", plan->budget);
	return 2;
}

int external_merge_inputs(const struct options *options, const struct record_layout *layout,
			  struct sort_engine *engine, struct sort_stats *stats)
{
	(void)options; (void)layout; (void)engine; (void)stats;
	report("%s", "-m is not available for binary records yet");
	return 2;
}
