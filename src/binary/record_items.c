/* SPDX-License-Identifier: MIT */
/* Items from binary records and records back from sorted items (see record_items.h). */
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

/* Gathered records go out in blocks of 1/16 of the chunk, 4 to 64 MiB: large blocks let
 * the output write them on several threads, small chunks keep the block small. Two
 * blocks: one is written while the next is gathered. */
#define EMIT_BLOCK_MIN ((size_t)4 << 20)
#define EMIT_BLOCK_MAX ((size_t)64 << 20)
/* Records sorted in place need no copy: they go out in pieces this large. */
#define EMIT_IN_PLACE_BYTES ((size_t)256 << 20)
/* Records per piece of work handed to a thread when building items or restoring keys. */
#define SLICE_RECORDS ((size_t)1 << 20)
/* Records per slice of a gather (one thread's piece of work): small enough to balance,
 * large enough to amortize. */
#define GATHER_SLICE_RECORDS ((size_t)16 << 10)

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

/* Bare keys (records that are their keys, of an integer type) are their images up to a
 * mask: the sign bit of a signed type, and every bit under -r. */
uint64_t record_form_bare_mask(const struct record_layout *layout, enum record_form form)
{
	uint64_t all = form == FORM_BARE_KEY32 ? 0xffffffffu : ~0ull;
	enum key_type type = layout->fields->type;
	uint64_t sign = type == KEY_I32 || type == KEY_I64 ? all ^ (all >> 1) : 0;
	return layout->fields->descending ? sign ^ all : sign;
}

/* One pass over bare keys x[0, n): each turned into its image or back by the mask and,
 * when print is set, the self-check done in the same pass: the keys' fingerprint and,
 * restoring, adjacent images out of order (>= under -u, where equal ones were dropped)
 * within x[0, n). Returns that disorder. Restoring goes piece by piece, each checked while in cache; every loop is
 * simple enough to vectorize (VERIFY_VECTORIZED), one function per width. */
#define BARE_PIECE ((size_t)2048)
#define BARE_PASS(name, type) \
VERIFY_VECTORIZED static uint64_t name(type *x, size_t n, type mask, bool restoring, bool unique, \
				       struct fingerprint *print) \
{ \
	uint64_t sum = 0, disorder = 0; \
	if (!print) { \
		for (size_t i = 0; i < n; i++) \
			x[i] ^= mask; \
		return 0; \
	} \
	for (size_t piece = 0; piece < n; piece += BARE_PIECE) { \
		size_t stop = n - piece > BARE_PIECE ? piece + BARE_PIECE : n; \
		size_t pairs_end = stop < n ? stop + 1 : stop; \
		if (restoring && unique) \
			for (size_t i = piece + 1; i < pairs_end; i++) \
				disorder += x[i - 1] >= x[i]; \
		else if (restoring) \
			for (size_t i = piece + 1; i < pairs_end; i++) \
				disorder += x[i - 1] > x[i]; \
		if (restoring) \
			for (size_t i = piece; i < stop; i++) { \
				x[i] ^= mask; \
				sum += fingerprint_key(x[i]); \
			} \
		else \
			for (size_t i = piece; i < stop; i++) { \
				sum += fingerprint_key(x[i]); \
				x[i] ^= mask; \
			} \
	} \
	print->count += n; \
	print->sum += sum; \
	return disorder; \
}
BARE_PASS(bare_pass32, uint32_t)
BARE_PASS(bare_pass64, uint64_t)

/* Bare keys [begin, end) of a slice: one pass, with the self-check when verify is set.
 * The checks share their loop, so their time is taken apart on a sample: the checks
 * alone over the slice's last piece, still in cache, scaled to the slice. */
