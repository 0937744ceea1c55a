/* SPDX-License-Identifier: MIT */
/* Sorted lines put out (see text_emit.h). A first pass measures each chunk of lines (and
 * under -u decides which lines to keep, each against its predecessor, which needs no
 * order between chunks); prefix sums give every chunk its place; then rounds of chunks
 * are gathered by the pool into a block, checked while in cache, and handed on
 * (emit_rounds.h). */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "../common/verify.h"
#include "csv_codec.h"
#include "text_compare.h"
#include "text_emit.h"
#include "../../kernels/huge_memory.h"

#define EMIT_CHUNK_LINES 16384
/* A round is a quarter of the lines put out, within these bounds: two rounds of a
 * spilled chunk stay small beside it, and one round is large enough to keep every
 * compressor thread of a run writer busy. */
#define ROUND_BYTES_MIN ((uint64_t)4 << 20)
#define ROUND_BYTES_MAX ((uint64_t)32 << 20)

struct emit_job {
	const struct text_order *order;
	const struct text_lines *lines;
	const uint64_t *sorted;
	size_t n;
	struct sort_verify *verify; /* NULL when not verifying */
	bool to_output;
	unsigned char *keep; /* under -u: whether line i of the order is put out */
	uint64_t *offsets;   /* chunk c's bytes start at offsets[c] (chunks + 1 of them) */
	bool decode;         /* --csv: the lines decoded as they go out (emit_output.csv_decode) */
	uint64_t *encoded;   /* then: chunk c's largest piece's bytes as gathered, encoded */
	size_t *kept;        /* lines chunk c puts out */
	size_t chunks;
	uint64_t round_bytes; /* a round's most bytes (at least one chunk each) */
	char *round;         /* the round's buffer, which starts at offset round_base */
	uint64_t round_base;
	size_t first;        /* the round's first chunk */
	size_t next;         /* the next round's first chunk */
	struct offset_writes *at; /* each chunk written at its offset, where it has a sink_at */
};

/* How far ahead measure_chunk and gather_lines ask for the lines they will read, whose
 * random reads the out-of-order core alone keeps few of in flight (see gather_form in
 * binary/record_items.c). */
#define GATHER_PREFETCH_LINES 16

/* Asks for what reading line sorted[i + ahead] takes, two steps ahead of it: the start
 * offset of a later line, then (with bytes) a nearer line's bytes, whose offset has
 * arrived by then. Always inlined: gcc 12 at -O2 took a call of it for one without
 * effects (a prefetch counts as none) and dropped every call, prefetches and all. */
static inline __attribute__((always_inline)) void lines_prefetch(const uint64_t *sorted, const uint64_t *starts, const char *data, size_t i,
				  size_t end, bool bytes)
{
	if (i + 2 * GATHER_PREFETCH_LINES < end)
		__builtin_prefetch(&starts[sorted[i + 2 * GATHER_PREFETCH_LINES]]);
	if (bytes && i + GATHER_PREFETCH_LINES < end)
		__builtin_prefetch(data + starts[sorted[i + GATHER_PREFETCH_LINES]]);
}

static void chunk_lines(const struct emit_job *job, size_t chunk, size_t *begin, size_t *end)
{
	*begin = chunk * EMIT_CHUNK_LINES;
	*end = *begin + EMIT_CHUNK_LINES < job->n ? *begin + EMIT_CHUNK_LINES : job->n;
}

/* A checked gather goes in pieces of this many lines, each checked right after it is
 * gathered, while its lines are in the core's cache; the check's loop stays out of the
 * gather's, which the latency of its random reads bounds, and where the check's work
 * would slow it. A decoded gather (--csv) goes in the same pieces, each gathered
 * encoded into a buffer of its own and decoded from there while it is in cache. */
#define CHECK_PIECE_LINES 1024

