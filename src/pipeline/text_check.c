/* The check streams the input, keeping a copy of the previous line, and stops at the
 * first line that sorts before it (or equal to it under -u). */
#include "text_check.h"

#include <stdio.h>
#include "../common/report.h"
#include "../text/text_compare.h"
#include "../text/text_line_copy.h"
#include "../text/text_line_reader.h"
#include "../../io/input_file.h"

int text_check(const struct text_order *order, const char *name, int mode)
{
	struct input_file *file;
	int err = input_file_open(name, &file);
	if (err) {
		report_file_error(name, err);
		return 2;
	}
	struct text_line_reader reader;
	if ((err = text_line_reader_init(&reader, file, order->eol)) != 0) {
		input_file_close(file);
		report_file_error(name, err);
		return 2;
	}
	struct text_line_copy previous = {0};
	size_t number = 0;
	int status = 0;
	const char *line;
	size_t len;
	while ((err = text_line_reader_next(&reader, &line, &len)) == 1) {
		number++;
		if (number > 1) {
			int diff = text_compare_lines(order, previous.data, previous.len, line, len);
			if (diff > 0 || (order->unique && diff == 0)) {
				if (mode == 'c') {
					fprintf(stderr, "gpusort: %s:%zu: disorder: ", name, number);
					fwrite(line, 1, len, stderr);
					fputc(order->eol, stderr);
				}
				status = 1;
				break;
			}
		}
		if ((err = text_line_copy_set(&previous, line, len)) != 0)
			break;
	}
	if (err < 0) {
		report_file_error(name, err);
		status = 2;
	}
	text_line_copy_free(&previous);
	text_line_reader_close(&reader);
	return status;
}
