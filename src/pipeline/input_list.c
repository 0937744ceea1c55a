/* --files0-from: every name must be non-empty, and "-" cannot name stdin when the list
 * itself came from stdin. With no operands the input is stdin. The list is read as
 * NUL-terminated text lines. */
#include "input_list.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "../common/report.h"
#include "../text/text_lines.h"
#include "../../io/input_file.h"
#include "../../kernels/huge_memory.h"

static const char *const standard_input[] = { "-" };

int input_list_resolve(const struct input_spec *spec, int check, struct input_list *inputs)
{
	memset(inputs, 0, sizeof *inputs);
	if (!spec->files0_from) {
		inputs->names = spec->count ? spec->names : (const char **)standard_input;
		inputs->count = spec->count ? spec->count : 1;
		inputs->ranges = spec->count ? spec->ranges : NULL;
		return 0;
	}
	const char *list = spec->files0_from;
	struct input_file *file;
	int err = input_file_open(list, &file);
	if (err) {
		report_file_failure("open failed", list, err);
		return 2;
	}
	struct text_lines text;
	text_lines_init(&text, '\0');
	ssize_t got = text_lines_append(&text, file, SIZE_MAX, NULL);
	input_file_close(file);
	if (got < 0) {
		report_file_error(list, (int)got);
		text_lines_free(&text);
		return 2;
	}
	size_t count = 0;
	for (size_t i = 0; i < text.size; i++)
		count += text.data[i] == '\0';
	inputs->names = malloc((count ? count : 1) * sizeof *inputs->names);
	if (!inputs->names) {
		text_lines_free(&text);
		report("%s", strerror(ENOMEM));
		return 2;
	}
	inputs->storage = text.data;
	huge_memory_free(text.starts);
	bool from_stdin = strcmp(list, "-") == 0;
	const char *name = text.data;
	for (size_t i = 0; i < count; i++) {
		size_t len = strlen(name);
		if (len == 0) {
			report("%s:%zu: invalid zero-length file name", list, i + 1);
			input_list_free(inputs);
			return 2;
		}
		if (from_stdin && strcmp(name, "-") == 0) {
			report("when reading file names from stdin, no file name of '-' allowed");
			input_list_free(inputs);
			return 2;
		}
		inputs->names[i] = name;
		name += len + 1;
	}
	inputs->count = count;
	if (count == 0) {
		report("no input from '%s'", list);
		input_list_free(inputs);
		return 2;
	}
	if (check && count > 1) {
		report("extra operand '%s' not allowed with -%c", inputs->names[1], check);
		input_list_free(inputs);
		return 2;
	}
	return 0;
}

void input_list_free(struct input_list *inputs)
{
	if (inputs->storage)
		free(inputs->names);
	huge_memory_free(inputs->storage);
	memset(inputs, 0, sizeof *inputs);
}
