/* A loser tree over the sources' current lines (one comparison per level when the
 * winner moves on, half a heap's); ties go to the lower source number, which keeps the
 * merge stable and makes -u keep the earliest line. Each head carries its line's 64-bit
 * prefix (text_prefix), so most comparisons are one integer compare and a key is parsed
 * once per line rather than once per comparison. */
#include "text_merge.h"

#include <errno.h>
#include <stdlib.h>
#include "../text/text_compare.h"
#include "../text/text_line_reader.h"
#include "../text/text_prefix.h"
#include "../../io/input_file.h"

struct head {
	struct text_source *source;
	const char *line;
	size_t len;
	uint64_t prefix;
	bool ended;
};

/* Whether source a's line goes before source b's; an ended source goes last. */
static bool before(const struct text_order *order, const struct head *heads, size_t a, size_t b)
{
	const struct head *x = &heads[a], *y = &heads[b];
	if (x->ended || y->ended)
		return !x->ended && y->ended ? true : (x->ended && y->ended && a < b);
	if (x->prefix != y->prefix)
		return x->prefix < y->prefix;
	int diff = text_compare_lines(order, x->line, x->len, y->line, y->len);
	return diff < 0 || (diff == 0 && a < b);
}

static int advance(const struct text_order *order, struct head *head)
{
	int got = head->source->next(head->source->state, &head->line, &head->len);
	if (got == 1)
		head->prefix = text_prefix(order, head->line, head->len);
	else if (got == 0)
		head->ended = true;
	return got;
}

int text_merge_sources(const struct text_order *order, struct text_source *sources,
		       size_t count, struct text_writer *writer, size_t *failed)
{
	*failed = count;
	if (count == 0)
		return 0;
	struct head *heads = calloc(count, sizeof *heads);
	/* losers[1, count): the loser at each inner node; winners: scratch for building */
	size_t *losers = calloc(count, sizeof *losers);
	size_t *winners = calloc(2 * count, sizeof *winners);
	if (!heads || !losers || !winners) {
		free(heads);
		free(losers);
		free(winners);
		return -ENOMEM;
	}
	int err = 0;
	for (size_t i = 0; i < count && !err; i++) {
		heads[i].source = &sources[i];
		int got = advance(order, &heads[i]);
		if (got < 0) {
			err = got;
			*failed = i;
		}
	}
	/* Leaves are nodes count..2count-1; inner node n plays its children's winners. */
	for (size_t i = 0; i < count; i++)
		winners[count + i] = i;
	for (size_t n = count - 1; n >= 1; n--) {
		size_t a = winners[2 * n], b = winners[2 * n + 1];
		bool a_first = before(order, heads, a, b);
		winners[n] = a_first ? a : b;
		losers[n] = a_first ? b : a;
	}
	size_t winner = count == 1 ? 0 : winners[1];
	while (!err && !heads[winner].ended) {
		struct head *top = &heads[winner];
		err = text_writer_line(writer, top->line, top->len);
		if (err)
			break;
		int got = advance(order, top);
		if (got < 0) {
			err = got;
			*failed = winner;
			break;
		}
		for (size_t n = (winner + count) / 2; n >= 1; n /= 2) {
			if (before(order, heads, losers[n], winner)) {
				size_t swap = losers[n];
				losers[n] = winner;
				winner = swap;
			}
		}
	}
	free(heads);
	free(losers);
	free(winners);
	return err;
}

static int next_from_reader(void *state, const char **line, size_t *len)
{
	return text_line_reader_next(state, line, len);
}

int text_merge_files(const struct text_order *order, const char *const *names, size_t count,
		     struct text_writer *writer, const char **failed, struct sort_stats *stats)
{
	*failed = NULL;
	struct text_line_reader *readers = calloc(count ? count : 1, sizeof *readers);
	struct text_source *sources = calloc(count ? count : 1, sizeof *sources);
	size_t opened = 0;
	int err = (readers && sources) ? 0 : -ENOMEM;
	for (size_t i = 0; i < count && !err; i++) {
		struct input_file *file;
		err = input_file_open(names[i], &file);
		if (!err) {
			err = text_line_reader_init(&readers[i], file, order->eol);
			if (err)
				input_file_close(file);
			else
				opened++;
		}
		if (err)
			*failed = names[i];
		sources[i] = (struct text_source){ next_from_reader, &readers[i] };
	}
	if (!err) {
		size_t failed_index;
		err = text_merge_sources(order, sources, count, writer, &failed_index);
		if (err && failed_index < count)
			*failed = names[failed_index];
	}
	for (size_t i = 0; i < opened; i++) {
		if (stats) {
			stats->seconds[STAGE_READ] += readers[i].read_seconds;
			stats->bytes[STAGE_READ] += readers[i].bytes_read;
		}
		text_line_reader_close(&readers[i]);
	}
	free(readers);
	free(sources);
	return err;
}
