/* What a sort job asks for, as the pipeline reads it: built by the library from a
 * struct gpusort_job (src/library/job_options.c), validated there. */
#ifndef GPUSORT_OPTIONS_H
#define GPUSORT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "keydef.h"
#include "../../kernels/sort_engine.h"

enum key_type { KEY_U32, KEY_I32, KEY_U64, KEY_I64, KEY_F32, KEY_F64, KEY_BYTES };

enum sort_mode { MODE_TEXT, MODE_BINARY };

/* A part of an input: bytes [offset, offset + length) (the distributed sort's share). */
struct input_range {
	uint64_t offset, length;
};

/* One field of a binary key: a typed key at an offset of the record, ascending or
 * descending. A sort's key is a list of them, most significant first (database ORDER
 * BY); --type/--key-offset/--key-size make the list of one. */
struct key_field {
	enum key_type type;
	size_t offset;           /* the field's first byte in the record */
	size_t size;             /* its bytes: the type's size, or any for bytes */
	bool descending;         /* largest first; -r is already applied */
};

struct options {
	enum sort_mode mode;

	/* binary records */
	size_t record_size;      /* bytes per record */
	struct key_field *key_fields; /* the key, most significant field first; at least one */
	size_t key_field_count;
	const char *record_size_option; /* the option that set the record size, for messages */

	/* text keys */
	struct keydef *keys;
	size_t key_count;
	struct key_ordering global_ordering;
	int field_separator;     /* -t: a byte, or -1 for blank-to-nonblank transitions */
	bool zero_terminated;    /* -z */
	bool stable;             /* -s */
	const char *files0_from;
	const char *random_source; /* --random-source: the salt of -R; NULL: getrandom() */
	/* -R's salt itself (TEXT_RANDOM_SALT_BYTES bytes), over random_source: the ranks of
	 * a distributed sort share rank 0's; NULL: read it as random_source says */
	const unsigned char *random_salt;

	/* common */
	bool reverse;            /* -r (global) */
	bool unique;             /* -u */
	int check;               /* 0, 'c' (report disorder) or 'C' (silent) */
	bool merge_only;         /* -m */
	const char *output;      /* -o; NULL means stdout */
	bool output_to_fd;       /* write to output_fd (a job's descriptor) in place of -o, */
	int output_fd;           /* which then only names it in messages */
	size_t memory_budget;    /* -S in bytes; 0: a default fraction of physical memory */
	size_t batch_size;       /* --batch-size: the most runs or inputs one merge takes;
	                            0: as many as the memory plan allows */
	const char **temp_dirs;  /* -T, in order; none: $TMPDIR, else /tmp */
	const char *compress_program; /* --compress-program: temp files through PROG and
	                            PROG -d; NULL: zstd blocks in-process */
	size_t temp_dir_count;
	struct sort_engine_config engine;
	bool stats;              /* --stats */
	bool no_verify;          /* --no-verify: skip the self-check of the sort */
	bool progress;           /* --progress */
	bool verbose;            /* --verbose */
	bool debug;              /* --debug: GNU sort's notes, and each output line annotated */

	const char **inputs;     /* in order; none means stdin ("-") */
	size_t input_count;
	/* NULL: every input whole; else the part of inputs[i] to read, for each i (set
	 * by the distributed sort for a rank's share, never with files0_from) */
	const struct input_range *input_ranges;
};

/* The key type's size (4 or 8; 0 for bytes) and its --type name. */
size_t key_type_size(enum key_type type);
const char *key_type_name(enum key_type type);

#endif
