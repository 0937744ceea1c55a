/* SPDX-License-Identifier: MIT */
/* Items from binary records: the layout, the form an item takes, the items built on the
 * pool, and ties of long keys finished after the engine (see record_items.h). */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "../../kernels/thread_pool.h"
#include "composite_key.h"
#include "key_image.h"
#include "record_items.h"
#include "../common/verify.h"

void record_layout_init(struct record_layout *layout, size_t record_size, const struct key_field *fields,
			size_t count)
{
	size_t first = SIZE_MAX, end = 0;
	for (size_t i = 0; i < count; i++) {
		first = fields[i].offset < first ? fields[i].offset : first;
		end = fields[i].offset + fields[i].size > end ? fields[i].offset + fields[i].size : end;
	}
	*layout = (struct record_layout){.record_size = record_size, .fields = fields, .field_count = count,
					 .image_size = composite_image_size(fields, count),
					 .key_span_offset = first, .key_span_size = end - first};
}

void record_layout_from_key(const struct binary_key *key, struct record_layout *layout)
{
	record_layout_init(layout, key->record_size, key->fields, key->field_count);
}

/* A 64-bit image (or prefix) beside the position: 12 bytes while positions fit 32 bits. */
static enum record_form key64_form(size_t n)
{
	return item_positions_fit_u32(n) ? FORM_KEY64_POS32 : FORM_KEY64_POS64;
}

static enum record_form prefix64_form(size_t n)
{
	return item_positions_fit_u32(n) ? FORM_PREFIX64_POS32 : FORM_PREFIX64_POS64;
}

/* Several fields: the narrowest item their image fits, else its first 8 bytes. */
static enum record_form composite_form(const struct record_layout *layout, size_t n)
{
	if (layout->image_size <= 4 && item_positions_fit_u32(n))
		return FORM_KEY32_POS32;
	if (layout->image_size <= 8)
		return key64_form(n);
	if (layout->image_size <= 10 && n < ((uint64_t)1 << 48))
		return FORM_KEY80_POS48;
	return prefix64_form(n);
}

enum record_form record_form_choose(const struct record_layout *layout, size_t n)
{
	if (layout->field_count > 1)
		return composite_form(layout, n);
	const struct key_field *key = layout->fields;
	bool bare = layout->record_size == key->size && key_image_is_bijective(key->type);
	if (key->type == KEY_BYTES) {
		if (key->size <= 8)
			return key64_form(n);
		if (key->size <= 10 && n < ((uint64_t)1 << 48))
			return FORM_KEY80_POS48;
		return prefix64_form(n);
	}
	if (key_type_size(key->type) == 4) {
		if (bare)
			return FORM_BARE_KEY32;
		return item_positions_fit_u32(n) ? FORM_KEY32_POS32 : key64_form(n);
	}
	return bare ? FORM_BARE_KEY64 : key64_form(n);
}

enum item_width record_form_width(enum record_form form)
{
	switch (form) {
	case FORM_BARE_KEY32: return ITEM_U32;
	case FORM_BARE_KEY64: case FORM_KEY32_POS32: return ITEM_U64;
	case FORM_KEY64_POS32: case FORM_PREFIX64_POS32: return ITEM_U96;
	default: return ITEM_U128;
	}
}

bool record_form_in_place(enum record_form form)
{
	return form == FORM_BARE_KEY32 || form == FORM_BARE_KEY64;
}

/* The image with its direction applied: a descending key's complemented within the
 * key's bits, so the sort stays ascending over items and equal keys keep their input
 * order. Several fields: the composite image's first 8 bytes (4 when it is that short,
 * for FORM_KEY32_POS32). */
static uint64_t ordered_image(const struct record_layout *layout, const unsigned char *record)
{
	if (layout->field_count > 1) {
		uint64_t prefix = composite_image_prefix(layout->fields, layout->field_count, record);
		return layout->image_size <= 4 ? prefix >> 32 : prefix;
	}
	const struct key_field *key = layout->fields;
	uint64_t image = key_image(key->type, record + key->offset, key->size);
	if (key->descending)
		image = key_type_size(key->type) == 4 ? (uint32_t)~image : ~image;
	return image;
}

