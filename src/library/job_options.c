/* SPDX-License-Identifier: MIT */
/* A struct gpusort_job checked and turned into the pipeline's struct sort_job (see
 * job_options.h). The consistency checks and their words are the command's usage
 * errors, in the order the command has always made them, so that the command, which
 * only fills a job, says exactly what it said when it built its option set itself. */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "job_options.h"
#include "../settings/keydef.h"
#include "../common/environment.h"
#include "../../io/temp_files.h"
#include "../common/report.h"

/* The size of the first published struct gpusort_job: every caller's is at least this. */
#define JOB_OLDEST_SIZE (offsetof(struct gpusort_job, verbose) + sizeof(int))

int job_struct_copy(void *ours, size_t our_size, size_t oldest_size, const void *callers)
{
	if (!callers)
		return GPUSORT_ERROR_INVALID_ARGUMENT;
	size_t size;
	memcpy(&size, callers, sizeof size); /* every such struct starts with its size */
	if (size < oldest_size)
		return GPUSORT_ERROR_STRUCT_SIZE;
	/* A newer header's fields we do not have: harmless only while they are unset. */
	for (size_t i = our_size; i < size; i++)
		if (((const unsigned char *)callers)[i] != 0)
			return GPUSORT_ERROR_STRUCT_SIZE;
	memcpy(ours, callers, size < our_size ? size : our_size);
	memcpy(ours, &our_size, sizeof our_size);
	return GPUSORT_OK;
}

int gpusort_job_init(struct gpusort_job *job, size_t job_size)
{
	if (!job)
		return GPUSORT_ERROR_INVALID_ARGUMENT;
	if (job_size < JOB_OLDEST_SIZE)
		return GPUSORT_ERROR_STRUCT_SIZE;
	/* Fields of a newer header than ours are zero: their defaults, by that rule. */
	memset(job, 0, job_size);
	struct gpusort_job defaults = {
		.size = job_size,
		.mode = GPUSORT_MODE_TEXT,
		.output_fd = 1,
		.separator = GPUSORT_SEPARATOR_BLANKS,
		.key = {.type = GPUSORT_KEY_U32},
		.check = GPUSORT_CHECK_NONE,
		.device = GPUSORT_DEVICE_AUTO,
		.algorithm = GPUSORT_ALGORITHM_BUCKET,
		.verify = 1,
	};
	memcpy(job, &defaults, job_size < sizeof defaults ? job_size : sizeof defaults);
	return GPUSORT_OK;
}

static int invalid(const char *what)
{
	report("invalid job: %s", what);
	return GPUSORT_ERROR_INVALID_ARGUMENT;
}

static int usage(const char *format, const char *argument)
{
	char message[512];
	snprintf(message, sizeof message, format, argument);
	report("%s", message);
	return GPUSORT_ERROR_USAGE;
}

static const unsigned known_ordering = GPUSORT_ORDER_IGNORE_LEADING_BLANKS | GPUSORT_ORDER_DICTIONARY
	| GPUSORT_ORDER_IGNORE_CASE | GPUSORT_ORDER_GENERAL_NUMERIC | GPUSORT_ORDER_HUMAN_NUMERIC
	| GPUSORT_ORDER_IGNORE_NONPRINTING | GPUSORT_ORDER_MONTH | GPUSORT_ORDER_NUMERIC
	| GPUSORT_ORDER_VERSION | GPUSORT_ORDER_RANDOM;

/* The ordering bits as option letters, in the order GNU's usage lists them. */
static const struct {
	unsigned bit;
	char letter;
} ordering_letters[] = {
	{GPUSORT_ORDER_IGNORE_LEADING_BLANKS, 'b'}, {GPUSORT_ORDER_DICTIONARY, 'd'},
	{GPUSORT_ORDER_IGNORE_CASE, 'f'}, {GPUSORT_ORDER_GENERAL_NUMERIC, 'g'},
	{GPUSORT_ORDER_HUMAN_NUMERIC, 'h'}, {GPUSORT_ORDER_IGNORE_NONPRINTING, 'i'},
	{GPUSORT_ORDER_MONTH, 'M'}, {GPUSORT_ORDER_NUMERIC, 'n'}, {GPUSORT_ORDER_RANDOM, 'R'},
	{GPUSORT_ORDER_VERSION, 'V'},
};

