/* SPDX-License-Identifier: MIT */
/* gpusort_sort_records(): a caller's buffer of records sorted in place by one binary
 * key, on the engine the pipeline uses (kernels/sort_engine.h) with binary mode's
 * items (src/binary/record_items.h): records become key-image items, the engine sorts
 * them, and the records are gathered in item order into a copy that replaces the
 * buffer once the self-check has passed. */
#include "config.h"
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "job_options.h"
#include "../binary/record_items.h"
#include "../common/environment.h"
#include "../common/verify.h"
#include "../../kernels/sort_engine.h"

/* As the command's binary mode: below this many bytes of items, --device=auto sorts on
 * the CPU threads, which finish before a GPU's context would be up. */
#define RECORDS_GPU_MIN_ITEM_BYTES ((uint64_t)256 << 20)

#define SORT_OPTIONS_OLDEST_SIZE (offsetof(struct gpusort_sort_options, verify) + sizeof(int))

int gpusort_sort_options_init(struct gpusort_sort_options *options, size_t options_size)
{
	if (!options)
		return GPUSORT_ERROR_INVALID_ARGUMENT;
	if (options_size < SORT_OPTIONS_OLDEST_SIZE)
		return GPUSORT_ERROR_STRUCT_SIZE;
	memset(options, 0, options_size);
	struct gpusort_sort_options defaults = {
		.size = options_size,
		.device = GPUSORT_DEVICE_AUTO,
		.algorithm = GPUSORT_ALGORITHM_BUCKET,
		.verify = 1,
	};
	memcpy(options, &defaults, options_size < sizeof defaults ? options_size : sizeof defaults);
	return GPUSORT_OK;
}

/* One field of the key in records of record_size bytes, or INVALID_ARGUMENT. */
static int field_from_key(const struct gpusort_binary_key *key, size_t record_size, struct key_field *field)
{
	static const enum key_type types[] = {KEY_U32, KEY_I32, KEY_U64, KEY_I64, KEY_F32, KEY_F64, KEY_BYTES};
	if ((unsigned)key->type > GPUSORT_KEY_BYTES)
		return GPUSORT_ERROR_INVALID_ARGUMENT;
	for (size_t i = 0; i < sizeof key->reserved / sizeof key->reserved[0]; i++)
		if (key->reserved[i])
			return GPUSORT_ERROR_INVALID_ARGUMENT;
	*field = (struct key_field){.type = types[key->type], .offset = key->offset,
				    .descending = key->descending != 0};
	size_t type_size = key_type_size(field->type);
	if (field->type == KEY_BYTES)
		field->size = key->size ? key->size : key->offset < record_size ? record_size - key->offset : 0;
	else if (key->size && key->size != type_size)
		return GPUSORT_ERROR_INVALID_ARGUMENT;
	else
		field->size = type_size;
	if (!field->size || key->offset > record_size || field->size > record_size - key->offset)
		return GPUSORT_ERROR_INVALID_ARGUMENT;
	return GPUSORT_OK;
}

static int engine_error(int error)
{
	return error == -ENOMEM ? GPUSORT_ERROR_NO_MEMORY : GPUSORT_ERROR_DEVICE;
}

/* The engine for n records: the options' device, except that --device=auto keeps small
 * sorts, and sorts the GPU cannot hold in one piece, on the CPU threads. */
static int open_engine(const struct gpusort_sort_options *options, const struct record_layout *layout,
		       size_t n, struct sort_engine **engine)
{
	static const enum sort_algorithm algorithms[] = {SORT_BUCKET, SORT_SAMPLE, SORT_RADIX, SORT_BITONIC,
							 SORT_QUICK};
	struct sort_engine_config config = {
		.device = options->device == GPUSORT_DEVICE_AUTO ? SORT_DEVICE_AUTO
			  : options->device == GPUSORT_DEVICE_CPU ? SORT_DEVICE_CPU : options->device,
		.threads = options->threads,
		.gpu_memory = options->gpu_memory,
		.algorithm = algorithms[options->algorithm],
		.staged_only = environment_switch(ENVIRONMENT_HOST_REGISTER) == 0,
	};
	enum item_width width = record_form_width(record_form_choose(layout, n));
	if (config.device == SORT_DEVICE_AUTO && (uint64_t)n * width < RECORDS_GPU_MIN_ITEM_BYTES)
		config.device = SORT_DEVICE_CPU;
	int error = sort_engine_open(&config, engine);
	if (error)
		return engine_error(error);
	if (!sort_engine_uses_gpu(*engine) || n <= sort_engine_max_items(*engine, width))
		return GPUSORT_OK;
	sort_engine_close(*engine);
	*engine = NULL;
	if (options->device != GPUSORT_DEVICE_AUTO)
		return GPUSORT_ERROR_DEVICE;
	config.device = SORT_DEVICE_CPU;
	error = sort_engine_open(&config, engine);
	return error ? engine_error(error) : GPUSORT_OK;
}

