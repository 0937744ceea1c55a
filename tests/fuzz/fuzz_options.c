/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the command line: the input, split at NUL bytes, is an argv
 * after "gpusort". The command line's parse (command_line.h: the command's argv into a
 * job, the job into the pipeline's options) must not crash or leak, must give the same answer
 * twice, and every option set it accepts must be self-consistent (binary layout inside
 * the record, text keys that reparse to themselves, pointers into argv, the combined
 * text order). Each argument also goes through keydef_parse and size_parse against
 * their own rules. Run: tests/fuzz/fuzz_options CORPUS_DIR */
#include "config.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/settings/keydef.h"
#include "src/pipeline/sort_job.h"
#include "tests/fuzz/command_line.h"
#include "src/common/size_parse.h"
#include "src/text/text_order.h"

#define MAX_ARGS 48

#include "tests/fuzz/quiet_harness.h"

static bool inside_argv(const char *p, char **argv, int argc)
{
	for (int i = 0; i < argc; i++)
		if (p >= argv[i] && p <= argv[i] + strlen(argv[i]))
			return true;
	return false;
}

static bool same_ordering(const struct key_ordering *a, const struct key_ordering *b)
{
	return a->skip_start_blanks == b->skip_start_blanks
	    && a->skip_end_blanks == b->skip_end_blanks && a->dictionary == b->dictionary
	    && a->fold_case == b->fold_case && a->general_numeric == b->general_numeric
	    && a->human_numeric == b->human_numeric
	    && a->ignore_nonprinting == b->ignore_nonprinting && a->month == b->month
	    && a->numeric == b->numeric && a->random == b->random && a->reverse == b->reverse
	    && a->version == b->version;
}

static bool same_key(const struct keydef *a, const struct keydef *b)
{
	return a->start_field == b->start_field && a->start_char == b->start_char
	    && a->end_field == b->end_field && a->end_char == b->end_char
	    && a->has_ordering == b->has_ordering && same_ordering(&a->ordering, &b->ordering);
}

/* The canonical KEYDEF text of a parsed key: parsing it again gives the same key. */
static void format_key(const struct keydef *key, char *text, size_t size)
{
	const struct key_ordering *o = &key->ordering;
	int n = snprintf(text, size, "%zu.%zu%s%s%s%s%s%s%s%s%s%s%s", key->start_field,
			 key->start_char, o->skip_start_blanks ? "b" : "", o->dictionary ? "d" : "",
			 o->fold_case ? "f" : "", o->general_numeric ? "g" : "",
			 o->human_numeric ? "h" : "", o->ignore_nonprinting ? "i" : "",
			 o->month ? "M" : "", o->numeric ? "n" : "", o->random ? "R" : "",
			 o->reverse ? "r" : "", o->version ? "V" : "");
	if (key->end_field)
		snprintf(text + n, size - (size_t)n, ",%zu.%zu%s", key->end_field, key->end_char,
			 o->skip_end_blanks ? "b" : "");
}

static void check_key(const struct keydef *key)
{
	require(key->start_field >= 1 && key->start_char >= 1);
	require(key->end_field != 0 || key->end_char == 0);
	require(key->has_ordering == key_ordering_any(&key->ordering));
	char text[160];
	struct keydef again;
	const char *reason = NULL;
	format_key(key, text, sizeof text);
	require(keydef_parse(text, &again, &reason) == 0);
	require(same_key(key, &again));
}

/* keydef_parse and keydef_error_message are one parser: they agree on every text. */
static void check_keydef_text(const char *text)
{
	struct keydef key;
	const char *reason = NULL;
	char message[512];
	int error = keydef_parse(text, &key, &reason);
	keydef_error_message(text, message, sizeof message);
	if (error == 0) {
		require(strcmp(message, "no error") == 0);
		check_key(&key);
	} else {
		require(error == -EINVAL && reason && strstr(message, reason) == message);
	}
}

/* size_parse against its documented grammar (size_parse.h): blanks and a '+' may lead
 * the digits; then nothing (KiB), b, %, or one of K M G T P E Z Y (k m g t too); a
 * suffix letter alone, as the whole text, means one of it. */