static void bare_slice(const struct record_layout *layout, enum record_form form, unsigned char *records,
		       size_t begin, size_t end, bool restoring, bool unique, struct sort_verify *verify)
{
	uint64_t mask = record_form_bare_mask(layout, form);
	struct fingerprint print = {0, 0}, *checked = verify ? &print : NULL;
	size_t n = end - begin;
	/* the pair across two slices is checked by their caller */
	uint64_t disorder = form == FORM_BARE_KEY32
		? bare_pass32((uint32_t *)records + begin, n, (uint32_t)mask, restoring, unique, checked)
		: bare_pass64((uint64_t *)records + begin, n, mask, restoring, unique, checked);
	if (!verify || n == 0)
		return;
	if (restoring)
		sort_verify_output(verify, &print, disorder);
	else
		sort_verify_input(verify, &print);
	size_t sample = n < BARE_PIECE ? n : BARE_PIECE;
	uint64_t started = sort_verify_clock();
	struct fingerprint scratch = {0, 0};
	volatile uint64_t sink; /* this thread's own: the passes' results are kept, not shared */
	/* the same work on keys already in place: a pass that masks nothing */
	if (form == FORM_BARE_KEY32) {
		uint32_t *x = (uint32_t *)records + end - sample;
		sink = bare_pass32(x, sample, 0, restoring, unique, &scratch);
	} else {
		uint64_t *x = (uint64_t *)records + end - sample;
		sink = bare_pass64(x, sample, 0, restoring, unique, &scratch);
	}
	sink += scratch.sum;
	uint64_t scaled = (sort_verify_clock() - started) * (n / sample);
	sort_verify_time(verify, sort_verify_clock() - scaled);
}

/* Images of bare keys x[0, n) into images, with the keys' fingerprint when print is set. */
#define BARE_INTO(name, type) \
VERIFY_VECTORIZED static void name(const type *x, type *images, size_t n, type mask, struct fingerprint *print) \
{ \
	uint64_t sum = 0; \
	if (!print) { \
		for (size_t i = 0; i < n; i++) \
			images[i] = x[i] ^ mask; \
		return; \
	} \
	for (size_t i = 0; i < n; i++) { \
		images[i] = x[i] ^ mask; \
		sum += fingerprint_key(x[i]); \
	} \
	print->count += n; \
	print->sum += sum; \
}
BARE_INTO(bare_into32, uint32_t)
BARE_INTO(bare_into64, uint64_t)

void record_items_build_bare_into(const struct record_layout *layout, enum record_form form,
				  const unsigned char *records, size_t n, void *images)
{
	struct sort_verify *verify = layout->verify && layout->verify->enabled ? layout->verify : NULL;
	struct fingerprint print = {0, 0};
	uint64_t mask = record_form_bare_mask(layout, form);
	if (form == FORM_BARE_KEY32)
		bare_into32((const uint32_t *)records, images, n, (uint32_t)mask, verify ? &print : NULL);
	else
		bare_into64((const uint64_t *)records, images, n, mask, verify ? &print : NULL);
	if (verify)
		sort_verify_input(verify, &print);
}

void record_items_restore_bare(const struct record_layout *layout, enum record_form form, unsigned char *records,
			       size_t n)
{
	struct sort_verify *verify = layout->verify && layout->verify->enabled ? layout->verify : NULL;
	bare_slice(layout, form, records, 0, n, true, false, verify);
}

