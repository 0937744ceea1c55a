/* SPDX-License-Identifier: MIT */
/* Memory planning (see memory_plan.h). A chunk of n records costs its records, its
 * items and the engine's scratch copy of the items (the bucket sort relocates into a
 * second array); in-place forms need only the records and one scratch copy. With two
 * chunks (one sorting, one spilling) the scratch is needed by the sorting one only.
 * On a GPU the scratch copy lives in device memory, and the host's share of it covers
 * the engine's two pinned staging buffers (a quarter of the sort each, at most 64 MiB).
 * An eighth of the budget is kept for I/O: the input's read-ahead (a sixteenth, at
 * most 64 MiB) and the run writer's (a sixteenth) and the output's buffers. */
#include "config.h"
#include <stdint.h>
#include <unistd.h>
#include "../../io/input_file.h"
#include "memory_plan.h"
#include "../common/memory_limits.h"
#include "../common/size_parse.h"

#define MINIMUM_BUDGET ((size_t)1 << 20)
#define READ_AHEAD_MAX ((size_t)64 << 20)
#define RUN_BLOCK_BYTES_MAX ((size_t)1 << 20)
#define RUN_BLOCK_BYTES_MIN ((size_t)64 << 10)
/* Runs assumed when the input size is unknown (a pipe): the blocks then let the final
 * merge take this many runs in one pass. */
#define RUNS_WHEN_UNKNOWN 64
#define MERGE_FAN_IN_MAX 512
#define MERGE_OUTPUT_BYTES_MAX ((size_t)4 << 20)
#define MERGE_OUTPUT_BYTES_MIN ((size_t)64 << 10)

/* Where RLIMIT_AS or RLIMIT_DATA bounds the address space, what it holds beside the
 * budget: the stacks of the threads that come with each thread of the plan (a worker of
 * each of the two pools, a merge thread, a compressor: three at once at most), and of
 * the few of their own (the spill's, the run writer's, the output's, the GPU's). A plan
 * thread is given room for eight stacks, so that their buffers outside the budget fit. */
#define PLAN_THREAD_STACKS 3
#define OWN_THREAD_STACKS 4
#define PLAN_THREAD_ROOM_STACKS 8

/* The plan's threads the address space room holds (one at least); SIZE_MAX where it is
 * not bounded (room SIZE_MAX). */
static size_t address_threads(size_t room)
{
	if (room == SIZE_MAX)
		return SIZE_MAX;
	size_t each = PLAN_THREAD_ROOM_STACKS * memory_limit_thread_stack();
	return room / each > 1 ? room / each : 1;
}

static unsigned cores_online(void)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	return cores > 0 ? (unsigned)cores : 1;
}

size_t memory_budget_fit(size_t budget)
{
	/* the threads' stacks out of the room, and half of the rest for what no budget
	 * counts: libraries, the allocator's slack */
	size_t room = memory_limit_address_room();
	if (room != SIZE_MAX) {
		size_t threads = address_threads(room), cores = cores_online();
		size_t stacks = ((threads < cores ? threads : cores) * PLAN_THREAD_STACKS + OWN_THREAD_STACKS) *
				memory_limit_thread_stack();
		room = room > stacks ? room - stacks : 0;
		if (budget > room / 2)
			budget = room / 2;
	}
	while (budget > MINIMUM_BUDGET && !memory_limit_mappable(budget))
		budget /= 2;
	return budget < MINIMUM_BUDGET ? MINIMUM_BUDGET : budget;
}

size_t memory_budget_default(void)
{
	size_t budget = memory_limit_total() / 2;
	/* exceeding RLIMIT_RSS is not fatal, but slow: a sixteenth kept for the rest */
	size_t resident = memory_limit_resident();
	if (resident != SIZE_MAX && resident / 16 * 15 < budget)
		budget = resident / 16 * 15;
	return memory_budget_fit(budget);
}