static bool binary_key_reserved_clear(const struct gpusort_binary_key *key)
{
	for (size_t i = 0; i < sizeof key->reserved / sizeof key->reserved[0]; i++)
		if (key->reserved[i])
			return false;
	return true;
}

/* What cannot be a job at all, whatever the other settings. */
static int check_form(const struct gpusort_job *job)
{
	if (job->mode != GPUSORT_MODE_TEXT && job->mode != GPUSORT_MODE_BINARY)
		return invalid("unknown mode");
	if (job->input_count && !job->inputs)
		return invalid("input_count without inputs");
	for (size_t i = 0; i < job->input_count; i++)
		if (!job->inputs[i].name && job->inputs[i].fd < 0)
			return invalid("an input with neither a name nor a descriptor");
	if (!job->output && job->output_fd < 0)
		return invalid("no output name and a negative output_fd");
	if (job->key_count && !job->keys)
		return invalid("key_count without keys");
	for (size_t i = 0; i < job->key_count; i++)
		if (!job->keys[i])
			return invalid("a NULL text key");
	if (job->ordering & ~known_ordering)
		return invalid("unknown ordering bits");
	if (job->separator < GPUSORT_SEPARATOR_BLANKS || job->separator > 255)
		return invalid("separator is neither a byte nor GPUSORT_SEPARATOR_BLANKS");
	if ((unsigned)job->key.type > GPUSORT_KEY_BYTES)
		return invalid("unknown key type");
	if (!binary_key_reserved_clear(&job->key))
		return invalid("reserved fields of the key are not zero");
	if (job->key_field_count && !job->key_fields)
		return invalid("key_field_count without key_fields");
	for (size_t i = 0; i < job->key_field_count; i++) {
		if ((unsigned)job->key_fields[i].type > GPUSORT_KEY_BYTES)
			return invalid("unknown key type of a key field");
		if (!binary_key_reserved_clear(&job->key_fields[i]))
			return invalid("reserved fields of a key field are not zero");
	}
	if (job->check != GPUSORT_CHECK_NONE && job->check != GPUSORT_CHECK_DIAGNOSE &&
	    job->check != GPUSORT_CHECK_QUIET)
		return invalid("unknown check mode");
	if (job->temp_dir_count && !job->temp_dirs)
		return invalid("temp_dir_count without temp_dirs");
	for (size_t i = 0; i < job->temp_dir_count; i++)
		if (!job->temp_dirs[i])
			return invalid("a NULL temporary directory");
	if (job->device < GPUSORT_DEVICE_CPU)
		return invalid("unknown device");
	if ((unsigned)job->algorithm > GPUSORT_ALGORITHM_QUICK)
		return invalid("unknown algorithm");
	if (job->batch_size == 1)
		return invalid("a batch_size of 1 (a merge takes at least 2 inputs)");
	return GPUSORT_OK;
}

static const enum key_type key_types[] = {KEY_U32, KEY_I32, KEY_U64, KEY_I64, KEY_F32, KEY_F64, KEY_BYTES};

