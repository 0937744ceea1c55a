/* SPDX-License-Identifier: MIT */
/* CSV records encoded as lines and back, and their keys (see csv_codec.h). */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "csv_codec.h"
#include "text_fields.h"
#include "text_count.h"
#include "../../kernels/thread_pool.h"

/* Where a byte leaves the record. */
enum {
	AT_FIELD_START, /* a record's or a field's first byte comes next */
	IN_UNQUOTED,
	IN_QUOTED,
	QUOTE_SEEN,     /* a quote inside a quoted field: "" or the closing one */
	CR_AFTER_QUOTE, /* a closing quote and a CR: LF (or the input's end) must follow */
};

#define ESCAPE '\t'
#define ESCAPED_TAB '\0'
#define ESCAPED_LF '\xff'

void csv_encoder_init(struct csv_encoder *encoder, unsigned char separator, uint64_t first_line, bool lenient)
{
	*encoder = (struct csv_encoder){.separator = separator, .lenient = lenient, .state = AT_FIELD_START,
					.line = first_line,
					.record_line = first_line};
}

void csv_encoder_free(struct csv_encoder *encoder)
{
	free(encoder->scratch);
	encoder->scratch = NULL;
	encoder->scratch_size = 0;
}

static ssize_t malformed(struct csv_encoder *encoder, enum csv_malformation what)
{
	encoder->malformation = what;
	return -EILSEQ;
}

/* The lines ended in data[0, len), and the state that a piece without quotes leaves:
 * its last byte's. Returns its last LF (the last record's end), or NULL. */
static const char *pass_unquoted(struct csv_encoder *encoder, const char *data, size_t len)
{
	const char *lf = len ? memrchr(data, '\n', len) : NULL;
	if (lf) {
		encoder->line += text_count_terminators(data, (size_t)(lf - data) + 1, '\n');
		encoder->record_line = encoder->line;
	}
	if (len) {
		unsigned char last = (unsigned char)data[len - 1];
		encoder->state = last == '\n' || last == encoder->separator ? AT_FIELD_START : IN_UNQUOTED;
	}
	return lf;
}

/* One byte through the state machine, its encoding appended at out. */
static int encode_byte(struct csv_encoder *encoder, unsigned char c, char **out)
{
	char *o = *out;
	switch (encoder->state) {
	case AT_FIELD_START:
	case IN_UNQUOTED:
	unquoted:
		if (c == '"') {
			if (encoder->state == IN_UNQUOTED && !encoder->lenient)
				return (int)malformed(encoder, CSV_QUOTE_IN_UNQUOTED);
			encoder->state = IN_QUOTED;
		} else {
			encoder->state = c == '\n' || c == encoder->separator ? AT_FIELD_START : IN_UNQUOTED;
		}
		*o++ = (char)c;
		break;
	case IN_QUOTED:
		if (c == '"') {
			encoder->state = QUOTE_SEEN;
			*o++ = (char)c;
		} else if (c == '\t' || c == '\n') {
			*o++ = ESCAPE;
			*o++ = c == '\t' ? ESCAPED_TAB : ESCAPED_LF;
		} else {
			*o++ = (char)c;
		}
		break;
	case QUOTE_SEEN:
		if (c == '"')
			encoder->state = IN_QUOTED; /* "" */
		else if (c == encoder->separator || c == '\n')
			encoder->state = AT_FIELD_START;
		else if (c == '\r')
			encoder->state = CR_AFTER_QUOTE;
		else if (!encoder->lenient)
			return (int)malformed(encoder, CSV_AFTER_CLOSING_QUOTE);
		else { /* the field goes on, unquoted */
			encoder->state = IN_UNQUOTED;
			goto unquoted;
		}
		*o++ = (char)c;
		break;
	case CR_AFTER_QUOTE:
		if (c != '\n' && !encoder->lenient)
			return (int)malformed(encoder, CSV_AFTER_CLOSING_QUOTE);
		if (c != '\n') { /* the CR was content: the field goes on, unquoted */
			encoder->state = IN_UNQUOTED;
			goto unquoted;
		}
		encoder->state = AT_FIELD_START;
		*o++ = (char)c;
		break;
	}
	if (c == '\n') {
		encoder->line++;
		if (encoder->state == AT_FIELD_START)
			encoder->record_line = encoder->line;
	}
	*out = o;
	return 0;
}