/* What a thread of the spill and the merge needs of the budget when the threads are
 * not asked for: the merge gives each thread a block per run it merges (64 KiB at
 * least) and the run writer a block and its compressed copy per slot, so under a small
 * -S one thread per core would leave each a fan-in of a few runs (pass after pass over
 * the temp files) and hold more than the budget between them: on 32 cores, -S 16M took
 * 57 MiB and six merge passes. Two threads stay (one sorting while one spills); an
 * explicit --parallel is taken as asked, as GNU sort takes it, within what a bounded
 * address space holds. */
#define THREAD_BUDGET_MIN ((size_t)2 << 20)

static unsigned online_threads(unsigned asked, size_t budget)
{
	/* what a bounded address space holds, even where more were asked */
	size_t room_threads = address_threads(memory_limit_address_room());
	if (asked)
		return asked < room_threads ? asked : (unsigned)room_threads;
	unsigned threads = cores_online();
	size_t most = budget / THREAD_BUDGET_MIN;
	if (most < 2)
		most = 2;
	if (most > room_threads)
		most = room_threads;
	return threads > most ? (unsigned)most : threads;
}

unsigned memory_plan_threads(const struct memory_limits *limits, unsigned asked)
{
	return online_threads(asked, limits->budget ? limits->budget : memory_budget_default());
}

size_t memory_plan_read_ahead(size_t budget)
{
	size_t read_ahead = budget / 16 < READ_AHEAD_MAX ? budget / 16 : READ_AHEAD_MAX;
	input_file_set_read_ahead(read_ahead);
	return read_ahead;
}

static size_t binary_budget(const struct memory_limits *limits)
{
	size_t budget = limits->budget ? limits->budget : memory_budget_default();
	return budget < MINIMUM_BUDGET ? MINIMUM_BUDGET : budget;
}

static size_t chunk_budget_of(size_t budget)
{
	return budget - budget / 8;
}

size_t memory_plan_record_limit(const struct memory_limits *limits, size_t *budget)
{
	*budget = binary_budget(limits);
	/* a chunk holds at least one record and the one read after it */
	return chunk_budget_of(*budget) / 2;
}

void memory_plan_binary(const struct memory_limits *limits, const struct sort_engine_config *asked,
			const struct record_layout *layout, const struct sort_engine *engine, int64_t total_bytes,
			struct memory_plan *plan)
{
	size_t budget = binary_budget(limits);
	size_t read_ahead = memory_plan_read_ahead(budget);
	size_t chunk_budget = chunk_budget_of(budget);
	size_t upper = budget / layout->record_size;
	enum record_form form = record_form_choose(layout, upper);
	size_t width = record_form_width(form), size = layout->record_size;
	bool in_place = record_form_in_place(form);
	size_t one_chunk = chunk_budget / (in_place ? 2 * size : size + 2 * width);
	size_t two_chunks = chunk_budget / (in_place ? 3 * size : 2 * (size + width) + width);
	size_t chunk = one_chunk;
	bool overlap = false;
	if (total_bytes < 0 || (uint64_t)total_bytes / size > one_chunk) {
		chunk = two_chunks;
		overlap = true;
	}
	/* A whole input that fits one chunk goes to the engine in one call without asking
	 * its device first, so that reading it overlaps opening the GPU; should the device
	 * hold fewer items, the engine sorts that call on the CPU and says so. Chunks, and
	 * any input under --gpu-memory, are sized to what the device holds. */
	bool whole = total_bytes >= 0 && (uint64_t)total_bytes / size <= one_chunk;
	size_t engine_limit = whole && !asked->gpu_memory ? 0 : sort_engine_max_items(engine, width);
	if (engine_limit && chunk > engine_limit)
		chunk = engine_limit;
	if (total_bytes >= 0) {
		size_t total_records = (size_t)total_bytes / size;
		if (total_records < chunk)
			chunk = total_records;
	}
	if (chunk == 0)
		chunk = 1;
	plan->budget = budget;
	plan->chunk_records = chunk;
	plan->items_bytes = in_place ? 0 : chunk * width;
	plan->overlap = overlap;
	plan->threads = online_threads(asked->threads, budget);
	plan->read_ahead = read_ahead;
	plan->batch_size = limits->batch_size;
}