/* The options that refuse text settings in a binary job, in the command's words. */
static int refuse_text_settings(const struct gpusort_job *job)
{
	if (job->key_count)
		return usage("%s", "text keys (-k KEYDEF) cannot be combined with binary record options");
	char option[3] = {'-', 0, 0};
	for (size_t i = 0; i < sizeof ordering_letters / sizeof ordering_letters[0] && !option[1]; i++)
		if (job->ordering & ordering_letters[i].bit)
			option[1] = ordering_letters[i].letter;
	if (!option[1] && job->separator != GPUSORT_SEPARATOR_BLANKS)
		option[1] = 't';
	if (!option[1] && job->zero_terminated)
		option[1] = 'z';
	if (option[1])
		return usage("option '%s' applies to text lines, not binary records", option);
	if (job->debug)
		return usage("option '%s' applies to text lines, not binary records", "--debug");
	if (job->header_lines)
		return usage("option '%s' applies to text lines, not binary records", "--header");
	if (job->csv)
		return usage("option '%s' applies to text lines, not binary records", "--csv");
	return GPUSORT_OK;
}

/* The one key of --type, --key-offset and --key-size, with the command's defaults and
 * its words for what does not fit together (once options.c's finish_binary). */
static int build_single_key(const struct gpusort_job *job, struct sort_job *options, struct key_field *key)
{
	/* One direction switch for the one key: reverse, as -r. */
	if (job->key.descending)
		return usage("%s", "the key's direction is the job's reverse: key.descending must be 0");
	key->type = key_types[job->key.type];
	key->offset = job->key.offset;
	key->size = job->key.size;
	options->binary.record_size = job->record_size;
	size_t type_size = key_type_size(key->type);
	if (key->type == KEY_BYTES) {
		if (!job->key.size) {
			if (!job->record_size)
				return usage("%s", "--type=bytes needs --key-size or --record-size");
			if (key->offset >= options->binary.record_size)
				return usage("%s", "the key offset is not inside the record");
			key->size = options->binary.record_size - key->offset;
		}
	} else {
		if (job->key.size && key->size != type_size) {
			char message[128];
			snprintf(message, sizeof message, "--key-size=%zu does not match --type=%s (%zu bytes)",
				 key->size, key_type_name(key->type), type_size);
			return usage("%s", message);
		}
		key->size = type_size;
	}
	if (!job->record_size) {
		if (key->offset > SIZE_MAX - key->size)
			return usage("%s", "the key offset is too large");
		options->binary.record_size = key->offset + key->size;
	}
	if (key->offset > options->binary.record_size || key->size > options->binary.record_size - key->offset) {
		char message[160];
		snprintf(message, sizeof message, "the key (offset %zu, size %zu) extends beyond the record (size %zu)",
			 key->offset, key->size, options->binary.record_size);
		return usage("%s", message);
	}
	/* The option that made records this big, for "records of N bytes do not fit". */
	if (job->record_size)
		options->binary.record_size_option = "--record-size";
	else if (key->offset > key->size)
		options->binary.record_size_option = "--key-offset";
	else
		options->binary.record_size_option = job->key.size ? "--key-size" : "--type";
	key->descending = job->reverse != 0;
	return GPUSORT_OK;
}

/* A key field as the command's --key-field spells it: TYPE:OFFSET[:SIZE][:desc]. */
static void key_field_spec(const struct gpusort_binary_key *field, char *spec, size_t size)
{
	static const char *const names[] = {"u32", "i32", "u64", "i64", "f32", "f64", "bytes"};
	int n = snprintf(spec, size, "%s:%zu", names[field->type], field->offset);
	if (field->size && n >= 0 && (size_t)n < size)
		n += snprintf(spec + n, size - (size_t)n, ":%zu", field->size);
	if (field->descending && n >= 0 && (size_t)n < size)
		snprintf(spec + n, size - (size_t)n, ":desc");
}

static int invalid_field(const struct gpusort_binary_key *field, const char *reason)
{
	char spec[96], message[320];
	key_field_spec(field, spec, sizeof spec);
	snprintf(message, sizeof message, "invalid key field specification '%s': %s", spec, reason);
	return usage("%s", message);
}