static void build_slice(void *context, size_t slice)
{
	struct build_job *job = context;
	size_t begin = slice * SLICE_RECORDS;
	size_t end = begin + SLICE_RECORDS < job->n ? begin + SLICE_RECORDS : job->n;
	struct sort_verify *verify = job->layout->verify;
	if (verify && !verify->enabled)
		verify = NULL;
	if (record_form_in_place(job->form)) {
		bare_slice(job->layout, job->form, job->records, begin, end, false, false, verify);
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
	for (size_t piece = begin; piece < end; piece += BARE_PIECE) {
		size_t stop = piece + BARE_PIECE < end ? piece + BARE_PIECE : end;
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
	thread_pool_parallel_for(layout->pool, (n + SLICE_RECORDS - 1) / SLICE_RECORDS, build_slice, &job);
}

/* Position of an item of any positional form. */
static size_t item_position(enum record_form form, const void *items, size_t i)
{
	switch (form) {
	case FORM_KEY32_POS32: return (uint32_t)((const uint64_t *)items)[i];
	case FORM_KEY64_POS32:
	case FORM_PREFIX64_POS32: return item_u96_position(((const item_u96 *)items)[i]);
	case FORM_KEY80_POS48: return item_u128_low(((const item_u128 *)items)[i]) & 0xffffffffffffULL;
	default: return item_u128_low(((const item_u128 *)items)[i]);
	}
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

/* The image of bare record i (its key's image, before restoring). */
static inline uint64_t bare_image(enum record_form form, const unsigned char *records, size_t i)
{
	return form == FORM_BARE_KEY32 ? ((const uint32_t *)records)[i] : ((const uint64_t *)records)[i];
}

struct restore_job {
	const struct record_layout *layout;
	enum record_form form;
	unsigned char *records;
	size_t n;
	bool unique;
	bool to_output;
	struct offset_writes *out;
	/* -u: per slice, how many of its records it kept (at its start), and where the
	 * first of them goes in the output; NULL: every record is kept, in place */
	const size_t *kept, *put;
};

/* Checks, then turns images back into keys, in place (bare forms: record == key), and
 * with a positional sink writes the slice at once, while it is in cache. */
static void restore_slice(void *context, size_t slice)
{
	struct restore_job *job = context;
	const struct record_layout *layout = job->layout;
	size_t begin = slice * SLICE_RECORDS;
	size_t end = begin + SLICE_RECORDS < job->n ? begin + SLICE_RECORDS : job->n;
	size_t first = begin;
	if (job->kept) {
		end = begin + job->kept[slice];
		first = job->put[slice];
	}
	struct sort_verify *verify = layout->verify && layout->verify->enabled && job->to_output ? layout->verify : NULL;
	bare_slice(layout, job->form, job->records, begin, end, true, job->unique, verify);
	offset_writes_put(job->out, job->records + begin * layout->record_size, (end - begin) * layout->record_size,
			      (uint64_t)first * layout->record_size);
}

/* -u on sorted bare images, a slice at a time: the slice keeps the first of each run of
 * equal images, moved to its start (the image before the slice, taken before any slice
 * moved, decides its first); the dropped ones still count as put out (the self-check),
 * and an image below its predecessor is disorder. */
struct unique_bare_job {
	const struct record_layout *layout;
	enum record_form form;
	unsigned char *records;
	size_t n;
	const uint64_t *before; /* per slice: the image before its first (unused for slice 0) */
	size_t *kept;
};

static void drop_equal_slice(void *context, size_t slice)
{
	struct unique_bare_job *job = context;
	const struct record_layout *layout = job->layout;
	size_t size = layout->record_size, begin = slice * SLICE_RECORDS, kept = begin;
	size_t end = begin + SLICE_RECORDS < job->n ? begin + SLICE_RECORDS : job->n;
	struct sort_verify *verify = layout->verify && layout->verify->enabled ? layout->verify : NULL;
	struct fingerprint dropped = {0, 0};
	uint64_t disorder = 0, mask = record_form_bare_mask(layout, job->form), last = job->before[slice];
	for (size_t i = begin; i < end; i++) {
		uint64_t image = bare_image(job->form, job->records, i);
		if (i > 0) {
			if (image == last) {
				if (verify) { /* counted as the key it stands for, as restored ones are */
					dropped.count++;
					dropped.sum += fingerprint_key(image ^ mask);
				}
				continue;
			}
			disorder += image < last;
		}
		if (kept != i)
			memcpy(job->records + kept * size, job->records + i * size, size);
		kept++;
		last = image;
	}
	job->kept[slice] = kept - begin;
	if (verify)
		sort_verify_output(verify, &dropped, disorder);
}

static int emit_in_place(const struct record_layout *layout, enum record_form form, unsigned char *records,
			 size_t n, bool unique, const struct emit_output *output)
{
	bool to_output = output->to_output;
	size_t size = layout->record_size, slices = (n + SLICE_RECORDS - 1) / SLICE_RECORDS;
	uint64_t *before = NULL;
	size_t *kept = NULL, *put = NULL;
	if (unique && slices > 0) {
		before = malloc(slices * sizeof *before);
		kept = malloc(slices * sizeof *kept);
		put = malloc(slices * sizeof *put);
		if (!before || !kept || !put) {
			free(before);
			free(kept);
			free(put);
			return -ENOMEM;
		}
		for (size_t s = 1; s < slices; s++)
			before[s] = bare_image(form, records, s * SLICE_RECORDS - 1);
		before[0] = 0;
		struct unique_bare_job job = {layout, form, records, n, before, kept};
		thread_pool_parallel_for(layout->pool, slices, drop_equal_slice, &job);
		for (size_t s = 0, total = 0; s < slices; s++) {
			put[s] = total;
			total += kept[s];
		}
	}
	/* the pairs that straddle two slices (the last kept before, the first kept in a
	 * slice), checked before the slices restore them */
	struct sort_verify *verify = layout->verify;
	if (verify && verify->enabled && to_output) {
		uint64_t disorder = 0;
		bool seen = false;
		uint64_t last = 0;
		for (size_t s = 0; s < slices; s++) {
			size_t begin = s * SLICE_RECORDS, count = kept ? kept[s] : (n - begin < SLICE_RECORDS ? n - begin : SLICE_RECORDS);
			if (count == 0)
				continue;
			uint64_t first = bare_image(form, records, begin);
			if (seen)
				disorder += last > first || (unique && last == first);
			last = bare_image(form, records, begin + count - 1);
			seen = true;
		}
		struct fingerprint none = {0, 0};
		sort_verify_output(verify, &none, disorder);
	}
	struct offset_writes out = {output->sink_at, output->context, 0};
	struct restore_job job = {layout, form, records, n, unique, to_output, &out, kept, put};
	thread_pool_parallel_for(layout->pool, slices, restore_slice, &job);
	int error = out.error;
	/* in order, in blocks of at most EMIT_IN_PLACE_BYTES: all records, or with -u each
	 * slice's kept ones */
	size_t per_block = EMIT_IN_PLACE_BYTES / size;
	for (size_t s = 0; !output->sink_at && !error && s < (kept ? slices : 1); s++) {
		size_t begin = kept ? s * SLICE_RECORDS : 0, count = kept ? kept[s] : n;
		for (size_t done = 0; done < count && !error; done += per_block) {
			size_t take = count - done < per_block ? count - done : per_block;
			error = output->sink(output->context, records + (begin + done) * size, take * size, take);
		}
	}
	free(before);
	free(kept);
	free(put);
	return error;
}

/* Copies the records of items [first, first + count) into out, in parallel slices. */
struct gather_job {
	const struct record_layout *layout;
	enum record_form form;
	const unsigned char *records;
	const void *items;
	size_t first;
	size_t count;
	unsigned char *out;
	bool to_output;
	bool unique;
	struct offset_writes *at; /* each slice written at its offset, where it has a sink_at */
	/* -u: per item of the block, 1 when it repeats the one before; per slice, records
	 * kept, then where its first goes in the block. NULL without -u. */
	unsigned char *dropped;
	size_t *kept;
	size_t out_first;  /* the block's first record's place in the output */
	size_t kept_count; /* the records the block puts out */
	size_t n, per_block; /* the records, and a block's most */
};

/* Two records' keys in output order (directions applied): <0, 0, >0. */
static inline int record_key_order(const struct record_layout *layout, const unsigned char *a, const unsigned char *b)
{
	return composite_key_compare(layout->fields, layout->field_count, a, b);
}

/* The full comparison of two neighbours whose first words tie: out of the loop below, so
 * that the loop keeps its values in registers. */
__attribute__((noinline)) static bool records_misordered(const struct record_layout *layout,
							   const unsigned char *a, const unsigned char *b)
{
	return record_key_order(layout, a, b) > 0;
}

/* Neighbours out of order among the count records of a bytes key of 8 bytes or more at
 * offset: their first 8 as one big-endian word, each loaded once, decide where they
 * differ, as nearly all neighbours' do. One loop a direction. */
static inline uint64_t word_keys_disorder(const struct record_layout *layout, const unsigned char *records,
					  size_t count, size_t offset, const bool descending)
{
	const size_t size = layout->record_size;
	uint64_t disorder = 0, previous;
	memcpy(&previous, records + offset, 8);
	previous = __builtin_bswap64(previous);
	for (const unsigned char *key = records + offset + size, *end = records + offset + count * size; key < end;
	     key += size) {
		uint64_t word;
		memcpy(&word, key, 8);
		word = __builtin_bswap64(word);
		if (word != previous)
			disorder += descending ? previous < word : previous > word;
		else
			disorder += records_misordered(layout, key - offset - size, key - offset);
		previous = word;
	}
	return disorder;
}

/* Neighbours out of order among count records in a row. */
static uint64_t records_disorder(const struct record_layout *layout, const unsigned char *records, size_t count)
{
	const size_t size = layout->record_size;
	const struct key_field *field = &layout->fields[0];
	if (count < 2)
		return 0;
	if (layout->field_count == 1 && field->type == KEY_BYTES && field->size >= 8)
		return field->descending ? word_keys_disorder(layout, records, count, field->offset, true)
					 : word_keys_disorder(layout, records, count, field->offset, false);
	uint64_t disorder = 0;
	for (size_t i = 1; i < count; i++)
		disorder += record_key_order(layout, records + (i - 1) * size, records + i * size) > 0;
	return disorder;
}

/* The sum of fingerprint_key over positions p & mask, p the low words of count 16-byte
 * items (their first 8 bytes: items.h's little-endian layout), vectorized. */
VERIFY_VECTORIZED static uint64_t wide_positions_sum(const unsigned char *items, size_t count, uint64_t mask)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < count; i++) {
		uint64_t position;
		memcpy(&position, items + 16 * i, 8);
		sum += fingerprint_key(position & mask);
	}
	return sum;
}

/* The same over the low 32-bit words of count 12-byte items. */
VERIFY_VECTORIZED static uint64_t u96_positions_sum(const item_u96 *items, size_t count)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < count; i++)
		sum += fingerprint_key(items[i].word[0]);
	return sum;
}

