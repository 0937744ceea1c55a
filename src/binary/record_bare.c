/* SPDX-License-Identifier: MIT */
/* Bare keys, records that are their keys: turned into their images and back in one
 * pass each, the self-check done in the same pass (see record_items.h). */
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
 * simple enough to vectorize (VERIFY_CLONED), one function per width. */
#define BARE_PASS(name, type) \
VERIFY_LOOP uint64_t name##_loop(type *x, size_t n, type mask, bool restoring, bool unique, \
				  struct fingerprint *print) \
{ \
	uint64_t sum = 0, disorder = 0; \
	if (!print) { \
		for (size_t i = 0; i < n; i++) \
			x[i] ^= mask; \
		return 0; \
	} \
	for (size_t piece = 0; piece < n; piece += RECORD_CHECK_PIECE) { \
		size_t stop = n - piece > RECORD_CHECK_PIECE ? piece + RECORD_CHECK_PIECE : n; \
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
} \
static VERIFY_CLONED(uint64_t, name, (type *x, size_t n, type mask, bool restoring, bool unique, \
				     struct fingerprint *print), (x, n, mask, restoring, unique, print))
BARE_PASS(bare_pass32, uint32_t)
BARE_PASS(bare_pass64, uint64_t)

/* Bare keys [begin, end) of a slice: one pass, with the self-check when verify is set.
 * The checks share their loop, so their time is taken apart on a sample: the checks
 * alone over the slice's last piece, still in cache, scaled to the slice. */
void record_bare_slice(const struct record_layout *layout, enum record_form form, unsigned char *records,
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
	size_t sample = n < RECORD_CHECK_PIECE ? n : RECORD_CHECK_PIECE;
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
VERIFY_LOOP void name##_loop(const type *x, type *images, size_t n, type mask, struct fingerprint *print) \
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
} \
static VERIFY_CLONED_VOID(name, (const type *x, type *images, size_t n, type mask, struct fingerprint *print), \
			  (x, images, n, mask, print))
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
	record_bare_slice(layout, form, records, 0, n, true, false, verify);
}