/* A text chunk holds at least this much, its lines' costs included (more than -S when
 * that is tiny): as many 27-byte lines as 64 KiB of text alone held before the costs
 * counted, so that a tiny -S makes no more runs than it did (under -S 64K, 300,000
 * lines on 3 ranks made 100 runs a rank at 64 KiB, whose removal, when mpirun stops the
 * ranks, then outlasted its grace on a loaded machine). */
#define TEXT_CHUNK_MIN ((size_t)160 << 10)

void memory_plan_text(const struct memory_limits *limits, const struct sort_engine_config *asked, int64_t total_bytes,
		      struct memory_plan *plan)
{
	size_t budget = limits->budget ? limits->budget : memory_budget_default();
	/* A chunk's lines and their costs (TEXT_LINE_COST each): seven sixteenths of the
	 * budget for each of two chunks, one sorting while the other spills, as records
	 * have it (an eighth kept for I/O), or five eighths for an input that fits one,
	 * whose output then takes up to a quarter (mapped) beside it. What is left serves
	 * the reads, the run writer and the output's rounds. */
	bool overlap = total_bytes < 0 || (uint64_t)total_bytes >= budget / 4;
	size_t chunk = overlap ? budget / 16 * 7 : budget / 8 * 5;
	*plan = (struct memory_plan){.budget = budget, .chunk_bytes = chunk > TEXT_CHUNK_MIN ? chunk : TEXT_CHUNK_MIN,
				     .overlap = overlap, .threads = online_threads(asked->threads, budget),
				     .read_ahead = memory_plan_read_ahead(budget), .batch_size = limits->batch_size};
}

size_t memory_plan_run_block_bytes(const struct memory_plan *plan, size_t expected_runs)
{
	size_t runs = expected_runs ? expected_runs : RUNS_WHEN_UNKNOWN;
	size_t threads = plan->threads ? plan->threads : 1;
	/* each merge thread holds one block per run, plus two of decompression scratch */
	size_t block = plan->budget / 2 / threads / (runs + 2);
	if (block > RUN_BLOCK_BYTES_MAX)
		block = RUN_BLOCK_BYTES_MAX;
	if (block < RUN_BLOCK_BYTES_MIN)
		block = RUN_BLOCK_BYTES_MIN;
	return block;
}

size_t memory_plan_merge_fan_in(const struct memory_plan *plan, size_t block_bytes)
{
	size_t threads = plan->threads ? plan->threads : 1;
	size_t blocks = plan->budget / 2 / threads / block_bytes;
	size_t fan_in = blocks > 2 ? blocks - 2 : 0;
	if (fan_in > MERGE_FAN_IN_MAX)
		fan_in = MERGE_FAN_IN_MAX;
	/* the user's cap, as GNU sort's NMERGE: more runs take more merge passes */
	if (plan->batch_size && fan_in > plan->batch_size)
		fan_in = plan->batch_size;
	return fan_in < 2 ? 2 : fan_in;
}

size_t memory_plan_merge_output_bytes(const struct memory_plan *plan)
{
	size_t threads = plan->threads ? plan->threads : 1;
	size_t bytes = plan->budget / 16 / threads;
	if (bytes > MERGE_OUTPUT_BYTES_MAX)
		bytes = MERGE_OUTPUT_BYTES_MAX;
	if (bytes < MERGE_OUTPUT_BYTES_MIN)
		bytes = MERGE_OUTPUT_BYTES_MIN;
	return bytes;
}

unsigned memory_plan_run_writer_depth(const struct memory_plan *plan, size_t block_bytes)
{
	size_t threads = plan->threads ? plan->threads : 1;
	/* a block and its compressed copy per slot, and the write queue's four buffers */
	size_t blocks = plan->budget / 16 / (block_bytes ? block_bytes : 1);
	size_t depth = blocks > 4 ? (blocks - 4) / 2 : 0;
	if (depth > 2 * threads + 2)
		depth = 2 * threads + 2;
	return depth < 4 ? 4 : (unsigned)depth;
}