static void check_size_text(const char *text)
{
	static const char powers[] = "KMGTPEZY";
	size_t bytes = 0;
	int error = size_parse(text, 1024, &bytes);
	const char *p = text + strspn(text, " \t\n\v\f\r");
	if (*p == '+')
		p++;
	size_t digits = strspn(p, "0123456789");
	const char *suffix = p + digits;
	char letter = strchr("kmgt", suffix[0]) && suffix[0] ? (char)(suffix[0] - 32) : suffix[0];
	bool power_letter = letter && strchr(powers, letter);
	bool grammar = digits > 0 ? suffix[0] == '\0' || (suffix[1] == '\0' && (power_letter || suffix[0] == 'b' || suffix[0] == '%'))
				  : suffix == text && power_letter && suffix[1] == '\0';
	/* the number, in 128 bits: past 64 bits it overflows whatever follows */
	unsigned __int128 value = digits ? 0 : 1;
	bool overflow = false;
	for (size_t i = 0; i < digits; i++) {
		value = value * 10 + (unsigned)(p[i] - '0');
		if (value > (unsigned __int128)UINT64_MAX) {
			overflow = true;
			break;
		}
	}
	if (!grammar) {
		/* no number, or a bad suffix; a number too big may be reported first */
		require(error == -EINVAL || error == -EILSEQ || (error == -ERANGE && overflow));
		return;
	}
	if (overflow && (suffix[0] == 'b' || suffix[0] == '%')) {
		/* b and % are sort's own suffixes: past 64 bits they are invalid, as in GNU */
		require(error == -EILSEQ);
		return;
	}
	if (suffix[0] == '%') {
		/* % of physical memory */
		require(error == 0 || error == -ERANGE);
		if (error == 0)
			require(value > 100 || bytes <= physical_memory_bytes());
		return;
	}
	unsigned power = suffix[0] == 'b' ? 0 : suffix[0] == '\0' ? 1 : (unsigned)(strchr(powers, letter) - powers) + 1;
	for (unsigned i = 0; i < power && !overflow; i++) {
		value *= 1024;
		overflow = value > (unsigned __int128)SIZE_MAX;
	}
	if (value > (unsigned __int128)SIZE_MAX)
		overflow = true;
	if (overflow) {
		require(error == -ERANGE);
	} else {
		require(error == 0);
		require(bytes == (size_t)value);
	}
}

static void check_accepted(const struct sort_job *o, char **argv, int argc)
{
	require(o->mode == MODE_TEXT || o->mode == MODE_BINARY);
	if (o->mode == MODE_BINARY) {
		require(o->text.count == 0);
		require(!key_ordering_any(&o->text.global_ordering));
		require(o->text.field_separator == -1 && !o->text.zero_terminated);
		require(o->binary.record_size >= 1 && o->binary.field_count >= 1 && o->binary.fields);
		/* every field of the key lies in the record and has its type's size */
		for (size_t i = 0; i < o->binary.field_count; i++) {
			const struct key_field *field = &o->binary.fields[i];
			require(field->size >= 1);
			require(field->offset <= o->binary.record_size && field->size <= o->binary.record_size - field->offset);
			if (field->type != KEY_BYTES)
				require(field->size == key_type_size(field->type));
		}
	} else {
		require(o->binary.record_size == 0 && o->binary.field_count == 0);
		require(o->text.field_separator >= -1 && o->text.field_separator <= 255);
		for (size_t i = 0; i < o->text.count; i++)
			check_key(&o->text.keys[i]);
		/* The effective order: built, or refused for clashing letters only. */
		struct text_order order;
		char letters[32] = "";
		int error = text_order_init(&order, &o->text, o->unique, o->debug, letters, sizeof letters);
		if (error == 0) {
			require(order.key_count >= o->text.count && order.key_count <= o->text.count + 1);
			for (size_t i = 0; i < order.key_count; i++) {
				char again[32];
				require(!key_ordering_conflict(&order.keys[i].ordering, again, sizeof again));
				require(order.keys[i].start_field >= 1 && order.keys[i].start_char >= 1);
			}
			require(order.separator == o->text.field_separator);
			require(order.eol == (o->text.zero_terminated ? '\0' : '\n'));
			text_order_free(&order);
		} else {
			require(error == -EINVAL && letters[0] && strlen(letters) >= 2);
		}
	}
	require(o->check == 0 || o->check == 'c' || o->check == 'C');
	if (o->check)
		require(o->inputs.count <= 1 && !o->output.name);
	if (o->inputs.files0_from)
		require(o->inputs.count == 0 && inside_argv(o->inputs.files0_from, argv, argc));
	require(o->engine.threads <= 4096);
	require(o->engine.device == SORT_DEVICE_AUTO || o->engine.device == SORT_DEVICE_CPU
		|| (o->engine.device >= 0 && o->engine.device < 1024));
	require(strcmp(sort_algorithm_name(o->engine.algorithm), "unknown") != 0);
	require(o->inputs.count == 0 || o->inputs.names);
	for (size_t i = 0; i < o->inputs.count; i++)
		require(inside_argv(o->inputs.names[i], argv, argc));
	for (size_t i = 0; i < o->runs.temp_dir_count; i++)
		require(inside_argv(o->runs.temp_dirs[i], argv, argc));
	if (o->output.name)
		require(inside_argv(o->output.name, argv, argc));
}