/* Bytes 9 and 10 of a 9- or 10-byte image, as the low 16 bits of an 80-bit one. */
static uint64_t tail16(const struct record_layout *layout, const unsigned char *record)
{
	unsigned char head[10];
	const unsigned char *image = head;
	if (layout->field_count > 1)
		composite_image_head(layout->fields, layout->field_count, record, head, sizeof head);
	else /* one bytes key is its own image */
		image = record + layout->fields->offset;
	uint64_t tail = ((uint64_t)image[8] << 8) | (layout->image_size > 9 ? image[9] : 0);
	return layout->field_count == 1 && layout->fields->descending ? (~tail & 0xffff) : tail;
}

/* Builds items [begin, end); positions are global record indices. */
static void build_range(const struct record_layout *layout, enum record_form form,
			unsigned char *records, size_t begin, size_t end, void *items)
{
	size_t size = layout->record_size;
	switch (form) {
	case FORM_BARE_KEY32:
	case FORM_BARE_KEY64:
		break; /* in place, by bare_pass */
	case FORM_KEY32_POS32: {
		uint64_t *out = items;
		for (size_t i = begin; i < end; i++)
			out[i] = ordered_image(layout, records + i * size) << 32 | (uint64_t)i;
		break;
	}
	case FORM_KEY64_POS32:
	case FORM_PREFIX64_POS32: {
		item_u96 *out = items;
		for (size_t i = begin; i < end; i++)
			out[i] = item_u96_make(ordered_image(layout, records + i * size), (uint32_t)i);
		break;
	}
	case FORM_KEY64_POS64:
	case FORM_PREFIX64_POS64: {
		item_u128 *out = items;
		for (size_t i = begin; i < end; i++)
			out[i] = item_u128_make(ordered_image(layout, records + i * size), i);
		break;
	}
	case FORM_KEY80_POS48: {
		item_u128 *out = items;
		for (size_t i = begin; i < end; i++) {
			const unsigned char *record = records + i * size;
			uint64_t high = ordered_image(layout, record);
			uint64_t low = tail16(layout, record) << 48 | (uint64_t)i;
			out[i] = item_u128_make(high, low);
		}
		break;
	}
	}
}

struct build_job {
	const struct record_layout *layout;
	enum record_form form;
	unsigned char *records;
	size_t n;
	void *items;
};

static void build_slice(void *context, size_t slice)
{
	struct build_job *job = context;
	size_t begin = slice * RECORD_SLICE_RECORDS;
	size_t end = begin + RECORD_SLICE_RECORDS < job->n ? begin + RECORD_SLICE_RECORDS : job->n;
	struct sort_verify *verify = job->layout->verify;
	if (verify && !verify->enabled)
		verify = NULL;
	if (record_form_in_place(job->form)) {
		record_bare_slice(job->layout, job->form, job->records, begin, end, false, false, verify);
		return;
	}
	if (!verify || verify->by_position) {
		build_range(job->layout, job->form, job->records, begin, end, job->items);
		if (verify) { /* the records are their positions: a closed form, nothing to read */
			struct fingerprint print = {0, 0};
			fingerprint_add_positions(&print, begin, end);
			sort_verify_input(verify, &print);
		}
		return;
	}
	uint64_t spent = 0;
	struct fingerprint print = {0, 0};
	const struct record_layout *layout = job->layout;
	size_t size = layout->record_size;
	/* pieces small enough that the build finds each in cache after its check */
	for (size_t piece = begin; piece < end; piece += RECORD_CHECK_PIECE) {
		size_t stop = piece + RECORD_CHECK_PIECE < end ? piece + RECORD_CHECK_PIECE : end;
		uint64_t started = sort_verify_clock();
		for (size_t i = piece; i < stop; i++)
			fingerprint_add(&print, job->records + i * size + layout->key_span_offset, layout->key_span_size);
		spent += sort_verify_clock() - started;
		build_range(layout, job->form, job->records, piece, stop, job->items);
	}
	sort_verify_input(verify, &print);
	sort_verify_time(verify, sort_verify_clock() - spent);
}

