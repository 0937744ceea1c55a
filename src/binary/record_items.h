/* SPDX-License-Identifier: MIT */
/* Binary records to sort items and back: each record becomes a fixed-width item (its
 * key image plus its position), the engine sorts the items, and the records are
 * emitted in item order. Files of bare integer keys skip the positions: their images
 * are sorted in place and turned back into keys. */
#ifndef GPUSORT_RECORD_ITEMS_H
#define GPUSORT_RECORD_ITEMS_H

#include "../common/emit_rounds.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../settings/key_field.h"
#include "../../kernels/items.h"

struct thread_pool;
struct sort_verify;

struct record_layout {
	size_t record_size;
	/* The key: its fields, most significant first, each in its direction (-r applied).
	 * One field keeps the narrow item forms below; several make a composite key, whose
	 * image (composite_key.h) fills the items' key bits. */
	const struct key_field *fields;
	size_t field_count;
	size_t image_size;     /* bytes of the key's image */
	/* The bytes from the first key byte to the last: the self-check counts a record by
	 * them (verify.h), which are its key's bytes when there is one field. */
	size_t key_span_offset, key_span_size;
	struct thread_pool *pool; /* threads that build items and gather records; NULL: one */
	struct sort_verify *verify; /* the sort's self-check (verify.h); NULL: none */
};

enum record_form {
	FORM_BARE_KEY32,     /* records are bare 4-byte integer keys: ITEM_U32 images in place */
	FORM_BARE_KEY64,     /* records are bare 8-byte integer keys: ITEM_U64 images in place */
	FORM_KEY32_POS32,    /* ITEM_U64: 32-bit image << 32 | position */
	FORM_KEY64_POS32,    /* ITEM_U96: 64-bit image << 32 | position, for n <= 2^32 */
	FORM_KEY64_POS64,    /* ITEM_U128: 64-bit image << 64 | position, for more */
	FORM_KEY80_POS48,    /* ITEM_U128: a 9- or 10-byte image << 48 | position */
	FORM_PREFIX64_POS32, /* ITEM_U96: first 8 bytes of a longer image << 32 | position,
	                        for n <= 2^32; ties finished by the full comparison
	                        (composite_key_compare) */
	FORM_PREFIX64_POS64, /* ITEM_U128: the same with a 64-bit position, for more */
};

/* Records per piece of work handed to a thread when building items or restoring keys. */
#define RECORD_SLICE_RECORDS ((size_t)1 << 20)
/* Records a self-check takes at a time, so that the work after it finds them in cache. */
#define RECORD_CHECK_PIECE ((size_t)2048)

/* Bare keys [begin, end) of a slice turned into their images, or back when restoring
 * (dropping equal neighbours under unique), in one pass, with the self-check when
 * verify is set (record_bare.c). */
void record_bare_slice(const struct record_layout *layout, enum record_form form, unsigned char *records,
		       size_t begin, size_t end, bool restoring, bool unique, struct sort_verify *verify);

/* A layout of count fields (kept by pointer) in records of record_size bytes. */
void record_layout_init(struct record_layout *layout, size_t record_size, const struct key_field *fields,
			size_t count);
/* The layout of a job's binary key (its fields kept by pointer). */
void record_layout_from_key(const struct binary_key *key, struct record_layout *layout);

/* The form for n records, and its item width. */
enum record_form record_form_choose(const struct record_layout *layout, size_t n);
enum item_width record_form_width(enum record_form form);
/* True when items live in the records buffer itself (no separate item array). */
bool record_form_in_place(enum record_form form);

/* An in-place form's image is its key XOR this mask (the sign bit of a signed type, and
 * every bit under -r), either way. */
uint64_t record_form_bare_mask(const struct record_layout *layout, enum record_form form);

/* The images of n records of an in-place form into images (another buffer), on the
 * calling thread; with the self-check (layout->verify) they count as put in. */
void record_items_build_bare_into(const struct record_layout *layout, enum record_form form,
				  const unsigned char *records, size_t n, void *images);
/* Turns n sorted images of an in-place form back into keys, in place, on the calling
 * thread; with the self-check (layout->verify) they count as put out, and adjacent ones
 * out of order within the n as disorder (the caller checks pairs across its pieces). */
void record_items_restore_bare(const struct record_layout *layout, enum record_form form, unsigned char *records,
			       size_t n);

/* Fills items (n of record_form_width) from records; for in-place forms items must be
 * records, whose keys are replaced by their images. */
void record_items_build(const struct record_layout *layout, enum record_form form,
			unsigned char *records, size_t n, void *items);

/* After the engine sorted the items: orders runs of items whose prefixes tie by the
 * full key, then position (the FORM_PREFIX64 forms only; a no-op otherwise). */
void record_items_finish_ties(const struct record_layout *layout, enum record_form form,
			      const unsigned char *records, void *items, size_t n);


/* Emits the records in item order as output says (emit_rounds.h), dropping all but the
 * first of equal keys when unique: gathered records a block at a time, the sink writing
 * one while the next is gathered, or with a sink_at each slice written by the thread
 * that gathered it (the i-th record put out at i * record_size); in-place forms turn
 * images back into keys first, and go out from the records themselves. Records dropped
 * count as put out for the self-check (layout->verify); with to_output the records
 * emitted are the sort's output and are checked for order and counted too (a run is
 * checked where it is merged into the output). Returns 0 or the sink's negative errno. */
int record_items_emit(const struct record_layout *layout, enum record_form form, unsigned char *records,
		      const void *items, size_t n, bool unique, const struct emit_output *output);

#endif
