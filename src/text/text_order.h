/* SPDX-License-Identifier: MIT */
/* The text sort order a command line asks for: the effective keys (after GNU sort's
 * inheritance of global options by keys that name none), the field separator, and
 * whether the whole-line comparison breaks ties. Shared read-only by all threads. */
#ifndef GPUSORT_TEXT_ORDER_H
#define GPUSORT_TEXT_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include "../settings/keydef.h"
#include "text_locale.h"
#include "text_random.h"

struct text_order {
	struct keydef *keys;   /* effective keys; none: whole lines only */
	size_t key_count;
	int separator;         /* -t byte, or -1 for blank-to-nonblank fields */
	bool last_resort;      /* whole-line comparison after equal keys (not -s, not -u) */
	bool reverse;          /* -r for the whole-line comparison */
	struct text_locale locale; /* the user's collation, numbers and month names */
	struct text_random random; /* the salt of random keys (-R), once text_order_salt set it */
	bool unique;           /* -u */
	unsigned char eol;     /* '\n', or '\0' with -z */
	bool debug;            /* --debug: output lines are annotated (text_debug) */
	bool csv;              /* --csv: records encoded as lines (csv_codec.h), fields split
	                          at separator as RFC 4180 reads them */
	bool csv_lenient;      /* --csv=lenient (csv_codec.h) */
	struct csv_encoding *csv_encoding; /* --csv: what the sort's reading encoded */
	bool whole_key;        /* the one key is the whole line, made of the global options
	                          (no -k): with --csv the record as read, not its fields */
};

/* Builds the order of the keys given, with -u (unique) and --debug (debug) as the job
 * says; returns 0, or -EINVAL with letters set to the clashing options
 * (GNU: "options '-gn' are incompatible"), or -ENOMEM. */
int text_order_init(struct text_order *order, const struct text_keys *given, bool unique, bool debug,
		    char *letters, size_t letters_size);
void text_order_free(struct text_order *order);

/* Whether a key is random (-R, R in a KEYDEF): then the order needs its salt. */
bool text_order_is_random(const struct text_order *order);
void text_order_salt(struct text_order *order, const unsigned char salt[TEXT_RANDOM_SALT_BYTES]);

#endif
