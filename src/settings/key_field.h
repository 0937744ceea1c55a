/* SPDX-License-Identifier: MIT */
/* A binary key as a job gives it: typed fields of fixed-size records, each ascending or
 * descending, most significant first (database ORDER BY). Read by src/binary/ (images,
 * composite keys, items) and built by the library from a job. */
#ifndef GPUSORT_KEY_FIELD_H
#define GPUSORT_KEY_FIELD_H

#include <stdbool.h>
#include <stddef.h>

enum key_type { KEY_U32, KEY_I32, KEY_U64, KEY_I64, KEY_F32, KEY_F64, KEY_BYTES };

/* One field of a binary key: a typed key at an offset of the record, ascending or
 * descending. A sort's key is a list of them, most significant first (database ORDER
 * BY); --type/--key-offset/--key-size make the list of one. */
struct key_field {
	enum key_type type;
	size_t offset;           /* the field's first byte in the record */
	size_t size;             /* its bytes: the type's size, or any for bytes */
	bool descending;         /* largest first; -r is already applied */
};

/* A binary key of fixed-size records, as a job gives it. */
struct binary_key {
	size_t record_size;      /* bytes per record */
	struct key_field *fields; /* the key, most significant field first; at least one */
	size_t field_count;
	const char *record_size_option; /* the option that set the record size, for messages */
};

/* The key type's size (4 or 8; 0 for bytes) and its --type name (defined in
 * src/binary/key_image.c). */
size_t key_type_size(enum key_type type);
const char *key_type_name(enum key_type type);

#endif
