/* SPDX-License-Identifier: MIT */
/* --files0-from: every name must be non-empty and none may be "-", as GNU sort 9.1
 * refuses them, in its words. With no operands the input is stdin. The list is read as
 * NUL-terminated text lines. */
#include "input_list.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "../common/report.h"
#include "../text/text_lines.h"
#include "../../io/input_file.h"
#include "../../kernels/huge_memory.h"

static const char *const standard_input[] = { "-" };
/* Room for a quoted name: a byte may take four ("\\ooo"), and the quotes. */
#define QUOTED_SIZE (4 * PATH_MAX + 64)

/* "cannot read file names from 'LIST'", GNU's words for a list that opened but could
 * not be read (a directory, a closed or unreadable standard input), without a reason. */
static int report_unreadable_list(const char *list)
{
	char quoted[QUOTED_SIZE];
	report("cannot read file names from %s", report_shell_quote(list, true, quoted, sizeof quoted));
	return 2;
}

/* The names of the list, as GNU sort 9.1 checks them, in order: none is "-" (which
 * GNU refuses whether or not the list came from stdin) and none is empty. */
static int check_names(const char *list, const char *const *names, size_t count)
{
	char quoted[QUOTED_SIZE];
	for (size_t i = 0; i < count; i++) {
		if (strcmp(names[i], "-") == 0) {
			report("when reading file names from stdin, no file name of %s allowed",
			       report_shell_quote(names[i], true, quoted, sizeof quoted));
			return 2;
		}
		if (names[i][0] == '\0') {
			report("%s:%zu: invalid zero-length file name", report_shell_quote(list, false, quoted, sizeof quoted),
			       i + 1);
			return 2;
		}
	}
	return 0;
}

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
	bool from_stdin = strcmp(list, "-") == 0;
	struct input_file *file;
	int err = input_file_open(list, &file);
	/* open(2) opens a directory; GNU's fopen does too, and its read is what fails */
	if (err && (from_stdin || err == -EISDIR))
		return report_unreadable_list(list);
	if (err) {
		report_file_failure("open failed", list, err);
		return 2;
	}
	struct text_lines text;
	text_lines_init(&text, '\0');
	ssize_t got = text_lines_append(&text, file, SIZE_MAX, NULL, NULL);
	input_file_close(file);
	if (got < 0) {
		text_lines_free(&text);
		return report_unreadable_list(list);
	}
	size_t count = 0;
	for (size_t i = 0; i < text.size; i++)
		count += text.data[i] == '\0';
	inputs->names = malloc((count ? count : 1) * sizeof *inputs->names);
	if (!inputs->names) {
		text_lines_free(&text);
		report_errno(-ENOMEM);
		return 2;
	}
	inputs->storage = text.data;
	huge_memory_free(text.starts);
	const char *name = text.data;
	for (size_t i = 0; i < count; i++) {
		inputs->names[i] = name;
		name += strlen(name) + 1;
	}
	inputs->count = count;
	char quoted[QUOTED_SIZE];
	int status = 0;
	if (count == 0) {
		report("no input from %s", report_shell_quote(list, true, quoted, sizeof quoted));
		status = 2;
	}
	if (!status)
		status = check_names(list, inputs->names, count);
	if (!status && check && count > 1) {
		report("extra operand %s not allowed with -%c",
		       report_shell_quote(inputs->names[1], true, quoted, sizeof quoted), check);
		status = 2;
	}
	if (status)
		input_list_free(inputs);
	return status;
}

void input_list_free(struct input_list *inputs)
{
	if (inputs->storage)
		free(inputs->names);
	huge_memory_free(inputs->storage);
	memset(inputs, 0, sizeof *inputs);
}