/* One field of a composite key in records of record_size bytes, -r (reverse) applied. */
static int build_key_field(const struct gpusort_binary_key *given, size_t record_size, bool reverse,
			   struct key_field *field)
{
	char reason[160];
	*field = (struct key_field){.type = key_types[given->type], .offset = given->offset, .size = given->size};
	size_t type_size = key_type_size(field->type);
	if (field->type != KEY_BYTES && given->size && given->size != type_size) {
		snprintf(reason, sizeof reason, "size %zu does not match %s (%zu bytes)", given->size,
			 key_type_name(field->type), type_size);
		return invalid_field(given, reason);
	}
	if (field->offset >= record_size) {
		snprintf(reason, sizeof reason, "offset %zu is not inside the record (--record-size=%zu)",
			 field->offset, record_size);
		return invalid_field(given, reason);
	}
	if (field->type != KEY_BYTES)
		field->size = type_size;
	else if (!field->size)
		field->size = record_size - field->offset;
	if (field->size > record_size) {
		snprintf(reason, sizeof reason, "size %zu is larger than the record (--record-size=%zu)",
			 field->size, record_size);
		return invalid_field(given, reason);
	}
	if (field->size > record_size - field->offset) {
		snprintf(reason, sizeof reason, "the field (bytes %zu to %zu) extends beyond the record (--record-size=%zu)",
			 field->offset, field->offset + field->size - 1, record_size);
		return invalid_field(given, reason);
	}
	/* -r reverses the whole order: every field's direction */
	field->descending = (given->descending != 0) != reverse;
	return GPUSORT_OK;
}

/* A composite key (--key-field): it needs the record size, and is the key, so the
 * single key's options must keep their defaults. */
static int build_key_fields(const struct gpusort_job *job, struct sort_job *options)
{
	if (job->key.type != GPUSORT_KEY_U32 || job->key.offset || job->key.size || job->key.descending)
		return usage("%s", "--key-field cannot be combined with --type, --key-offset or --key-size");
	if (!job->record_size)
		return usage("%s", "--key-field needs --record-size");
	options->binary.record_size = job->record_size;
	options->binary.record_size_option = "--record-size";
	for (size_t i = 0; i < job->key_field_count; i++) {
		int code = build_key_field(&job->key_fields[i], options->binary.record_size, job->reverse != 0,
					   &options->binary.fields[i]);
		if (code != GPUSORT_OK)
			return code;
	}
	return GPUSORT_OK;
}

/* The binary layout from the key, or key fields, and the record size. */
static int build_binary(const struct gpusort_job *job, struct sort_job *options)
{
	int code = refuse_text_settings(job);
	if (code != GPUSORT_OK)
		return code;
	size_t count = job->key_field_count ? job->key_field_count : 1;
	options->binary.fields = calloc(count, sizeof *options->binary.fields);
	if (!options->binary.fields)
		return usage("%s", strerror(ENOMEM));
	options->binary.field_count = count;
	if (job->key_field_count)
		return build_key_fields(job, options);
	return build_single_key(job, options, &options->binary.fields[0]);
}