void record_items_build(const struct record_layout *layout, enum record_form form,
			unsigned char *records, size_t n, void *items)
{
	struct build_job job = {layout, form, records, n, items};
	size_t slices = (n + RECORD_SLICE_RECORDS - 1) / RECORD_SLICE_RECORDS;
	thread_pool_parallel_for(layout->pool, slices, build_slice, &job);
}


struct tie_context {
	const struct record_layout *layout;
	const unsigned char *records;
	size_t width; /* of the items: ITEM_U96 or ITEM_U128 */
};

static int compare_full_keys(const struct tie_context *context, size_t a, size_t b)
{
	const struct record_layout *layout = context->layout;
	int order = composite_key_compare(layout->fields, layout->field_count,
					  context->records + a * layout->record_size,
					  context->records + b * layout->record_size);
	if (order)
		return order;
	return (a > b) - (a < b);
}

/* Tie runs are items whose 8-byte prefixes are equal; the full key (every field, each in
 * its direction), then the position, orders them, so the result is the same stable
 * order the whole key would give. */
static int qsort_tie_compare(const void *a, const void *b, void *argument)
{
	const struct tie_context *context = argument;
	return compare_full_keys(context, item_pair_position(context->width, a), item_pair_position(context->width, b));
}

/* Items per slice of the tie finishing: a thread finishes the tie runs that start in
 * its slice, however far they reach. */
#define TIE_SLICE_ITEMS ((size_t)1 << 16)

struct ties_job {
	unsigned char *items;
	size_t n;
	struct tie_context context;
};

/* Whether a tie run is in order already: its full keys equal or rising with the
 * positions, as when they differ in their first 8 bytes alone or not at all (few
 * distinct keys); one pass, far cheaper than sorting a long run. */
static bool tie_run_in_order(const unsigned char *run, size_t count, struct tie_context *context)
{
	size_t w = context->width;
	for (size_t i = 1; i < count; i++)
		if (qsort_tie_compare(run + (i - 1) * w, run + i * w, context) > 0)
			return false;
	return true;
}

static void finish_ties_slice(void *argument, size_t slice)
{
	struct ties_job *job = argument;
	const unsigned char *sorted = job->items;
	size_t w = job->context.width;
	size_t start = slice * TIE_SLICE_ITEMS, stop = start + TIE_SLICE_ITEMS < job->n ? start + TIE_SLICE_ITEMS : job->n;
	/* a run that began in the slice before is that slice's */
	if (start > 0)
		while (start < stop && item_pair_image(w, sorted + start * w) == item_pair_image(w, sorted + (start - 1) * w))
			start++;
	while (start < stop) {
		size_t end = start + 1;
		uint64_t prefix = item_pair_image(w, sorted + start * w);
		while (end < job->n && item_pair_image(w, sorted + end * w) == prefix)
			end++;
		if (end - start > 1 && !tie_run_in_order(sorted + start * w, end - start, &job->context))
			qsort_r(job->items + start * w, end - start, w, qsort_tie_compare, &job->context);
		start = end;
	}
}

void record_items_finish_ties(const struct record_layout *layout, enum record_form form,
			      const unsigned char *records, void *items, size_t n)
{
	if (form != FORM_PREFIX64_POS32 && form != FORM_PREFIX64_POS64)
		return;
	struct ties_job job = {items, n, {layout, records, record_form_width(form)}};
	thread_pool_parallel_for(layout->pool, (n + TIE_SLICE_ITEMS - 1) / TIE_SLICE_ITEMS, finish_ties_slice, &job);
}