/* The encoding of in[0, len) from the encoder's state, written at out (room for 2 * len)
 * or, with out NULL, only measured; its length, or -EILSEQ at a malformed record, with
 * *record_end (when out is given) just past the last record that ended before it, or
 * NULL. Runs that need no step of their own go whole: inside quotes up to a quote, TAB
 * or LF, outside up to a quote (whose lines are counted). */
static ssize_t encode_span(struct csv_encoder *encoder, const char *in, size_t len, char *out, char **record_end)
{
	char step[2], *o = out ? out : step;
	size_t measured = 0;
	*record_end = NULL;
	for (size_t i = 0; i < len;) {
		const char *from = in + i, *stop = in + len;
		if (encoder->state == IN_QUOTED || encoder->state == AT_FIELD_START || encoder->state == IN_UNQUOTED) {
			bool quoted = encoder->state == IN_QUOTED;
			const char *q = quoted ? csv_find_any(from, stop, '"', '\t', '\n') : memchr(from, '"', len - i);
			size_t run = (size_t)((q ? q : stop) - from);
			const char *lf = !quoted && run ? pass_unquoted(encoder, from, run) : NULL;
			if (lf && out)
				*record_end = o + (lf - from) + 1;
			if (out) {
				memcpy(o, from, run);
				o += run;
			}
			measured += run;
			i += run;
			if (i == len)
				break;
		}
		char c = in[i++];
		char *before = o;
		if (encode_byte(encoder, (unsigned char)c, &o) != 0)
			return -EILSEQ;
		measured += (size_t)(o - before);
		if (!out)
			o = step;
		else if (c == '\n' && encoder->state == AT_FIELD_START)
			*record_end = o;
	}
	return (ssize_t)measured;
}

ssize_t csv_encode(struct csv_encoder *encoder, char *data, size_t len)
{
	/* up to the first quote nothing changes, unless a quoted field is open */
	size_t plain = 0;
	if (encoder->state != IN_QUOTED && encoder->state != QUOTE_SEEN && encoder->state != CR_AFTER_QUOTE) {
		const char *quote = memchr(data, '"', len);
		plain = quote ? (size_t)(quote - data) : len;
		pass_unquoted(encoder, data, plain);
		if (plain == len)
			return (ssize_t)len;
	}
	size_t rest = len - plain;
	if (encoder->scratch_size < 2 * rest) {
		char *grown = realloc(encoder->scratch, 2 * rest);
		if (!grown)
			return -ENOMEM;
		encoder->scratch = grown;
		encoder->scratch_size = 2 * rest;
	}
	char *record_end;
	ssize_t encoded = encode_span(encoder, data + plain, rest, encoder->scratch, &record_end);
	if (encoded < 0) {
		/* the records ended before the malformed one stay, encoded */
		if (record_end) {
			memcpy(data + plain, encoder->scratch, (size_t)(record_end - encoder->scratch));
			encoder->valid = plain + (size_t)(record_end - encoder->scratch);
		} else {
			const char *lf = plain ? memrchr(data, '\n', plain) : NULL;
			encoder->valid = lf ? (size_t)(lf - data) + 1 : 0;
		}
		return encoded;
	}
	memcpy(data + plain, encoder->scratch, (size_t)encoded);
	if ((size_t)encoded != rest && encoder->encoding)
		encoder->encoding->changed = true;
	return (ssize_t)plain + encoded;
}

/* Pieces of csv_encode_shared: at least this long, at most this many. */
#define SHARED_PIECE_MIN ((size_t)64 << 10)
#define SHARED_PIECES 64

struct shared_piece {
	const char *from;
	size_t len;
	uint64_t quotes, lines;  /* the first pass's counts */
	int state;               /* where the piece starts, from the counts before it */
	uint64_t line;
	struct csv_encoder encoder; /* the pass's own, from that state */
	ssize_t encoded;            /* the second pass's measure */
	size_t at;                  /* where its encoding goes */
};

struct shared_encode {
	const struct csv_encoder *whole;
	struct shared_piece *pieces;
	char *out; /* NULL: measure */
};