/* The same over the low 32 bits of count 8-byte items. */
VERIFY_VECTORIZED static uint64_t pair_positions_sum(const uint64_t *items, size_t count)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < count; i++)
		sum += fingerprint_key((uint32_t)items[i]);
	return sum;
}

/* fingerprint_add_position of the positions of items [at, at + count) (verify.h). */
static void positions_fingerprint(enum record_form form, const void *items, size_t at, size_t count,
				  struct fingerprint *print)
{
	print->count += count;
	if (form == FORM_KEY32_POS32)
		print->sum += pair_positions_sum((const uint64_t *)items + at, count);
	else if (record_form_width(form) == ITEM_U96)
		print->sum += u96_positions_sum((const item_u96 *)items + at, count);
	else
		print->sum += wide_positions_sum((const unsigned char *)items + at * sizeof(item_u128), count,
						 form == FORM_KEY80_POS48 ? 0xffffffffffffULL : ~0ULL);
}

/* A record of a positional form put out: by its position in an in-memory sort, else by
 * its key's bytes (verify.h). */
static inline void record_fingerprint(const struct record_layout *layout, const struct sort_verify *verify,
				      struct fingerprint *print, const unsigned char *record, size_t position)
{
	if (verify->by_position)
		fingerprint_add_position(print, position);
	else
		fingerprint_add(print, record + layout->key_span_offset, layout->key_span_size);
}

