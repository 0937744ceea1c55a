/* SPDX-License-Identifier: MIT */
/* --csv records as lines: a record may hold newlines inside quoted fields, which every
 * stage after the reading takes for line ends. So the reader encodes each record as one
 * line, and the output decodes it back, byte for byte: inside quotes a TAB becomes
 * TAB NUL and a LF becomes TAB 0xFF, outside quotes nothing changes. The code keeps the
 * byte order (TAB NUL < TAB 0xFF < 0x0B), so encoded records compare as the records do;
 * a record without quotes is its own encoding. */
#ifndef GPUSORT_CSV_CODEC_H
#define GPUSORT_CSV_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include "csv_record.h"
#include "../settings/keydef.h"

/* What a sort's encoders have done: whether any record's encoding differs from it
 * (else the output needs no decoding), and whether every input has been read. */
struct csv_encoding {
	bool changed;
	bool all_read;
};

/* The state of one input's encoding. */
struct csv_encoder {
	struct csv_encoding *encoding; /* the sort's, noted when a record changes; or NULL */
	unsigned char separator;
	bool lenient;              /* --csv=lenient: no record is malformed (below) */
	int state;                 /* where the last byte left the record (csv_codec.c) */
	uint64_t line;             /* the 1-based line at the next byte */
	uint64_t record_line;      /* the line the record being read starts on */
	enum csv_malformation malformation; /* set with -EILSEQ */
	size_t valid;              /* with -EILSEQ: the bytes of data before the malformed
	                              record's, whole records encoded in place */
	char *scratch;             /* the encoding of a piece that holds quotes */
	size_t scratch_size;
};

/* first_line: the input's line the first byte is on (1, or past a header). lenient:
 * what RFC 4180 would not read is read as best it can be, as the quotes' parity says
 * (which decoding follows too): every quote opens or closes a quoted part of its field
 * wherever it stands, "" inside quotes is one quote, a CR not before the record's LF
 * is content, and an unclosed quote runs to the end of the input. */
void csv_encoder_init(struct csv_encoder *encoder, unsigned char separator, uint64_t first_line, bool lenient);
void csv_encoder_free(struct csv_encoder *encoder);
/* Encodes data[0, len), the stream's next bytes, in place; data has room for 2 * len
 * bytes. Returns the encoded length, or -EILSEQ for a malformed record (the encoder's
 * malformation and record_line say what and where) or -ENOMEM. */
ssize_t csv_encode(struct csv_encoder *encoder, char *data, size_t len);
/* csv_encode, its work shared among the pool's threads: pieces of data measured and
 * encoded apart, each from the state that the quotes' parity before it and the bytes
 * just before it give (inside quotes where the parity is odd). Where a piece meets a
 * malformed record, the whole is encoded again by csv_encode, for its error. */
struct thread_pool;
ssize_t csv_encode_shared(struct csv_encoder *encoder, struct thread_pool *pool, char *data, size_t len);
/* At the end of the input: 0, or -EILSEQ when a quoted field is still open. */
int csv_encode_end(struct csv_encoder *encoder);

/* The state of one output's decoding (records in order, each ending in LF). */
struct csv_decoder {
	bool in_quotes;
	bool escape; /* the last byte was an encoded TAB's or LF's first */
};

/* Decodes in[0, len) to out (room for len bytes); returns the decoded length, or
 * CSV_DECODE_UNCHANGED (out untouched) when in is its own decoding. */
#define CSV_DECODE_UNCHANGED ((size_t)-1)
size_t csv_decode(struct csv_decoder *decoder, const char *in, size_t len, char *out);
/* The length of the encoded record line[0, len) once decoded. */
size_t csv_decoded_length(const char *line, size_t len);
/* Whether encoded bytes need decoding (they hold a TAB) at all. */
static inline bool csv_encoded_plain(const char *data, size_t len)
{
	return len == 0 || !memchr(data, '\t', len);
}

/* [*begin, *end) of key in the encoded record line[0, len) (without its LF): -k counts
 * CSV fields, and the key is the content of its fields (quotes removed, "" as ", the
 * encoding undone) joined by the separator, to which .C and b apply as to unquoted
 * fields; a CR that ends the record is not part of it. The bytes lie in the record
 * itself when it has no quotes, else in a buffer of the thread's own for side (0 or 1),
 * valid until the next call for that side. A memory shortage gives the record's bytes
 * as they are. */
void csv_key_bounds(const struct keydef *key, unsigned char separator, const char *line, size_t len, int side,
		    const char **begin, const char **end);
/* The record as it was read, decoded (for a comparison in a locale's collation): the
 * record itself when it needs no decoding, else a buffer of the thread's own for side. */
const char *csv_record_decoded(const char *line, size_t len, int side, size_t *decoded_len);

#endif
