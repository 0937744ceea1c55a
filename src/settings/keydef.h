/* SPDX-License-Identifier: MIT */
/* Text sort keys: GNU sort's KEYDEF syntax F[.C][OPTS][,F[.C][OPTS]] and the ordering
 * options (b d f g h i M n R r V) that apply globally or to one key. */
#ifndef GPUSORT_KEYDEF_H
#define GPUSORT_KEYDEF_H

#include <stdbool.h>
#include <stddef.h>

struct key_ordering {
	bool skip_start_blanks; /* b on the start position */
	bool skip_end_blanks;   /* b on the end position */
	bool dictionary;        /* d */
	bool fold_case;         /* f */
	bool general_numeric;   /* g */
	bool human_numeric;     /* h */
	bool ignore_nonprinting;/* i */
	bool month;             /* M */
	bool numeric;           /* n */
	bool random;            /* R: a keyed hash of the key, equal keys adjacent */
	bool reverse;           /* r */
	bool version;           /* V */
};

/* A column's name in a KEYDEF ([NAME] for a field number): its bytes in the KEYDEF's
 * text, which must outlive the key. text NULL: a number was given. */
struct keydef_name {
	const char *text;
	size_t length;
};

struct keydef {
	size_t start_field;   /* 1-based */
	size_t start_char;    /* 1-based; 1 when omitted */
	size_t end_field;     /* 1-based; 0: the end of the line */
	size_t end_char;      /* 1-based; 0: the end of the field */
	struct key_ordering ordering;
	bool has_ordering;    /* any option letter given: then global options do not apply */
	/* --csv --header: the fields given as column names, [NAME], resolved by the header */
	struct keydef_name start_name, end_name;
};

/* The text order a job asks for, as given: the -k keys in order and the global
 * options they may inherit (text/text_order.h makes the effective order of them). */
struct text_keys {
	struct keydef *keys;     /* -k, in order; none: whole lines */
	size_t count;
	struct key_ordering global_ordering; /* the global ordering letters (-b -d -f ...) */
	bool reverse;            /* -r (global) */
	int field_separator;     /* -t: a byte, or -1 for blank-to-nonblank transitions */
	bool zero_terminated;    /* -z */
	bool stable;             /* -s */
	bool csv;                /* --csv: records and fields as RFC 4180 reads them, split
	                            at field_separator */
	bool csv_lenient;        /* --csv=lenient: malformed records read as best they can be */
};

/* Parses a KEYDEF; returns 0, or -EINVAL with *reason set to GNU sort's wording
 * ("field number is zero", "invalid number after '.'", ...). */
int keydef_parse(const char *text, struct keydef *key, const char **reason);
/* Whether a field of key is a column's name, [NAME], for the header to resolve. */
bool keydef_named(const struct keydef *key);
/* Sets the fields given by name in keys[0, count) to the numbers of the columns with
 * those names (the first of equal ones): 0, or -ENOENT with *unknown the first name
 * that is none of them. */
int keydef_resolve_names(struct keydef *keys, size_t count, const struct keydef_name *columns, size_t column_count,
			 const struct keydef_name **unknown);

/* Applies one ordering option letter; returns -EINVAL if the letter is not one. */
int key_ordering_set(struct key_ordering *ordering, char letter, bool on_end);

bool key_ordering_any(const struct key_ordering *ordering);

/* Writes GNU sort's whole message for a KEYDEF that keydef_parse rejected, e.g.
 * "invalid number after '.': invalid count at start of 'x'" or
 * "field number is zero: invalid field specification '0'"; print it as "gpusort: %s". */
void keydef_error_message(const char *text, char *buffer, size_t size);

/* True when the ordering mixes options GNU sort rejects together (n g h M, and one of
 * V, R or d/i); letters receives them as GNU names them ("gn"), for
 * "gpusort: options '-gn' are incompatible". */
bool key_ordering_conflict(const struct key_ordering *ordering, char *letters, size_t size);

#endif