static void measure_chunk(void *context, size_t chunk)
{
	struct emit_job *job = context;
	size_t begin, end, kept = 0;
	chunk_lines(job, chunk, &begin, &end);
	uint64_t bytes = 0, piece = 0, largest = 0;
	/* an in-memory sort's output lines, dropped ones too, count by their indices where
	 * they are checked (gather_chunk); others' dropped lines count by their bytes here */
	bool by_position = job->verify && job->to_output && job->verify->by_position;
	struct fingerprint counted = {0, 0};
	for (size_t i = begin; i < end; i++) {
		if ((i - begin) % CHECK_PIECE_LINES == 0) {
			largest = piece > largest ? piece : largest;
			piece = 0;
		}
		/* the lengths' offsets, and under -u the lines, which it compares */
		lines_prefetch(job->sorted, job->lines->starts, job->lines->data, i, end, job->keep != NULL);
		size_t len;
		const char *line = text_line(job->lines, job->sorted[i], &len);
		if (job->keep) {
			size_t previous_len;
			const char *previous = i > 0 ? text_line(job->lines, job->sorted[i - 1], &previous_len) : NULL;
			job->keep[i] = !previous || text_compare_lines(job->order, previous, previous_len, line, len) != 0;
			if (!job->keep[i]) {
				/* a dropped line counts as put out (the self-check) */
				if (job->verify && !by_position)
					fingerprint_add(&counted, line, len);
				continue;
			}
		}
		bytes += (job->decode ? csv_decoded_length(line, len) : len) + 1;
		piece += len + 1;
		kept++;
	}
	job->offsets[chunk] = bytes;
	if (job->decode)
		job->encoded[chunk] = piece > largest ? piece : largest;
	job->kept[chunk] = kept;
	if (counted.count)
		sort_verify_output(job->verify, &counted, 0);
}

/* What the self-check of a chunk carries from one piece to the next: the last line put
 * out, and what it found. */
struct gathered_check {
	const char *previous;
	size_t previous_len;
	uint64_t disorder;
	unsigned char stray; /* not 0: a terminator was not where its line ends */
	struct fingerprint print;
};

/* Neighbours that the loops below do not decide on a word: the order's full comparison,
 * out of those loops, so that they keep their values in registers. */
__attribute__((noinline)) static bool lines_misordered(const struct text_order *order, const char *previous,
							 size_t previous_len, const char *line, size_t len)
{
	int compared = text_compare_lines(order, previous, previous_len, line, len);
	return order->unique ? compared >= 0 : compared > 0;
}

/* The self-check of count lines just gathered at out, of the lengths the gather gave
 * them: each against the one before it in the output (strictly after it under -u), and
 * each with its terminator right after it, so that the output's lines are these (a line
 * holds no terminator), found without scanning their bytes. */
static void check_gathered(const struct emit_job *job, const char *out, const size_t *lengths, size_t count,
			   struct gathered_check *check)
{
	const struct text_order *order = job->order;
	const unsigned char eol = order->eol;
	const char *previous = check->previous, *first = out;
	size_t previous_len = check->previous_len, k = 0;
	uint64_t disorder = 0;
	unsigned char stray = 0;
	if (!previous && count > 0) { /* the output's first line: none before it */
		previous = out, previous_len = lengths[0];
		stray |= (unsigned char)out[previous_len] ^ eol;
		out += previous_len + 1, k = 1;
	}
	if (order->key_count == 0 && order->last_resort && !order->locale.collate) {
		/* whole lines in byte order (no keys, no collation), which their first 8 bytes
		 * as one big-endian word decide where those differ, as they do for most
		 * neighbours; complemented under -r, so that a larger word is disorder */
		const uint64_t flip = order->reverse ? ~0ull : 0;
		uint64_t previous_word = 0;
		if (previous_len >= 8) {
			memcpy(&previous_word, previous, 8);
			previous_word = __builtin_bswap64(previous_word) ^ flip;
		}
		for (; k < count; k++) {
			size_t len = lengths[k];
			const char *line = out;
			out += len + 1;
			stray |= (unsigned char)line[len] ^ eol;
			uint64_t word = 0;
			if (len >= 8) {
				memcpy(&word, line, 8);
				word = __builtin_bswap64(word) ^ flip;
			}
			if (len >= 8 && previous_len >= 8 && word != previous_word)
				disorder += previous_word > word;
			else
				disorder += lines_misordered(order, previous, previous_len, line, len);
			previous = line, previous_len = len, previous_word = word;
		}
	} else {
		for (; k < count; k++) {
			size_t len = lengths[k];
			const char *line = out;
			out += len + 1;
			stray |= (unsigned char)line[len] ^ eol;
			disorder += lines_misordered(order, previous, previous_len, line, len);
			previous = line, previous_len = len;
		}
	}
	if (!job->verify->by_position) /* else counted by their indices */
		for (k = 0; k < count; first += lengths[k] + 1, k++)
			fingerprint_add(&check->print, first, lengths[k]);
	check->previous = previous;
	check->previous_len = previous_len;
	check->disorder += disorder;
	check->stray |= stray;
}