/* The self-check of gathered records [begin, end) of the job's block. */
static void gather_check(const struct gather_job *job, size_t begin, size_t end)
{
	size_t size = job->layout->record_size;
	struct sort_verify *verify = job->layout->verify;
	uint64_t started = sort_verify_clock(), disorder = 0;
	struct fingerprint print = {0, 0};
	const struct record_layout *layout = job->layout;
	const unsigned char *out = job->out + begin * size;
	size_t at = job->first + begin, count = end - begin;
	/* the gathered records in key order, the first after the one before it in the order:
	 * where this thread put it, within the slice; else (another thread's, which may not
	 * be there yet) in the input */
	if (begin % GATHER_SLICE_RECORDS != 0)
		disorder += record_key_order(layout, out - size, out) > 0;
	else if (at > 0)
		disorder += record_key_order(layout, job->records + item_position(job->form, job->items, at - 1) * size,
					     out) > 0;
	disorder += records_disorder(layout, out, count);
	if (verify->by_position)
		positions_fingerprint(job->form, job->items, at, count, &print);
	else
		for (size_t i = 0; i < count; i++)
			fingerprint_add(&print, out + i * size + layout->key_span_offset, layout->key_span_size);
	sort_verify_output(verify, &print, disorder);
	sort_verify_time(verify, started);
}