static int build_text(const struct gpusort_job *job, struct sort_job *options)
{
	if (job->record_size || job->key.offset || job->key.size || job->key.descending ||
	    job->key.type != GPUSORT_KEY_U32 || job->key_field_count)
		return usage("%s", "record size and binary key settings need a binary job (GPUSORT_MODE_BINARY)");
	for (size_t i = 0; i < sizeof ordering_letters / sizeof ordering_letters[0]; i++)
		if (job->ordering & ordering_letters[i].bit)
			key_ordering_set(&options->text.global_ordering, ordering_letters[i].letter, false);
	if (job->key_count) {
		options->text.keys = calloc(job->key_count, sizeof *options->text.keys);
		if (!options->text.keys)
			return usage("%s", strerror(ENOMEM));
	}
	for (size_t i = 0; i < job->key_count; i++) {
		const char *reason;
		if (keydef_parse(job->keys[i], &options->text.keys[i], &reason) != 0) {
			char message[512];
			keydef_error_message(job->keys[i], message, sizeof message);
			report("%s", message);
			return GPUSORT_ERROR_KEYDEF;
		}
		options->text.count++;
	}
	options->text.field_separator = job->separator;
	options->text.zero_terminated = job->zero_terminated != 0;
	options->text.stable = job->stable != 0;
	options->random_source = job->random_source;
	options->debug = job->debug != 0;
	options->header_lines = job->header_lines;
	for (size_t i = 0; i < options->text.count; i++)
		if (keydef_named(&options->text.keys[i]) && (!job->csv || !job->header_lines))
			return usage("%s", "a column name in a key ([NAME]) needs --csv and --header");
	if (job->csv) {
		if (job->zero_terminated || job->debug)
			return usage("options '%s' are incompatible", job->debug ? "--csv --debug" : "--csv -z");
		if (job->separator == '"' || job->separator == '\r' || job->separator == '\n')
			return usage("%s", "the separator of --csv cannot be a double quote, CR or LF");
		if (job->csv != GPUSORT_CSV_STRICT && job->csv != GPUSORT_CSV_LENIENT)
			return usage("%s", "csv is GPUSORT_CSV_STRICT or GPUSORT_CSV_LENIENT");
		options->text.csv = true;
		options->text.csv_lenient = job->csv == GPUSORT_CSV_LENIENT;
		if (options->text.field_separator == GPUSORT_SEPARATOR_BLANKS)
			options->text.field_separator = ',';
	}
	return GPUSORT_OK;
}

/* Inputs as the pipeline names them: descriptors as /dev/fd/N ("-" for 0). */
static int build_inputs(const struct gpusort_job *job, struct job_options *built)
{
	struct sort_job *options = &built->sort_job;
	if (!job->input_count)
		return GPUSORT_OK;
	options->inputs.names = calloc(job->input_count, sizeof *options->inputs.names);
	built->names = calloc(job->input_count, sizeof "/dev/fd/" + 3 * sizeof(int));
	if (!options->inputs.names || !built->names)
		return usage("%s", strerror(ENOMEM));
	for (size_t i = 0; i < job->input_count; i++) {
		const struct gpusort_input *input = &job->inputs[i];
		if (input->name) {
			options->inputs.names[i] = input->name;
		} else if (input->fd == 0) {
			options->inputs.names[i] = "-";
		} else {
			char *name = built->names + i * (sizeof "/dev/fd/" + 3 * sizeof(int));
			sprintf(name, "/dev/fd/%d", input->fd);
			options->inputs.names[i] = name;
		}
	}
	options->inputs.count = job->input_count;
	return GPUSORT_OK;
}

static int build_common(const struct gpusort_job *job, struct job_options *built)
{
	struct sort_job *options = &built->sort_job;
	static const enum sort_algorithm algorithms[] = {SORT_BUCKET, SORT_SAMPLE, SORT_RADIX, SORT_BITONIC,
							 SORT_QUICK};
	options->text.reverse = job->reverse != 0;
	options->unique = job->unique != 0;
	options->check = job->check == GPUSORT_CHECK_DIAGNOSE ? 'c' : job->check == GPUSORT_CHECK_QUIET ? 'C' : 0;
	options->merge_only = job->merge != 0;
	options->inputs.files0_from = job->files0_from;
	options->memory.budget = job->memory_budget;
	options->memory.batch_size = job->batch_size;
	options->runs.compress_program = job->compress_program;
	options->engine.device = job->device == GPUSORT_DEVICE_AUTO ? SORT_DEVICE_AUTO
				 : job->device == GPUSORT_DEVICE_CPU ? SORT_DEVICE_CPU : job->device;
	options->engine.threads = job->threads;
	options->engine.gpu_memory = job->gpu_memory;
	options->engine.one_device = job->one_device != 0;
	options->engine.owns_process = temp_signals_owned();
	options->engine.staged_only = environment_switch(ENVIRONMENT_HOST_REGISTER) == 0;
	options->engine.algorithm = algorithms[job->algorithm];
	options->stats = job->stats != 0;
	options->no_verify = !job->verify;
	options->progress = job->progress != 0;
	options->verbose = job->verbose != 0;
	if (job->temp_dir_count) {
		options->runs.temp_dirs = calloc(job->temp_dir_count, sizeof *options->runs.temp_dirs);
		if (!options->runs.temp_dirs)
			return usage("%s", strerror(ENOMEM));
		memcpy(options->runs.temp_dirs, job->temp_dirs, job->temp_dir_count * sizeof *options->runs.temp_dirs);
		options->runs.temp_dir_count = job->temp_dir_count;
	}
	if (job->output) {
		options->output.name = job->output;
	} else if (job->output_fd != 1) {
		/* stdout stays "standard output" in messages; another descriptor is named as
		 * the file it reads through */
		snprintf(built->output_name, sizeof built->output_name, "/dev/fd/%d", job->output_fd);
		options->output.name = built->output_name;
		options->output.to_fd = true;
		options->output.fd = job->output_fd;
	}
	return build_inputs(job, built);
}

