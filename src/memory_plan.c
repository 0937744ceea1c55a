/* Memory planning (see memory_plan.h). A chunk of n records costs its records, its
 * items and the engine's scratch copy of the items (the bucket sort relocates into a
 * second array); in-place forms need only the records and one scratch copy. */
#include "config.h"
#include "memory_plan.h"
#include "size_parse.h"

#define MINIMUM_BUDGET ((size_t)1 << 20)

size_t memory_budget_default(void)
{
	return physical_memory_bytes() / 2;
}

void memory_plan_binary(const struct options *options, const struct record_layout *layout,
			const struct sort_engine *engine, int64_t total_bytes, struct memory_plan *plan)
{
	size_t budget = options->memory_budget ? options->memory_budget : memory_budget_default();
	if (budget < MINIMUM_BUDGET)
		budget = MINIMUM_BUDGET;
	size_t upper = budget / layout->record_size;
	enum record_form form = record_form_choose(layout, upper);
	size_t width = record_form_width(form);
	size_t per_record = record_form_in_place(form) ? 2 * layout->record_size
						       : layout->record_size + 2 * width;
	size_t chunk = budget / per_record;
	size_t engine_limit = sort_engine_max_items(engine, record_form_width(form));
	if (engine_limit && chunk > engine_limit)
		chunk = engine_limit;
	if (total_bytes >= 0) {
		size_t total_records = (size_t)total_bytes / layout->record_size;
		if (total_records < chunk)
			chunk = total_records;
	}
	if (chunk == 0)
		chunk = 1;
	plan->budget = budget;
	plan->chunk_records = chunk;
	plan->items_bytes = record_form_in_place(form) ? 0 : chunk * width;
}
