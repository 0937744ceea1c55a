/* A binary heap of the sources' current lines; ties go to the lower source number, which
 * keeps the merge stable and makes -u keep the earliest line. */
#include "text_merge.h"

#include <errno.h>
#include <stdlib.h>
#include "text_compare.h"
#include "text_line_reader.h"
#include "../io/input_file.h"

struct head {
	struct text_source *source;
	const char *line;
	size_t len;
	size_t number; /* the source's position, for ties */
};

static bool before(const struct text_order *order, const struct head *a, const struct head *b)
{
	int diff = text_compare_lines(order, a->line, a->len, b->line, b->len);
	return diff < 0 || (diff == 0 && a->number < b->number);
}

static void sift_down(const struct text_order *order, struct head **heap, size_t n, size_t i)
{
	for (;;) {
		size_t smallest = i, left = 2 * i + 1, right = left + 1;
		if (left < n && before(order, heap[left], heap[smallest]))
			smallest = left;
		if (right < n && before(order, heap[right], heap[smallest]))
			smallest = right;
		if (smallest == i)
			return;
		struct head *swap = heap[i];
		heap[i] = heap[smallest];
		heap[smallest] = swap;
		i = smallest;
	}
}

int text_merge_sources(const struct text_order *order, struct text_source *sources,
		       size_t count, struct text_writer *writer, size_t *failed)
{
	*failed = count;
	struct head *heads = calloc(count ? count : 1, sizeof *heads);
	struct head **heap = calloc(count ? count : 1, sizeof *heap);
	if (!heads || !heap) {
		free(heads);
		free(heap);
		return -ENOMEM;
	}
	size_t live = 0;
	int err = 0;
	for (size_t i = 0; i < count && !err; i++) {
		heads[i] = (struct head){ &sources[i], NULL, 0, i };
		int got = sources[i].next(sources[i].state, &heads[i].line, &heads[i].len);
		if (got < 0) {
			err = got;
			*failed = i;
		} else if (got == 1) {
			heap[live++] = &heads[i];
		}
	}
	for (size_t i = live / 2; i-- > 0 && !err;)
		sift_down(order, heap, live, i);
	while (live && !err) {
		struct head *top = heap[0];
		err = text_writer_line(writer, top->line, top->len);
		if (err)
			break;
		int got = top->source->next(top->source->state, &top->line, &top->len);
		if (got < 0) {
			err = got;
			*failed = top->number;
			break;
		}
		if (got == 0)
			heap[0] = heap[--live];
		sift_down(order, heap, live, 0);
	}
	free(heads);
	free(heap);
	return err;
}

static int next_from_reader(void *state, const char **line, size_t *len)
{
	return text_line_reader_next(state, line, len);
}

int text_merge_files(const struct text_order *order, const char *const *names, size_t count,
		     struct text_writer *writer, const char **failed)
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
	for (size_t i = 0; i < opened; i++)
		text_line_reader_close(&readers[i]);
	free(readers);
	free(sources);
	return err;
}