/* A checked gather goes in pieces of about this many bytes, each checked right after it
 * is gathered, while it is in the core's cache (a whole slice of 100-byte records, 1.6
 * MB, is not); the check's loops stay out of the gather's (see gather_records). */
#define CHECK_PIECE_BYTES ((size_t)128 << 10)

/* How far ahead the gather asks for the record it will copy: the out-of-order core alone
 * keeps few of these random reads in flight. */
#define GATHER_PREFETCH_RECORDS 16

/* Copies the records of items [from, to) of the job's block into place. The loop is
 * bound by the latency of its random reads, and the fewer instructions it takes a
 * record, the more records' reads are in flight at once: what it reads through job is
 * read once, as memcpy could change it for all the compiler knows, and the form is
 * decided out of it. */
static inline void gather_form(const struct gather_job *job, size_t from, size_t to, const enum record_form form)
{
	const size_t size = job->layout->record_size, first = job->first;
	const unsigned char *records = job->records;
	const void *items = job->items;
	unsigned char *out = job->out;
	for (size_t i = from; i < to; i++) {
		if (i + GATHER_PREFETCH_RECORDS < to) {
			const unsigned char *next =
				records + item_position(form, items, first + i + GATHER_PREFETCH_RECORDS) * size;
			__builtin_prefetch(next);
			__builtin_prefetch(next + size - 1);
		}
		memcpy(out + i * size, records + item_position(form, items, first + i) * size, size);
	}
}

static void gather_records(const struct gather_job *job, size_t from, size_t to)
{
	switch (job->form) {
	case FORM_KEY32_POS32: gather_form(job, from, to, FORM_KEY32_POS32); break;
	case FORM_KEY64_POS32:
	case FORM_PREFIX64_POS32: gather_form(job, from, to, FORM_KEY64_POS32); break;
	case FORM_KEY80_POS48: gather_form(job, from, to, FORM_KEY80_POS48); break;
	default: gather_form(job, from, to, FORM_KEY64_POS64); break;
	}
}

/* Where the slice that starts at item begin of the block ends. */
static size_t slice_end(const struct gather_job *job, size_t begin)
{
	return begin + GATHER_SLICE_RECORDS < job->count ? begin + GATHER_SLICE_RECORDS : job->count;
}

/* The job's self-check, or NULL where there is none. */
static struct sort_verify *job_verify(const struct gather_job *job)
{
	return job->layout->verify && job->layout->verify->enabled ? job->layout->verify : NULL;
}