/* Gathers the lines sorted[from, to) to out (under -u the kept ones); returns the end of
 * what it wrote. With lengths, notes there the length of each line it gathered, and
 * their count in *count. The loop is bound by the latency of its random reads, and the
 * fewer instructions it takes a line, the more lines' reads are in flight at once: what
 * it reads through job is read once, as memcpy could change it for all the compiler
 * knows. */
static inline char *gather_lines(const struct emit_job *job, size_t from, size_t to, char *out, size_t *lengths,
				 size_t *count)
{
	const uint64_t *sorted = job->sorted, *starts = job->lines->starts;
	const char *data = job->lines->data;
	const unsigned char *keep = job->keep;
	const char eol = (char)job->order->eol;
	size_t k = 0;
	for (size_t i = from; i < to; i++) {
		lines_prefetch(sorted, starts, data, i, to, true);
		if (keep && !keep[i])
			continue;
		uint64_t line = sorted[i];
		size_t len = starts[line + 1] - starts[line] - 1; /* text_line's */
		memcpy(out, data + starts[line], len);
		out[len] = eol;
		out += len + 1;
		if (lengths)
			lengths[k++] = len;
	}
	if (lengths)
		*count = k;
	return out;
}

/* The lines sorted[0, n) counted by their indices (fingerprint_add_position), in one
 * vectorized loop. */
VERIFY_LOOP void indices_fingerprint_loop(struct fingerprint *print, const uint64_t *sorted, size_t n)
{
	fingerprint_add_keys64(print, sorted, n);
}
static VERIFY_CLONED_VOID(indices_fingerprint, (struct fingerprint *print, const uint64_t *sorted, size_t n),
			  (print, sorted, n))

/* The gathered encoded records in[0, len) decoded at out; returns their end there. */
static char *decode_gathered(const char *in, size_t len, char *out)
{
	struct csv_decoder decoder = {0}; /* each record starts the quotes' parity again */
	size_t decoded = csv_decode(&decoder, in, len, out);
	if (decoded != CSV_DECODE_UNCHANGED)
		return out + decoded;
	memcpy(out, in, len);
	return out + len;
}

/* parallel_for counts from 0: index i is chunk first + i of the round. */
static void gather_chunk(void *context, size_t index)
{
	struct emit_job *job = context;
	size_t chunk = job->first + index, begin, end;
	chunk_lines(job, chunk, &begin, &end);
	char *start = job->round + (job->offsets[chunk] - job->round_base), *out = start;
	bool checked = job->verify && job->to_output;
	char *piece = job->decode ? malloc(job->encoded[chunk] ? job->encoded[chunk] : 1) : NULL;
	if (job->decode && !piece) {
		offset_writes_fail(job->at, -ENOMEM);
		return;
	}
	if (!checked && !piece) {
		out = gather_lines(job, begin, end, out, NULL, NULL);
	} else {
		struct gathered_check check = {0};
		size_t lengths[CHECK_PIECE_LINES];
		uint64_t spent = 0;
		/* the chunk's first line comes after the line before it in the order */
		if (checked && begin > 0)
			check.previous = text_line(job->lines, job->sorted[begin - 1], &check.previous_len);
		for (size_t from = begin; from < end; from += CHECK_PIECE_LINES) {
			size_t to = end - from > CHECK_PIECE_LINES ? from + CHECK_PIECE_LINES : end, kept;
			char *gathered = piece ? piece : out;
			char *gathered_end = gather_lines(job, from, to, gathered, lengths, &kept);
			if (checked) {
				uint64_t started = sort_verify_clock();
				check_gathered(job, gathered, lengths, kept, &check);
				if (job->verify->by_position) /* every line of the order, kept or dropped */
					indices_fingerprint(&check.print, job->sorted + from, to - from);
				spent += sort_verify_clock() - started;
			}
			if (!piece) {
				out = gathered_end;
				continue;
			}
			out = decode_gathered(gathered, (size_t)(gathered_end - gathered), out);
			/* the piece's buffer is gathered over next: the last line put out, as read */
			size_t last = to - 1;
			while (kept && job->keep && !job->keep[last])
				last--;
			if (checked && kept)
				check.previous = text_line(job->lines, job->sorted[last], &check.previous_len);
		}
		if (checked) {
			/* a terminator out of place makes the output's lines others than those checked */
			sort_verify_output(job->verify, &check.print, check.disorder + (check.stray != 0));
			sort_verify_time(job->verify, sort_verify_clock() - spent);
		}
		free(piece);
	}
	offset_writes_put(job->at, (const unsigned char *)start, (size_t)(out - start), job->offsets[chunk]);
}