static void count_piece(void *context, size_t k)
{
	struct shared_piece *piece = &((struct shared_encode *)context)->pieces[k];
	piece->quotes = text_count_terminators(piece->from, piece->len, '"');
	piece->lines = text_count_terminators(piece->from, piece->len, '\n');
}

static void encode_piece(void *context, size_t k)
{
	struct shared_encode *shared = context;
	struct shared_piece *piece = &shared->pieces[k];
	/* record_line 0: no record has started in the piece */
	csv_encoder_init(&piece->encoder, shared->whole->separator, piece->line, shared->whole->lenient);
	piece->encoder.state = piece->state;
	piece->encoder.record_line = 0;
	char *record_end;
	ssize_t encoded = encode_span(&piece->encoder, piece->from, piece->len,
				      shared->out ? shared->out + piece->at : NULL, &record_end);
	if (!shared->out)
		piece->encoded = encoded;
}

/* The state between at[-1] and at[0] where the quotes before are of even parity. */
static int even_state(const struct csv_encoder *encoder, const char *at)
{
	if (at[-1] == '"')
		return QUOTE_SEEN;
	if (at[-1] == '\r' && at[-2] == '"')
		return CR_AFTER_QUOTE;
	return at[-1] == '\n' || (unsigned char)at[-1] == encoder->separator ? AT_FIELD_START : IN_UNQUOTED;
}

ssize_t csv_encode_shared(struct csv_encoder *encoder, struct thread_pool *pool, char *data, size_t len)
{
	size_t count = len / SHARED_PIECE_MIN;
	if (count > SHARED_PIECES)
		count = SHARED_PIECES;
	if (count > thread_pool_size(pool))
		count = thread_pool_size(pool);
	if (count < 2)
		return csv_encode(encoder, data, len);
	struct shared_piece pieces[SHARED_PIECES];
	struct shared_encode shared = {encoder, pieces, NULL};
	for (size_t k = 0; k < count; k++) {
		size_t begin = len / count * k, end = k + 1 < count ? len / count * (k + 1) : len;
		pieces[k] = (struct shared_piece){.from = data + begin, .len = end - begin};
	}
	thread_pool_parallel_for(pool, count, count_piece, &shared);
	bool odd = encoder->state == IN_QUOTED;
	uint64_t line = encoder->line;
	for (size_t k = 0; k < count; k++) {
		pieces[k].state = k == 0 ? encoder->state : odd ? IN_QUOTED : even_state(encoder, pieces[k].from);
		pieces[k].line = line;
		odd ^= pieces[k].quotes & 1;
		line += pieces[k].lines;
	}
	thread_pool_parallel_for(pool, count, encode_piece, &shared);
	size_t total = 0;
	for (size_t k = 0; k < count; k++) {
		if (pieces[k].encoded < 0) /* again in order, for the error as csv_encode gives it */
			return csv_encode(encoder, data, len);
		pieces[k].at = total;
		total += (size_t)pieces[k].encoded;
	}
	if (total != len) { /* escapes: the pieces encoded apart, then in place of the input */
		if (!(shared.out = malloc(total)))
			return csv_encode(encoder, data, len);
		thread_pool_parallel_for(pool, count, encode_piece, &shared);
		memcpy(data, shared.out, total);
		free(shared.out);
		if (encoder->encoding)
			encoder->encoding->changed = true;
	}
	for (size_t k = 0; k < count; k++)
		if (pieces[k].encoder.record_line)
			encoder->record_line = pieces[k].encoder.record_line;
	encoder->state = pieces[count - 1].encoder.state;
	encoder->line = line;
	return (ssize_t)total;
}

int csv_encode_end(struct csv_encoder *encoder)
{
	if (encoder->state == IN_QUOTED && !encoder->lenient)
		return (int)malformed(encoder, CSV_UNCLOSED_QUOTE);
	return 0;
}