/* Where the sorted records go: a copy, or (bare keys, restored in place) the buffer. */
struct copy_sink {
	unsigned char *out;
	size_t record_size;
	size_t done;
};

static int copy_records(void *context, const unsigned char *records, size_t bytes, size_t count)
{
	struct copy_sink *sink = context;
	unsigned char *to = sink->out + sink->done * sink->record_size;
	if (to != records)
		memcpy(to, records, bytes);
	sink->done += count;
	return 0;
}

/* Sorts with the engine open; the copy (out) replaces the records only when all went
 * well. Bare keys are sorted in the buffer itself (their items are the records). */
static int sort_on_engine(struct sort_engine *engine, struct record_layout *layout, unsigned char *records,
			  size_t n, bool verify_enabled)
{
	struct sort_verify verify;
	sort_verify_init(&verify, verify_enabled);
	/* as the command's sort in memory: records behind items are counted by position */
	verify.by_position = true;
	layout->pool = sort_engine_thread_pool(engine);
	layout->verify = &verify;
	enum record_form form = record_form_choose(layout, n);
	enum item_width width = record_form_width(form);
	bool in_place = record_form_in_place(form);
	size_t items_bytes = in_place ? 0 : n * (size_t)width;
	void *items = in_place ? records : sort_engine_host_alloc(engine, items_bytes);
	unsigned char *out = in_place ? records : malloc(n * layout->record_size);
	int code = GPUSORT_OK;
	if (!items || !out) {
		code = GPUSORT_ERROR_NO_MEMORY;
		goto out;
	}
	record_items_build(layout, form, records, n, items);
	int error = sort_engine_sort(engine, width, items, n);
	sort_engine_host_trim(engine); /* one sort a call: its scratch is not wanted again */
	if (error)
		code = engine_error(error);
	else
		sort_verify_plant_test_bug(items, n, width);
	record_items_finish_ties(layout, form, records, items, n);
	/* Bare keys go back from images to keys here whatever happened, so the buffer holds
	 * the caller's records again. */
	struct copy_sink sink = {out, layout->record_size, 0};
	error = code == GPUSORT_OK || in_place
		? record_items_emit(layout, form, records, items, n, false,
				    &(struct emit_output){.sink = copy_records, .context = &sink, .to_output = true})
		: 0;
	if (code == GPUSORT_OK && error)
		code = error == -ENOMEM ? GPUSORT_ERROR_NO_MEMORY : GPUSORT_ERROR_INTERNAL;
	char what[160];
	if (code == GPUSORT_OK && (sink.done != n || sort_verify_finish(&verify, what, sizeof what) != 0))
		code = GPUSORT_ERROR_INTERNAL;
	if (code == GPUSORT_OK && !in_place)
		memcpy(records, out, n * layout->record_size);
out:
	if (!in_place) {
		free(out);
		if (items)
			sort_engine_host_free(engine, items, items_bytes);
	}
	return code;
}

/* The records sorted by the layout's key with the options, or why not. */
static int sort_records(void *records, size_t count, struct record_layout *layout,
			const struct gpusort_sort_options *options)
{
	if (count && !records)
		return GPUSORT_ERROR_INVALID_ARGUMENT;
	if (count > SIZE_MAX / layout->record_size)
		return GPUSORT_ERROR_INVALID_ARGUMENT;
	if (count < 2)
		return GPUSORT_OK;
	struct sort_engine *engine;
	int code = open_engine(options, layout, count, &engine);
	if (code != GPUSORT_OK)
		return code;
	code = sort_on_engine(engine, layout, records, count, options->verify != 0);
	sort_engine_close(engine);
	return code;
}

int gpusort_sort_records(void *records, size_t count, size_t record_size, const struct gpusort_binary_key *key,
			 size_t key_field_count, const struct gpusort_sort_options *given)
{
	environment_apply();
	struct gpusort_sort_options options;
	gpusort_sort_options_init(&options, sizeof options);
	if (given) {
		int code = job_struct_copy(&options, sizeof options, SORT_OPTIONS_OLDEST_SIZE, given);
		if (code != GPUSORT_OK)
			return code;
	}
	if (options.device < GPUSORT_DEVICE_CPU || (unsigned)options.algorithm > GPUSORT_ALGORITHM_QUICK)
		return GPUSORT_ERROR_INVALID_ARGUMENT;
	if (!key || !key_field_count || !record_size)
		return GPUSORT_ERROR_INVALID_ARGUMENT;
	struct key_field *fields = calloc(key_field_count, sizeof *fields);
	if (!fields)
		return GPUSORT_ERROR_NO_MEMORY;
	int code = GPUSORT_OK;
	for (size_t i = 0; i < key_field_count && code == GPUSORT_OK; i++)
		code = field_from_key(&key[i], record_size, &fields[i]);
	if (code == GPUSORT_OK) {
		struct record_layout layout;
		record_layout_init(&layout, record_size, fields, key_field_count);
		code = sort_records(records, count, &layout, &options);
	}
	free(fields);
	return code;
}
