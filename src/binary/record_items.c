/* Items from binary records and records back from sorted items (see record_items.h). */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "../../kernels/thread_pool.h"
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
/* Records per piece of a gather: small enough to balance, large enough to amortize. */
#define GATHER_SLICE_RECORDS ((size_t)16 << 10)

void record_layout_from_options(const struct options *options, struct record_layout *layout)
{
	layout->type = options->key_type;
	layout->record_size = options->record_size;
	layout->key_offset = options->key_offset;
	layout->key_size = options->key_size;
	layout->reverse = options->reverse;
	layout->pool = NULL;
	layout->verify = NULL;
}

enum record_form record_form_choose(const struct record_layout *layout, size_t n)
{
	bool bare = layout->record_size == layout->key_size && key_image_is_bijective(layout->type);
	if (layout->type == KEY_BYTES) {
		if (layout->key_size <= 8)
			return FORM_KEY64_POS64;
		if (layout->key_size <= 10 && n < ((uint64_t)1 << 48))
			return FORM_KEY80_POS48;
		return FORM_PREFIX64_POS64;
	}
	if (key_type_size(layout->type) == 4) {
		if (bare)
			return FORM_BARE_KEY32;
		return n <= ((uint64_t)1 << 32) ? FORM_KEY32_POS32 : FORM_KEY64_POS64;
	}
	return bare ? FORM_BARE_KEY64 : FORM_KEY64_POS64;
}

enum item_width record_form_width(enum record_form form)
{
	switch (form) {
	case FORM_BARE_KEY32: return ITEM_U32;
	case FORM_BARE_KEY64: case FORM_KEY32_POS32: return ITEM_U64;
	default: return ITEM_U128;
	}
}

bool record_form_in_place(enum record_form form)
{
	return form == FORM_BARE_KEY32 || form == FORM_BARE_KEY64;
}

/* The image with -r applied: complemented within the key's bits, so the sort stays
 * ascending over items and equal keys keep their input order. */
static uint64_t ordered_image(const struct record_layout *layout, const unsigned char *record)
{
	uint64_t image = key_image(layout->type, record + layout->key_offset, layout->key_size);
	if (layout->reverse)
		image = key_type_size(layout->type) == 4 ? (uint32_t)~image : ~image;
	return image;
}

/* Bytes 9 and 10 of a 9- or 10-byte key, as the low 16 bits of an 80-bit image. */
static uint64_t tail16(const struct record_layout *layout, const unsigned char *record)
{
	const unsigned char *key = record + layout->key_offset;
	uint64_t tail = ((uint64_t)key[8] << 8) | (layout->key_size > 9 ? key[9] : 0);
	return layout->reverse ? (~tail & 0xffff) : tail;
}