size_t csv_decode(struct csv_decoder *decoder, const char *in, size_t len, char *out)
{
	/* Every LF in encoded records ends one (inside quotes it is encoded), and there the
	 * quotes' parity starts again: a lenient record may hold an odd number of them. */
	if (!decoder->escape && !memchr(in, ESCAPE, len)) {
		/* nothing encoded: only the quotes' parity since the last LF carries on */
		const char *lf = memrchr(in, '\n', len), *from = lf ? lf + 1 : in, *end = in + len;
		size_t quotes = 0;
		for (const char *p = from; (p = memchr(p, '"', (size_t)(end - p))) != NULL; p++)
			quotes++;
		decoder->in_quotes = (lf ? false : decoder->in_quotes) ^ (quotes & 1);
		return CSV_DECODE_UNCHANGED;
	}
	char *o = out;
	for (const char *p = in, *end = in + len; p < end;) {
		if (decoder->escape) {
			*o++ = *p++ == ESCAPED_LF ? '\n' : '\t';
			decoder->escape = false;
			continue;
		}
		const char *q = csv_find_any(p, end, '"', ESCAPE, '\n');
		memcpy(o, p, (size_t)(q - p));
		o += q - p;
		if (q == end)
			break;
		char c = *q;
		p = q + 1;
		if (c == ESCAPE && decoder->in_quotes) {
			decoder->escape = true;
			continue;
		}
		if (c == '"')
			decoder->in_quotes = !decoder->in_quotes;
		else if (c == '\n')
			decoder->in_quotes = false;
		*o++ = c;
	}
	return (size_t)(o - out);
}

size_t csv_decoded_length(const char *line, size_t len)
{
	if (!memchr(line, ESCAPE, len))
		return len;
	size_t escapes = 0;
	bool quoted = false;
	for (const char *p = line, *end = line + len; (p = csv_find_any(p, end, '"', ESCAPE, ESCAPE)) < end; p++) {
		if (*p == '"') {
			quoted = !quoted;
		} else if (quoted) { /* TAB and its code: one byte */
			escapes++;
			p++;
		}
	}
	return len - escapes;
}

/* A thread's buffers for the keys of the two records a comparison looks at. */
struct side_buffer {
	char *data;
	size_t size;
};
static _Thread_local struct side_buffer side_buffers[2];
/* Frees a thread's buffers when it ends (a key whose value is set once per thread). */
static pthread_key_t side_key;
static pthread_once_t side_key_once = PTHREAD_ONCE_INIT;

static void side_buffers_free(void *buffers)
{
	struct side_buffer *own = buffers;
	for (int i = 0; i < 2; i++) {
		free(own[i].data);
		own[i] = (struct side_buffer){0};
	}
}

static void side_key_make(void)
{
	(void)pthread_key_create(&side_key, side_buffers_free);
}

static char *side_room(int side, size_t bytes)
{
	struct side_buffer *buffer = &side_buffers[side & 1];
	if (buffer->size < bytes) {
		if (!side_buffers[0].data && !side_buffers[1].data) {
			pthread_once(&side_key_once, side_key_make);
			(void)pthread_setspecific(side_key, side_buffers);
		}
		size_t size = bytes < 256 ? 256 : 2 * bytes;
		char *grown = realloc(buffer->data, size);
		if (!grown)
			return NULL;
		buffer->data = grown;
		buffer->size = size;
	}
	return buffer->data;
}

/* A field's content, decoded, appended at out: each quote opens or closes a quoted
 * part (one at the start, and lenient, any other), inside which "" is one quote and the
 * encoding is undone. */
static char *field_content(const char *field, size_t size, char *out)
{
	if (!memchr(field, '"', size)) {
		memcpy(out, field, size);
		return out + size;
	}
	const char *p = field, *end = field + size;
	bool quoted = false;
	while (p < end) {
		char c = *p++;
		if (c == '"' && quoted && p < end && *p == '"')
			*out++ = *p++; /* "" reads as one quote */
		else if (c == '"')
			quoted = !quoted;
		else if (quoted && c == ESCAPE && p < end)
			*out++ = *p++ == ESCAPED_LF ? '\n' : '\t';
		else
			*out++ = c;
	}
	return out;
}

/* Where the field that starts at p ends: at the first separator outside quotes after
 * it (the quotes' parity says where), or at end. */
static const char *field_end(const char *p, const char *end, unsigned char separator)
{
	for (bool quoted = false;;) {
		const char *sep = quoted ? NULL : memchr(p, separator, (size_t)(end - p));
		const char *stop = sep ? sep : end;
		const char *quote = memchr(p, '"', (size_t)(stop - p));
		if (!quote)
			return stop;
		quoted = !quoted;
		p = quote + 1;
	}
}