int job_options_build(const struct gpusort_job *given, struct job_options *built)
{
	struct gpusort_job job;
	gpusort_job_init(&job, sizeof job);
	memset(built, 0, sizeof *built);
	int code = job_struct_copy(&job, sizeof job, JOB_OLDEST_SIZE, given);
	if (code == GPUSORT_ERROR_STRUCT_SIZE)
		report("invalid job: its size field is not that of a struct gpusort_job (gpusort_job_init)");
	if (code == GPUSORT_ERROR_INVALID_ARGUMENT)
		report("invalid job: NULL");
	if (code == GPUSORT_OK)
		code = check_form(&job);
	if (code != GPUSORT_OK)
		return code;

	struct sort_job *options = &built->sort_job;
	options->mode = job.mode == GPUSORT_MODE_BINARY ? MODE_BINARY : MODE_TEXT;
	options->text.field_separator = -1;
	code = build_common(&job, built);
	if (code == GPUSORT_OK)
		code = options->mode == MODE_BINARY ? build_binary(&job, options) : build_text(&job, options);
	/* The command's checks after its options were read, in its order. */
	if (code == GPUSORT_OK && job.debug && (options->check || job.output)) {
		char letters[] = {options->check ? (char)options->check : 'o', '\0'};
		code = usage("options '-%s --debug' are incompatible", letters);
	}
	/* named by the check's letter, -c or -C, as GNU sort names them */
	char quoted[4 * PATH_MAX + 64]; /* a name quoted as GNU's quoteaf() does */
	if (code == GPUSORT_OK && options->check && options->inputs.count > 1) {
		char format[] = "extra operand %s not allowed with -?";
		format[sizeof format - 2] = (char)options->check;
		code = usage(format, report_shell_quote(options->inputs.names[1], true, quoted, sizeof quoted));
	}
	if (code == GPUSORT_OK && options->check && job.output) {
		char letters[] = {(char)options->check, 'o', '\0'};
		code = usage("options '-%s' are incompatible", letters);
	}
	if (code == GPUSORT_OK && options->inputs.files0_from && options->inputs.count > 0) {
		code = usage("extra operand %s", report_shell_quote(options->inputs.names[0], true, quoted, sizeof quoted));
		/* GNU's second line, without the program's name */
		fputs("file operands cannot be combined with --files0-from\n", stderr);
	}
	if (code != GPUSORT_OK)
		job_options_free(built);
	return code;
}

void job_options_free(struct job_options *built)
{
	free(built->sort_job.text.keys);
	free(built->sort_job.binary.fields);
	free(built->sort_job.runs.temp_dirs);
	free(built->sort_job.inputs.names);
	free(built->names);
	memset(built, 0, sizeof *built);
}