/* Builds items [begin, end); positions are global record indices. */
static void build_range(const struct record_layout *layout, enum record_form form,
			unsigned char *records, size_t begin, size_t end, void *items)
{
	size_t size = layout->record_size;
	switch (form) {
	case FORM_BARE_KEY32: {
		uint32_t *out = items;
		for (size_t i = begin; i < end; i++)
			out[i] = (uint32_t)ordered_image(layout, records + i * size);
		break;
	}
	case FORM_BARE_KEY64: {
		uint64_t *out = items;
		for (size_t i = begin; i < end; i++)
			out[i] = ordered_image(layout, records + i * size);
		break;
	}
	case FORM_KEY32_POS32: {
		uint64_t *out = items;
		for (size_t i = begin; i < end; i++)
			out[i] = ordered_image(layout, records + i * size) << 32 | (uint64_t)i;
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

/* Bare keys [begin, end) (records that are their keys) into a fingerprint. */
static void fingerprint_add_bare(struct fingerprint *print, enum record_form form, const unsigned char *records,
				 size_t begin, size_t end)
{
	if (form == FORM_BARE_KEY32)
		fingerprint_add_keys32(print, (const uint32_t *)records + begin, end - begin);
	else
		fingerprint_add_keys64(print, (const uint64_t *)records + begin, end - begin);
}

/* The self-check works on pieces this small, each while the pass over it has it in
 * cache, so that it adds no pass over memory of its own. */
#define VERIFY_PIECE_RECORDS ((size_t)2048)

static void build_slice(void *context, size_t slice)
{
	struct build_job *job = context;
	size_t begin = slice * SLICE_RECORDS;
	size_t end = begin + SLICE_RECORDS < job->n ? begin + SLICE_RECORDS : job->n;
	struct sort_verify *verify = job->layout->verify;
	if (!verify || !verify->enabled) {
		build_range(job->layout, job->form, job->records, begin, end, job->items);
		return;
	}
	uint64_t spent = 0;
	struct fingerprint print = {0, 0};
	const struct record_layout *layout = job->layout;
	size_t size = layout->record_size;
	bool bare = record_form_in_place(job->form), by_position = !bare && verify->by_position;
	for (size_t piece = begin; piece < end; piece += VERIFY_PIECE_RECORDS) {
		size_t stop = piece + VERIFY_PIECE_RECORDS < end ? piece + VERIFY_PIECE_RECORDS : end;
		/* before the build: bare keys are replaced by their images */
		uint64_t started = sort_verify_clock();
		if (bare)
			fingerprint_add_bare(&print, job->form, job->records, piece, stop);
		for (size_t i = piece; i < stop && !bare; i++) {
			if (by_position)
				fingerprint_add_position(&print, i);
			else
				fingerprint_add(&print, job->records + i * size + layout->key_offset, layout->key_size);
		}
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
	case FORM_KEY80_POS48: return item_u128_low(((const item_u128 *)items)[i]) & 0xffffffffffffULL;
	default: return item_u128_low(((const item_u128 *)items)[i]);
	}
}

struct tie_context {
	const struct record_layout *layout;
	const unsigned char *records;
};

static int compare_full_keys(const struct tie_context *context, size_t a, size_t b)
{
	const struct record_layout *layout = context->layout;
	int order = memcmp(context->records + a * layout->record_size + layout->key_offset,
			   context->records + b * layout->record_size + layout->key_offset,
			   layout->key_size);
	if (layout->reverse)
		order = -order;
	if (order)
		return order;
	return (a > b) - (a < b);
}

/* Tie runs are items whose 8-byte prefixes are equal; the full key, then the position,
 * orders them, so the result is the same stable order the whole key would give. */
static int qsort_tie_compare(const void *a, const void *b, void *context)
{
	size_t x = item_u128_low(*(const item_u128 *)a), y = item_u128_low(*(const item_u128 *)b);
	return compare_full_keys(context, x, y);
}

void record_items_finish_ties(const struct record_layout *layout, enum record_form form,
			      const unsigned char *records, void *items, size_t n)
{
	if (form != FORM_PREFIX64_POS64)
		return;
	item_u128 *sorted = items;
	struct tie_context context = {layout, records};
	for (size_t start = 0; start < n;) {
		size_t end = start + 1;
		uint64_t prefix = item_u128_high(sorted[start]);
		while (end < n && item_u128_high(sorted[end]) == prefix)
			end++;
		if (end - start > 1)
			qsort_r(sorted + start, end - start, sizeof *sorted, qsort_tie_compare, &context);
		start = end;
	}
}

/* The image of bare record i (its key's image, before restoring). */
static inline uint64_t bare_image(enum record_form form, const unsigned char *records, size_t i)
{
	return form == FORM_BARE_KEY32 ? ((const uint32_t *)records)[i] : ((const uint64_t *)records)[i];
}

/* Adjacent pairs of x[begin, end) out of order: x[i-1] > x[i] (>= under -u, where equal
 * images are dropped before this). One loop per width and rule, so each compiles tight. */
#define DISORDER_LOOP(x, begin, end, op) do { \
	for (size_t i = (begin) + 1; i < (end); i++) \
		disorder += (x)[i - 1] op (x)[i]; \
} while (0)

/* Sorted bare images [begin, end): how many are below the one before (or equal, -u). */
static uint64_t bare_disorder(enum record_form form, const unsigned char *records, size_t begin, size_t end,
			      bool unique)
{
	uint64_t disorder = 0;
	const uint32_t *narrow = (const uint32_t *)records;
	const uint64_t *wide = (const uint64_t *)records;
	if (form == FORM_BARE_KEY32 && unique)
		DISORDER_LOOP(narrow, begin, end, >=);
	else if (form == FORM_BARE_KEY32)
		DISORDER_LOOP(narrow, begin, end, >);
	else if (unique)
		DISORDER_LOOP(wide, begin, end, >=);
	else
		DISORDER_LOOP(wide, begin, end, >);
	return disorder;
}

/* Image to key, in place, with -r undone. */
static void restore_key(const struct record_layout *layout, enum record_form form, uint64_t image,
			unsigned char *record)
{
	if (layout->reverse)
		image = form == FORM_BARE_KEY32 ? (uint32_t)~image : ~image;
	key_image_restore(layout->type, image, record);
}

struct restore_job {
	const struct record_layout *layout;
	enum record_form form;
	unsigned char *records;
	size_t n;
	bool unique;
	bool to_output;
};

/* Checks, then turns images back into keys, in place (bare forms: record == key). */
static void restore_slice(void *context, size_t slice)
{
	struct restore_job *job = context;
	const struct record_layout *layout = job->layout;
	size_t size = layout->record_size;
	size_t begin = slice * SLICE_RECORDS;
	size_t end = begin + SLICE_RECORDS < job->n ? begin + SLICE_RECORDS : job->n;
	struct sort_verify *verify = layout->verify && layout->verify->enabled && job->to_output ? layout->verify : NULL;
	uint64_t spent = 0, disorder = 0;
	struct fingerprint print = {0, 0};
	for (size_t piece = begin; piece < end; piece += VERIFY_PIECE_RECORDS) {
		size_t stop = piece + VERIFY_PIECE_RECORDS < end ? piece + VERIFY_PIECE_RECORDS : end;
		uint64_t started = verify ? sort_verify_clock() : 0;
		/* with the next piece's first image, before this piece is restored; the pair
		 * across two slices emit checks */
		if (verify)
			disorder += bare_disorder(job->form, job->records, piece, stop < end ? stop + 1 : stop,
						  job->unique);
		if (verify)
			spent += sort_verify_clock() - started;
		for (size_t i = piece; i < stop; i++)
			restore_key(layout, job->form, bare_image(job->form, job->records, i), job->records + i * size);
		if (!verify)
			continue;
		started = sort_verify_clock();
		fingerprint_add_bare(&print, job->form, job->records, piece, stop);
		spent += sort_verify_clock() - started;
	}
	if (!verify)
		return;
	sort_verify_output(verify, &print, disorder);
	sort_verify_time(verify, sort_verify_clock() - spent);
}

/* -u on sorted bare images: keeps the first of each run of equal images; the dropped
 * ones still count as put out (the self-check), and an image below its predecessor is
 * disorder. Returns how many are kept. */
static size_t drop_equal_images(const struct record_layout *layout, enum record_form form,
				unsigned char *records, size_t n)
{
	size_t size = layout->record_size, kept = 0;
	struct sort_verify *verify = layout->verify && layout->verify->enabled ? layout->verify : NULL;
	struct fingerprint dropped = {0, 0};
	uint64_t disorder = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t image = bare_image(form, records, i);
		if (kept > 0) {
			uint64_t last = bare_image(form, records, kept - 1);
			if (image == last) {
				if (verify) {
					/* counted as the key it stands for, as restored records are */
					unsigned char key[8];
					restore_key(layout, form, image, key);
					fingerprint_add(&dropped, key, size);
				}
				continue;
			}
			disorder += image < last;
		}
		if (kept != i)
			memcpy(records + kept * size, records + i * size, size);
		kept++;
	}
	if (verify)
		sort_verify_output(verify, &dropped, disorder);
	return kept;
}

static int emit_in_place(const struct record_layout *layout, enum record_form form,
			 unsigned char *records, size_t n, bool unique, bool to_output, record_sink sink,
			 void *context)
{
	size_t size = layout->record_size, kept = unique ? drop_equal_images(layout, form, records, n) : n;
	/* the pairs that straddle two slices, checked before the slices restore them */
	struct sort_verify *verify = layout->verify;
	if (verify && verify->enabled && to_output) {
		uint64_t disorder = 0;
		for (size_t b = SLICE_RECORDS; b < kept; b += SLICE_RECORDS)
			disorder += bare_disorder(form, records, b - 1, b + 1, unique);
		struct fingerprint none = {0, 0};
		sort_verify_output(verify, &none, disorder);
	}
	struct restore_job job = {layout, form, records, kept, unique, to_output};
	thread_pool_parallel_for(layout->pool, (kept + SLICE_RECORDS - 1) / SLICE_RECORDS, restore_slice, &job);
	size_t per_block = EMIT_IN_PLACE_BYTES / size;
	for (size_t done = 0; done < kept; done += per_block) {
		size_t count = kept - done < per_block ? kept - done : per_block;
		int error = sink(context, records + done * size, count * size, count);
		if (error)
			return error;
	}
	return 0;
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
};

/* Two records' keys in output order (-r applied): <0, 0, >0. */
static int record_key_order(const struct record_layout *layout, const unsigned char *a, const unsigned char *b)
{
	int order = key_compare(layout->type, layout->key_size, a + layout->key_offset, b + layout->key_offset);
	return layout->reverse ? -order : order;
}

/* A record of a positional form put out: by its position in an in-memory sort, else by
 * its key's bytes (verify.h). */
static inline void record_fingerprint(const struct record_layout *layout, const struct sort_verify *verify,
				      struct fingerprint *print, const unsigned char *record, size_t position)
{
	if (verify->by_position)
		fingerprint_add_position(print, position);
	else
		fingerprint_add(print, record + layout->key_offset, layout->key_size);
}

static void gather_slice(void *context, size_t slice)
{
	struct gather_job *job = context;
	size_t size = job->layout->record_size;
	size_t begin = slice * GATHER_SLICE_RECORDS;
	size_t end = begin + GATHER_SLICE_RECORDS < job->count ? begin + GATHER_SLICE_RECORDS : job->count;
	for (size_t i = begin; i < end; i++)
		memcpy(job->out + i * size,
		       job->records + item_position(job->form, job->items, job->first + i) * size, size);
	struct sort_verify *verify = job->layout->verify;
	if (!verify || !verify->enabled || !job->to_output)
		return;
	uint64_t started = sort_verify_clock(), disorder = 0;
	struct fingerprint print = {0, 0};
	const struct record_layout *layout = job->layout;
	for (size_t i = begin; i < end; i++) {
		size_t at = job->first + i;
		/* the gathered records in key order (the one before the slice from its source) */
		const unsigned char *before = i > begin ? job->out + (i - 1) * size
				: at > 0 ? job->records + item_position(job->form, job->items, at - 1) * size : NULL;
		if (before)
			disorder += record_key_order(layout, before, job->out + i * size) > 0;
		record_fingerprint(layout, verify, &print, job->out + i * size, item_position(job->form, job->items, at));
	}
	sort_verify_output(verify, &print, disorder);
	sort_verify_time(verify, started);
}

/* One sink call, run on a thread of its own while the next block is gathered. */
struct sink_call {
	record_sink sink;
	void *context;
	const unsigned char *block;
	size_t bytes, count;
	int error;
};

static void *sink_call_run(void *argument)
{
	struct sink_call *call = argument;
	call->error = call->sink(call->context, call->block, call->bytes, call->count);
	return NULL;
}

/* Every record in item order, gathered into two alternating blocks: the sink writes one
 * (on a thread of its own) while the pool gathers the next. */
static int emit_gathered(const struct record_layout *layout, enum record_form form,
			 const unsigned char *records, const void *items, size_t n, size_t per_block,
			 bool to_output, record_sink sink, void *context)
{
	size_t size = layout->record_size;
	unsigned char *blocks[2] = {malloc(per_block * size), malloc(per_block * size)};
	struct sink_call call = {sink, context, NULL, 0, 0, 0};
	pthread_t writer;
	bool writing = false;
	int error = blocks[0] && blocks[1] ? 0 : -ENOMEM;
	for (size_t done = 0, k = 0; done < n && !error; done += per_block, k++) {
		size_t count = n - done < per_block ? n - done : per_block;
		struct gather_job job = {layout, form, records, items, done, count, blocks[k & 1], to_output};
		thread_pool_parallel_for(layout->pool, (count + GATHER_SLICE_RECORDS - 1) / GATHER_SLICE_RECORDS,
					 gather_slice, &job);
		if (writing) {
			pthread_join(writer, NULL);
			writing = false;
			if ((error = call.error))
				break;
		}
		call = (struct sink_call){sink, context, blocks[k & 1], count * size, count, 0};
		if (pthread_create(&writer, NULL, sink_call_run, &call) == 0)
			writing = true;
		else
			error = sink(context, blocks[k & 1], count * size, count);
	}
	if (writing) {
		pthread_join(writer, NULL);
		if (!error)
			error = call.error;
	}
	free(blocks[0]);
	free(blocks[1]);
	return error;
}

int record_items_emit(const struct record_layout *layout, enum record_form form,
		      unsigned char *records, const void *items, size_t n, bool unique, bool to_output,
		      record_sink sink, void *context)
{
	if (record_form_in_place(form))
		return emit_in_place(layout, form, records, n, unique, to_output, sink, context);

	size_t size = layout->record_size;
	size_t block_bytes = n * size / 16;
	block_bytes = block_bytes < EMIT_BLOCK_MIN ? EMIT_BLOCK_MIN
		      : block_bytes > EMIT_BLOCK_MAX ? EMIT_BLOCK_MAX : block_bytes;
	size_t per_block = block_bytes / size ? block_bytes / size : 1;
	if (!unique)
		return emit_gathered(layout, form, records, items, n, per_block, to_output, sink, context);
	unsigned char *block = malloc(per_block * size);
	if (!block)
		return -ENOMEM;
	struct sort_verify *verify = layout->verify && layout->verify->enabled ? layout->verify : NULL;
	struct fingerprint print = {0, 0};
	uint64_t disorder = 0;
	const unsigned char *previous = NULL;
	size_t filled = 0;
	int error = 0;
	for (size_t i = 0; i < n && !error; i++) {
		size_t position = item_position(form, items, i);
		const unsigned char *record = records + position * size;
		int order = previous ? record_key_order(layout, previous, record) : -1;
		bool drop = order == 0;
		if (verify && (to_output || drop)) {
			/* every item, kept or dropped, is put out once */
			disorder += to_output && order > 0;
			record_fingerprint(layout, verify, &print, record, position);
		}
		if (drop)
			continue;
		previous = record;
		memcpy(block + filled * size, record, size);
		if (++filled == per_block) {
			error = sink(context, block, filled * size, filled);
			filled = 0;
		}
	}
	if (!error && filled)
		error = sink(context, block, filled * size, filled);
	if (verify)
		sort_verify_output(verify, &print, disorder);
	free(block);
	return error;
}