/* A key of one whole field (-k F,F) whose content lies in the record as it is (no ""
 * and nothing encoded in it): its bounds there, without a copy. false: it does not. */
static bool field_in_place(const struct keydef *key, unsigned char separator, const char *line, size_t len,
			   const char **begin, const char **end)
{
	const char *p = line, *lim = line + len;
	for (size_t field = 1; field < key->start_field; field++) {
		const char *next = field_end(p, lim, separator);
		if (next >= lim) {
			*begin = *end = lim; /* past the last field: empty */
			return true;
		}
		p = next + 1;
	}
	const char *stop = field_end(p, lim, separator);
	if (p < stop && *p == '"') {
		p++;
		if (stop > p && stop[-1] == '"')
			stop--;
		if (memchr(p, ESCAPE, (size_t)(stop - p)))
			return false;
	}
	if (memchr(p, '"', (size_t)(stop - p)))
		return false; /* "", or (lenient) a quote inside the field */
	const char *b = p;
	if (key->ordering.skip_start_blanks)
		while (b < stop && text_is_blank((unsigned char)*b))
			b++;
	size_t offset = key->start_char - 1;
	b = (size_t)(stop - b) < offset ? stop : b + offset;
	*begin = b;
	*end = stop;
	return true;
}

void csv_key_bounds(const struct keydef *key, unsigned char separator, const char *line, size_t len, int side,
		    const char **begin, const char **end)
{
	if (len && line[len - 1] == '\r')
		len--; /* CRLF: the CR ends the record */
	if (!memchr(line, '"', len)) {
		/* no quotes: the fields are -t's */
		text_key_bounds(key, separator, line, len, begin, end);
		return;
	}
	if (key->end_field == key->start_field && key->end_char == 0 && field_in_place(key, separator, line, len, begin, end))
		return;
	char *out = side_room(side, len);
	if (!out) {
		text_key_bounds(key, separator, line, len, begin, end);
		return;
	}
	/* The fields' contents joined by the separator, the key's fields' places noted;
	 * the bounds then follow -t's rules over them. Offsets may run into later fields,
	 * so all are joined unless the key ends at a field's end. */
	size_t first = key->start_field, last = key->end_field;
	size_t need = last && key->end_char == 0 ? (last > first ? last : first) : SIZE_MAX;
	const char *p = line, *lim = line + len;
	char *start_at = NULL, *last_start = NULL, *last_end = NULL;
	for (size_t field = 1;; field++) {
		const char *next = field_end(p, lim, separator);
		if (field == first)
			start_at = out;
		if (field == last)
			last_start = out;
		out = field_content(p, (size_t)(next - p), out);
		if (field == last)
			last_end = out;
		if (next >= lim || field >= need)
			break;
		*out++ = (char)separator;
		p = next + 1;
	}
	const char *joined_end = out;
	/* a field past the record's last is empty, at its end */
	const char *b = start_at ? start_at : joined_end;
	if (key->ordering.skip_start_blanks)
		while (b < joined_end && text_is_blank((unsigned char)*b))
			b++;
	size_t offset = key->start_char - 1;
	b = (size_t)(joined_end - b) < offset ? joined_end : b + offset;
	const char *e = joined_end;
	if (last && key->end_char == 0) {
		e = last_end ? last_end : joined_end;
	} else if (last) {
		e = last_start ? last_start : joined_end;
		if (key->ordering.skip_end_blanks)
			while (e < joined_end && text_is_blank((unsigned char)*e))
				e++;
		e = (size_t)(joined_end - e) < key->end_char ? joined_end : e + key->end_char;
	}
	*begin = b;
	*end = e < b ? b : e;
}

const char *csv_record_decoded(const char *line, size_t len, int side, size_t *decoded_len)
{
	char *out;
	if (csv_encoded_plain(line, len) || !(out = side_room(side, len))) {
		*decoded_len = len;
		return line;
	}
	struct csv_decoder decoder = {0};
	*decoded_len = csv_decode(&decoder, line, len, out);
	return out;
}
