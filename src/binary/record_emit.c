/* SPDX-License-Identifier: MIT */
/* Records back from sorted items: bare keys restored in place, other records gathered
 * by position, -u's equal keys dropped, all handed to the output in blocks (see
 * record_items.h, record_items_emit). */
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
/* Records per slice of a gather (one thread's piece of work): small enough to balance,
 * large enough to amortize. */
#define GATHER_SLICE_RECORDS ((size_t)16 << 10)

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
	size_t begin = slice * RECORD_SLICE_RECORDS;
	size_t end = begin + RECORD_SLICE_RECORDS < job->n ? begin + RECORD_SLICE_RECORDS : job->n;
	size_t first = begin;
	if (job->kept) {
		end = begin + job->kept[slice];
		first = job->put[slice];
	}
	struct sort_verify *verify = layout->verify && layout->verify->enabled && job->to_output ? layout->verify : NULL;
	record_bare_slice(layout, job->form, job->records, begin, end, true, job->unique, verify);
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
	size_t size = layout->record_size, begin = slice * RECORD_SLICE_RECORDS, kept = begin;
	size_t end = begin + RECORD_SLICE_RECORDS < job->n ? begin + RECORD_SLICE_RECORDS : job->n;
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
	size_t size = layout->record_size, slices = (n + RECORD_SLICE_RECORDS - 1) / RECORD_SLICE_RECORDS;
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
			before[s] = bare_image(form, records, s * RECORD_SLICE_RECORDS - 1);
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
			size_t begin = s * RECORD_SLICE_RECORDS, count = kept ? kept[s] : (n - begin < RECORD_SLICE_RECORDS ? n - begin : RECORD_SLICE_RECORDS);
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
		size_t begin = kept ? s * RECORD_SLICE_RECORDS : 0, count = kept ? kept[s] : n;
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
VERIFY_LOOP uint64_t wide_positions_sum_loop(const unsigned char *items, size_t count, uint64_t mask)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < count; i++) {
		uint64_t position;
		memcpy(&position, items + 16 * i, 8);
		sum += fingerprint_key(position & mask);
	}
	return sum;
}
static VERIFY_CLONED(uint64_t, wide_positions_sum, (const unsigned char *items, size_t count, uint64_t mask),
		     (items, count, mask))

/* The same over the low 32-bit words of count 12-byte items. */
VERIFY_LOOP uint64_t u96_positions_sum_loop(const item_u96 *items, size_t count)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < count; i++)
		sum += fingerprint_key(items[i].word[0]);
	return sum;
}
static VERIFY_CLONED(uint64_t, u96_positions_sum, (const item_u96 *items, size_t count), (items, count))

/* The same over the low 32 bits of count 8-byte items. */
VERIFY_LOOP uint64_t pair_positions_sum_loop(const uint64_t *items, size_t count)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < count; i++)
		sum += fingerprint_key((uint32_t)items[i]);
	return sum;
}
static VERIFY_CLONED(uint64_t, pair_positions_sum, (const uint64_t *items, size_t count), (items, count))

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