static void gather_slice(void *context, size_t slice)
{
	struct gather_job *job = context;
	size_t size = job->layout->record_size;
	size_t begin = slice * GATHER_SLICE_RECORDS, end = slice_end(job, begin);
	struct sort_verify *verify = job->layout->verify;
	if (!verify || !verify->enabled || !job->to_output) {
		gather_records(job, begin, end);
	} else {
		size_t piece = CHECK_PIECE_BYTES / size ? CHECK_PIECE_BYTES / size : 1;
		for (size_t from = begin; from < end; from += piece) {
			size_t to = end - from > piece ? from + piece : end;
			gather_records(job, from, to);
			gather_check(job, from, to);
		}
	}
	offset_writes_put(job->at, job->out + begin * size, (end - begin) * size, (job->out_first + begin) * size);
}

/* -u over a block of items: which to keep (each against the one before it in the order,
 * the block's first against the last of the block before), counted per slice, then the
 * kept records gathered at their places in the block. */
static const unsigned char *item_record(const struct gather_job *job, size_t i)
{
	return job->records + item_position(job->form, job->items, i) * job->layout->record_size;
}

/* Marks the slice's repeats, counts what it keeps, and checks and fingerprints (verify.h)
 * its records: all of them when they go to the output, else only the dropped ones,
 * which no later reader sees. */
static void unique_mark_slice(void *context, size_t slice)
{
	struct gather_job *job = context;
	struct sort_verify *verify = job_verify(job);
	size_t begin = slice * GATHER_SLICE_RECORDS, end = slice_end(job, begin);
	struct fingerprint print = {0, 0};
	uint64_t disorder = 0;
	size_t kept = 0, at = job->first + begin;
	const unsigned char *previous = at > 0 ? item_record(job, at - 1) : NULL;
	for (size_t i = begin; i < end; i++, at++) {
		const unsigned char *record = item_record(job, at);
		int order = previous ? record_key_order(job->layout, previous, record) : -1;
		bool drop = order == 0;
		if (verify && (job->to_output || drop)) {
			disorder += job->to_output && order > 0;
			record_fingerprint(job->layout, verify, &print, record,
					   item_position(job->form, job->items, at));
		}
		job->dropped[i] = drop;
		kept += !drop;
		previous = record;
	}
	job->kept[slice] = kept;
	if (verify)
		sort_verify_output(verify, &print, disorder);
}

/* Whether two items of a form that holds the whole key image (not a prefix) have equal
 * keys: images are equal exactly where keys compare equal (key_image.h: every NaN one
 * image, -0.0 that of +0.0). */
static inline bool items_equal_keys(enum record_form form, const void *items, size_t a, size_t b)
{
	switch (form) {
	case FORM_KEY32_POS32:
		return ((const uint64_t *)items)[a] >> 32 == ((const uint64_t *)items)[b] >> 32;
	case FORM_KEY64_POS32:
		return item_u96_image(((const item_u96 *)items)[a]) == item_u96_image(((const item_u96 *)items)[b]);
	case FORM_KEY80_POS48:
		return ((const item_u128 *)items)[a] >> 48 == ((const item_u128 *)items)[b] >> 48;
	default: /* FORM_KEY64_POS64 */
		return item_u128_high(((const item_u128 *)items)[a]) == item_u128_high(((const item_u128 *)items)[b]);
	}
}

/* Whether a form's items hold the whole key, so that -u can find repeats in them. */
static bool form_holds_key(enum record_form form)
{
	return form == FORM_KEY32_POS32 || form == FORM_KEY64_POS32 || form == FORM_KEY64_POS64 ||
	       form == FORM_KEY80_POS48;
}

/* unique_mark_slice for a spill (records not to the output) of a form whose items hold
 * the whole key: repeats found in the items, in order, without reading the records but
 * the dropped ones' (fingerprinted, as no later reader sees them). */
static void unique_mark_items_slice(void *context, size_t slice)
{
	struct gather_job *job = context;
	struct sort_verify *verify = job_verify(job);
	size_t begin = slice * GATHER_SLICE_RECORDS, end = slice_end(job, begin);
	struct fingerprint print = {0, 0};
	size_t kept = 0, at = job->first + begin;
	for (size_t i = begin; i < end; i++, at++) {
		bool drop = at > 0 && items_equal_keys(job->form, job->items, at - 1, at);
		if (drop && verify)
			record_fingerprint(job->layout, verify, &print, item_record(job, at),
					   item_position(job->form, job->items, at));
		job->dropped[i] = drop;
		kept += !drop;
	}
	job->kept[slice] = kept;
	if (verify)
		sort_verify_output(verify, &print, 0);
}

