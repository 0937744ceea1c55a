/* SPDX-License-Identifier: MIT */
/* CSV records as RFC 4180 reads them (--csv): where each record ends in a stream given
 * in chunks cut anywhere, a quoted field holding the separator, "" and newlines; what is
 * malformed and on which line; and where a record starts after an arbitrary offset. */
#ifndef GPUSORT_CSV_RECORD_H
#define GPUSORT_CSV_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The first of the bytes a, b or c in [p, lim), or lim: 16 bytes a step, for the runs
 * between the few bytes that matter to a CSV record. */
static inline const char *csv_find_any(const char *p, const char *lim, char a, char b, char c)
{
#ifdef __SSE2__
	const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b), vc = _mm_set1_epi8(c);
	for (; lim - p >= 16; p += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)p);
		unsigned mask = (unsigned)_mm_movemask_epi8(_mm_or_si128(
			_mm_or_si128(_mm_cmpeq_epi8(v, va), _mm_cmpeq_epi8(v, vb)), _mm_cmpeq_epi8(v, vc)));
		if (mask)
			return p + __builtin_ctz(mask);
	}
#endif
	for (; p < lim; p++)
		if (*p == a || *p == b || *p == c)
			return p;
	return lim;
}

/* Where the scan stands between two bytes of the stream. */
enum csv_state {
	CSV_RECORD_START,  /* at a record's first byte (also a field's start) */
	CSV_FIELD_START,   /* just after a separator */
	CSV_UNQUOTED,      /* inside an unquoted field, past its first byte */
	CSV_QUOTED,        /* inside a quoted field */
	CSV_QUOTE_SEEN,    /* after a quote inside a quoted field: "" or the closing quote */
	CSV_CR_AFTER_QUOTE /* after a closing quote and a CR: only LF may follow */
};

/* Why a record is malformed. */
enum csv_malformation {
	CSV_OK,
	CSV_UNCLOSED_QUOTE,    /* a quoted field still open at the end of the input */
	CSV_QUOTE_IN_UNQUOTED, /* a quote inside a field that did not start with one */
	CSV_AFTER_CLOSING_QUOTE /* a byte after a closing quote other than separator, CR LF or LF */
};

/* The scan of one stream, carried from chunk to chunk: each byte is given once, in order. */
struct csv_scanner {
	unsigned char separator;
	bool lenient;           /* --csv=lenient: no record is malformed (csv_codec.h) */
	enum csv_state state;
	uint64_t offset;        /* bytes of the stream scanned */
	uint64_t line;          /* 1-based number of the line at offset */
	uint64_t record_offset; /* where the record being scanned starts */
	uint64_t record_line;   /* the line it starts on */
	uint64_t quote_offset;  /* where the last quoted field opened */
	/* Set with -EILSEQ: what, and the offset of the byte at fault (for an unclosed
	 * quote, the quote that opened the field); the record's line is record_line. */
	enum csv_malformation malformation;
	uint64_t error_offset;
};

void csv_scanner_init(struct csv_scanner *scanner, unsigned char separator, bool lenient);

/* True when the bytes scanned end inside a quoted field. */
static inline bool csv_scanner_in_quotes(const struct csv_scanner *scanner)
{
	return scanner->state == CSV_QUOTED;
}

/* Scans data[0, len), the stream's next bytes, up to the first record end in it.
 * Returns 1 with *taken the bytes through that record's LF (at_end: or through the last
 * byte, for a final record without one); 0 when no record ends in data (all len bytes
 * taken, the state kept for the next chunk; at_end and nothing pending: the end);
 * -EILSEQ for a malformed record (malformation, error_offset and record_line say
 * which), *taken then undefined. at_end says no byte follows data. */
int csv_scan_record(struct csv_scanner *scanner, const char *data, size_t len, bool at_end, size_t *taken);

/* Scans data[0, len) as csv_scan_record does, record after record: ends[i] is the
 * offset in data just past record i's end, for up to max records; *count records and
 * *taken bytes (through the last record found when max stops the scan, else len).
 * Returns 0 or -EILSEQ (the records before the malformed one are in ends). */
int csv_scan_records(struct csv_scanner *scanner, const char *data, size_t len, bool at_end, size_t *ends,
		     size_t max, size_t *count, size_t *taken);

/* GNU-style words for a malformation, e.g. "unclosed quote". */
const char *csv_malformation_text(enum csv_malformation malformation);

/* Quotes in data[0, len). For parallel reading: a well-formed stream is inside a quoted
 * field at an offset exactly when the quotes before it are odd in number (each field
 * opens and closes once; "" counts twice), so the chunks' counts, taken in parallel and
 * summed in order, say each chunk's state at its start. */
size_t csv_count_quotes(const char *data, size_t len);

/* Where the first record after data[0] starts: the offset past the first LF outside
 * quotes, in_quotes saying whether data[0] lies inside a quoted field (from
 * csv_count_quotes). Returns 0 with *start set, or -EAGAIN when no record ends in
 * data. Exact for well-formed input; the reader confirms a cut when the scan of the
 * chunk before ends a record exactly there (which a malformed stream would fail to do
 * or be reported for). Without the quotes' parity, no finder can know: a LF may end a
 * record or lie in a quoted field that opened anywhere before. */
int csv_next_record_start(const char *data, size_t len, bool in_quotes, size_t *start);

#endif