/* Two parses of one argv give the same options. */
static void check_same(const struct sort_job *a, const struct sort_job *b)
{
	require(a->mode == b->mode && a->binary.record_size == b->binary.record_size);
	require(a->binary.field_count == b->binary.field_count);
	for (size_t i = 0; i < a->binary.field_count; i++)
		require(a->binary.fields[i].type == b->binary.fields[i].type && a->binary.fields[i].offset == b->binary.fields[i].offset
			&& a->binary.fields[i].size == b->binary.fields[i].size
			&& a->binary.fields[i].descending == b->binary.fields[i].descending);
	require(a->text.count == b->text.count);
	for (size_t i = 0; i < a->text.count; i++)
		require(same_key(&a->text.keys[i], &b->text.keys[i]));
	require(same_ordering(&a->text.global_ordering, &b->text.global_ordering));
	require(a->text.field_separator == b->text.field_separator && a->text.zero_terminated == b->text.zero_terminated
		&& a->text.stable == b->text.stable && a->text.reverse == b->text.reverse && a->unique == b->unique
		&& a->check == b->check && a->merge_only == b->merge_only);
	require(a->inputs.files0_from == b->inputs.files0_from && a->output.name == b->output.name);
	require(a->memory.budget == b->memory.budget);
	require(a->engine.device == b->engine.device && a->engine.threads == b->engine.threads
		&& a->engine.gpu_memory == b->engine.gpu_memory
		&& a->engine.algorithm == b->engine.algorithm);
	require(a->inputs.count == b->inputs.count && a->runs.temp_dir_count == b->runs.temp_dir_count);
	for (size_t i = 0; i < a->inputs.count; i++)
		require(a->inputs.names[i] == b->inputs.names[i]);
	for (size_t i = 0; i < a->runs.temp_dir_count; i++)
		require(a->runs.temp_dirs[i] == b->runs.temp_dirs[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* argv: "gpusort", then the input's NUL-separated pieces, each in its own
	 * allocation so that reading past one is caught. */
	char *argv[MAX_ARGS + 2];
	int argc = 0;
	argv[argc++] = strdup("gpusort");
	size_t start = 0;
	while (start <= size && argc <= MAX_ARGS) {
		const uint8_t *nul = memchr(data + start, '\0', size - start);
		size_t len = nul ? (size_t)(nul - (data + start)) : size - start;
		char *arg = malloc(len + 1);
		memcpy(arg, data + start, len);
		arg[len] = '\0';
		argv[argc++] = arg;
		start += len + 1;
	}
	argv[argc] = NULL;
	/* getopt may permute argv; both parses must see the same vector. */
	char *original[MAX_ARGS + 2];
	memcpy(original, argv, sizeof original);

	for (int i = 1; i < argc; i++) {
		check_keydef_text(argv[i]);
		check_size_text(argv[i]);
	}

	struct parsed_command_line first, second;
	int status = parse_command_line(argc, argv, &first);
	require(status == 0 || status == 1 || status == 2);
	if (status == 0)
		check_accepted(&first.built.sort_job, original, argc);
	char *permuted[MAX_ARGS + 2];
	memcpy(permuted, argv, sizeof permuted);
	memcpy(argv, original, sizeof original);
	int again = parse_command_line(argc, argv, &second);
	require(again == status);
	if (status == 0) {
		check_same(&first.built.sort_job, &second.built.sort_job);
		/* getopt_long only permutes: the same strings, in some order */
		for (int i = 0; i < argc; i++)
			require(inside_argv(permuted[i], original, argc));
	}
	parsed_command_line_free(&first);
	parsed_command_line_free(&second);
	for (int i = 0; i < argc; i++)
		free(original[i]);
	return 0;
}