/* Gathers the slice's kept records at their places, and writes them through the
 * positional sink, if any, while they are in cache. */
static void unique_gather_slice(void *context, size_t slice)
{
	struct gather_job *job = context;
	size_t size = job->layout->record_size;
	size_t begin = slice * GATHER_SLICE_RECORDS, end = slice_end(job, begin);
	size_t start = job->kept[slice], put = start;
	for (size_t i = begin; i < end; i++)
		if (!job->dropped[i])
			memcpy(job->out + put++ * size, item_record(job, job->first + i), size);
	offset_writes_put(job->at, job->out + start * size, (put - start) * size, (job->out_first + start) * size);
}

/* Readies the next block, the items after the last block's, and under -u marks on the
 * pool which of its records to keep. */
static bool next_block(void *context, unsigned char *block, struct emit_round *round)
{
	struct gather_job *job = context;
	job->first += job->count;
	job->out_first += job->kept_count;
	if (job->first >= job->n)
		return false;
	size_t count = job->n - job->first < job->per_block ? job->n - job->first : job->per_block, out = count;
	size_t slices = (count + GATHER_SLICE_RECORDS - 1) / GATHER_SLICE_RECORDS;
	job->count = count;
	job->out = block;
	if (job->unique) {
		thread_pool_parallel_for(job->layout->pool, slices,
					 !job->to_output && form_holds_key(job->form) ? unique_mark_items_slice
										      : unique_mark_slice, job);
		out = 0;
		for (size_t i = 0; i < slices; i++) {
			size_t slice_kept = job->kept[i];
			job->kept[i] = out;
			out += slice_kept;
		}
	}
	job->kept_count = out;
	*round = (struct emit_round){slices, out * job->layout->record_size, out};
	return true;
}

static void gather_block_slice(void *context, size_t slice)
{
	struct gather_job *job = context;
	if (job->unique)
		unique_gather_slice(job, slice);
	else
		gather_slice(job, slice);
}

int record_items_emit(const struct record_layout *layout, enum record_form form, unsigned char *records,
		      const void *items, size_t n, bool unique, const struct emit_output *output)
{
	if (record_form_in_place(form))
		return emit_in_place(layout, form, records, n, unique, output);
	/* Every record in item order (less, with -u, the repeats of the one before it),
	 * block by block (emit_rounds.h), in blocks of 1/16 of the chunk within bounds. */
	size_t size = layout->record_size;
	size_t block_bytes = n * size / 16;
	block_bytes = block_bytes < EMIT_BLOCK_MIN ? EMIT_BLOCK_MIN
		      : block_bytes > EMIT_BLOCK_MAX ? EMIT_BLOCK_MAX : block_bytes;
	size_t per_block = block_bytes / size ? block_bytes / size : 1;
	size_t slices = (per_block + GATHER_SLICE_RECORDS - 1) / GATHER_SLICE_RECORDS;
	struct gather_job job = {.layout = layout, .form = form, .records = records, .items = items,
				 .to_output = output->to_output, .unique = unique, .n = n, .per_block = per_block};
	struct emit_rounds rounds = {.job = &job, .pool = layout->pool, .block_bytes = per_block * size,
				     .next = next_block, .gather = gather_block_slice};
	job.at = &rounds.at;
	job.dropped = unique ? malloc(per_block) : NULL;
	job.kept = unique ? malloc(slices * sizeof *job.kept) : NULL;
	int error = !unique || (job.dropped && job.kept) ? emit_rounds_run(&rounds, output) : -ENOMEM;
	free(job.dropped);
	free(job.kept);
	return error;
}