/* Rounds: consecutive chunks up to round_bytes (at least one chunk each); returns the
 * chunk after the round that starts at first. */
static size_t round_end(const struct emit_job *job, size_t first)
{
	size_t c = first + 1;
	while (c < job->chunks && job->offsets[c + 1] - job->offsets[first] <= job->round_bytes)
		c++;
	return c;
}

static bool next_round(void *context, unsigned char *block, struct emit_round *round)
{
	struct emit_job *job = context;
	size_t first = job->next, end, count = 0;
	if (first >= job->chunks)
		return false;
	job->next = end = round_end(job, first);
	job->round = (char *)block;
	job->round_base = job->offsets[first];
	job->first = first;
	for (size_t i = first; i < end; i++)
		count += job->kept[i];
	*round = (struct emit_round){end - first, job->offsets[end] - job->round_base, count};
	return true;
}

/* Measures every chunk, then gives each its offset; returns the largest round's bytes. */
static uint64_t plan_rounds(struct emit_job *job, struct thread_pool *pool)
{
	thread_pool_parallel_for(pool, job->chunks, measure_chunk, job);
	uint64_t total = 0, largest = 0;
	for (size_t c = 0; c < job->chunks; c++) {
		uint64_t bytes = job->offsets[c];
		job->offsets[c] = total;
		total += bytes;
	}
	job->offsets[job->chunks] = total;
	job->round_bytes = total / 4 < ROUND_BYTES_MIN ? ROUND_BYTES_MIN
			  : total / 4 > ROUND_BYTES_MAX ? ROUND_BYTES_MAX : total / 4;
	for (size_t first = 0, c; first < job->chunks; first = c) {
		c = round_end(job, first);
		if (job->offsets[c] - job->offsets[first] > largest)
			largest = job->offsets[c] - job->offsets[first];
	}
	return largest;
}

int text_lines_emit(const struct text_order *order, const struct text_lines *lines, const uint64_t *sorted,
		    size_t n, struct thread_pool *pool, struct sort_verify *verify, const struct emit_output *output)
{
	if (n == 0)
		return 0;
	size_t chunks = (n + EMIT_CHUNK_LINES - 1) / EMIT_CHUNK_LINES;
	struct emit_job job = {.order = order, .lines = lines, .sorted = sorted, .n = n,
			       .verify = verify && verify->enabled ? verify : NULL, .to_output = output->to_output,
			       .chunks = chunks, .decode = output->csv_decode};
	struct emit_rounds rounds = {.job = &job, .pool = pool, .next = next_round, .gather = gather_chunk};
	job.at = &rounds.at;
	job.offsets = malloc((chunks + 1) * sizeof *job.offsets);
	job.kept = malloc(chunks * sizeof *job.kept);
	if (job.decode)
		job.encoded = malloc(chunks * sizeof *job.encoded);
	if (order->unique)
		job.keep = huge_memory_alloc(n);
	int err = -ENOMEM;
	if (job.offsets && job.kept && (!order->unique || job.keep) && (!job.decode || job.encoded)) {
		rounds.block_bytes = plan_rounds(&job, pool);
		err = emit_rounds_run(&rounds, output);
	}
	huge_memory_free(job.keep);
	free(job.encoded);
	free(job.kept);
	free(job.offsets);
	return err;
}
