/* SPDX-License-Identifier: MIT */
/* The command line (command_line.h): getopt_long over GNU sort's options plus
 * gpusort's binary-record, device and algorithm options, read into a struct gpusort_job,
 * one handler per group of options. Only include/gpusort.h is used: the command is
 * libgpusort's first client. Usage errors of single options are reported here (exit
 * status 2); the job's consistency is checked by gpusort_run(), and everything else
 * where the file is known. Arguments: option_values.c; messages: option_errors.c;
 * +POS1 -POS2: obsolete_key.c; --help and --version: help.c, version.c. */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gpusort.h>
#include "command_line.h"
#include "help.h"
#include "obsolete_key.h"
#include "option_errors.h"
#include "option_values.h"

enum long_only_option {
	OPT_TYPE = CHAR_MAX + 1,
	OPT_RECORD_SIZE,
	OPT_KEY_OFFSET,
	OPT_KEY_SIZE,
	OPT_KEY_FIELD,
	OPT_PARALLEL,
	OPT_DEVICE,
	OPT_GPU_MEMORY,
	OPT_ALGORITHM,
	OPT_STATS,
	OPT_NO_VERIFY,
	OPT_PROGRESS,
	OPT_VERBOSE,
	OPT_HEADER,
	OPT_CSV,
	OPT_FILES0_FROM,
	OPT_SORT,
	OPT_CHECK,
	OPT_HELP,
	OPT_VERSION,
	/* GNU sort's long options without a short one: each its own value, so that
	 * getopt_long calls an abbreviation of two of them ambiguous as GNU's does */
	OPT_COMPRESS_PROGRAM,
	OPT_DEBUG,
	OPT_RANDOM_SOURCE,
	OPT_BATCH_SIZE,
};

/* '-' first: operands come back in their place among the options (as 1), so that the
 * obsolete +POS1 [-POS2] key is read where it stands, as GNU sort reads it. */
static const char short_options[] = "-bcCdfghik:mMno:rRsS:t:T:uVy:z";

/* GNU sort 9.x's long options, in the order of its table (coreutils src/sort.c), which
 * is the order getopt_long lists the possibilities of an ambiguous abbreviation in. */
static const struct option gnu_long_options[] = {
	{"ignore-leading-blanks", no_argument, NULL, 'b'},
	{"check", optional_argument, NULL, OPT_CHECK},
	{"compress-program", required_argument, NULL, OPT_COMPRESS_PROGRAM},
	{"debug", no_argument, NULL, OPT_DEBUG},
	{"dictionary-order", no_argument, NULL, 'd'},
	{"ignore-case", no_argument, NULL, 'f'},
	{"files0-from", required_argument, NULL, OPT_FILES0_FROM},
	{"general-numeric-sort", no_argument, NULL, 'g'},
	{"ignore-nonprinting", no_argument, NULL, 'i'},
	{"key", required_argument, NULL, 'k'},
	{"merge", no_argument, NULL, 'm'},
	{"month-sort", no_argument, NULL, 'M'},
	{"numeric-sort", no_argument, NULL, 'n'},
	{"human-numeric-sort", no_argument, NULL, 'h'},
	{"version-sort", no_argument, NULL, 'V'},
	{"random-sort", no_argument, NULL, 'R'},
	{"random-source", required_argument, NULL, OPT_RANDOM_SOURCE},
	{"sort", required_argument, NULL, OPT_SORT},
	{"output", required_argument, NULL, 'o'},
	{"reverse", no_argument, NULL, 'r'},
	{"stable", no_argument, NULL, 's'},
	{"batch-size", required_argument, NULL, OPT_BATCH_SIZE},
	{"buffer-size", required_argument, NULL, 'S'},
	{"field-separator", required_argument, NULL, 't'},
	{"temporary-directory", required_argument, NULL, 'T'},
	{"unique", no_argument, NULL, 'u'},
	{"zero-terminated", no_argument, NULL, 'z'},
	{"parallel", required_argument, NULL, OPT_PARALLEL},
	{"help", no_argument, NULL, OPT_HELP},
	{"version", no_argument, NULL, OPT_VERSION},
	{NULL, 0, NULL, 0},
};

/* gpusort's own long options: binary records, the device, the engine, reports. */
static const struct option own_long_options[] = {
	{"type", required_argument, NULL, OPT_TYPE},
	{"record-size", required_argument, NULL, OPT_RECORD_SIZE},
	{"key-offset", required_argument, NULL, OPT_KEY_OFFSET},
	{"key-size", required_argument, NULL, OPT_KEY_SIZE},
	{"key-field", required_argument, NULL, OPT_KEY_FIELD},
	{"device", required_argument, NULL, OPT_DEVICE},
	{"gpu-memory", required_argument, NULL, OPT_GPU_MEMORY},
	{"algorithm", required_argument, NULL, OPT_ALGORITHM},
	{"stats", no_argument, NULL, OPT_STATS},
	{"no-verify", no_argument, NULL, OPT_NO_VERIFY},
	{"progress", no_argument, NULL, OPT_PROGRESS},
	{"verbose", no_argument, NULL, OPT_VERBOSE},
	{"header", optional_argument, NULL, OPT_HEADER},
	{"csv", optional_argument, NULL, OPT_CSV},
	{NULL, 0, NULL, 0},
};

/* Whether the name (up to '=' or the end) is one of table's options, or (prefix) the
 * start of one. */
static bool names_option(const char *name, const struct option *table, bool prefix)
{
	size_t length = strcspn(name, "=");
	for (; table->name; table++)
		if (strncmp(table->name, name, length) == 0 && (prefix || table->name[length] == '\0'))
			return true;
	return false;
}

/* The table getopt_long resolves the next long option in. GNU sort's abbreviations
 * win: a name that is one of GNU's options or the start of one is looked up among
 * GNU's alone, so that gpusort's own options neither make it ambiguous (--p is
 * --parallel, not also --progress) nor take it over (--de is GNU's --debug, never
 * --device); any other name (and one of gpusort's own in full) among gpusort's own.
 * The next option is the first element from optind that getopt_long will read as an
 * option: it skips (permutes) non-options, and inside a cluster of short options it
 * stays on that element, where the table does not matter. */
static const struct option *long_options_for_next(int argc, char **argv)
{
	for (int i = optind > 0 ? optind : 1; i < argc; i++) {
		const char *element = argv[i];
		if (element[0] != '-' || element[1] == '\0')
			continue; /* a non-option, which getopt_long steps over */
		if (element[1] != '-' || element[2] == '\0')
			return gnu_long_options; /* short options, or "--": no long name */
		const char *name = element + 2;
		if (!names_option(name, own_long_options, false) && names_option(name, gnu_long_options, true))
			return gnu_long_options;
		return own_long_options;
	}
	return gnu_long_options;
}

/* The ordering option letters and the job's bits for them. */
static unsigned ordering_bit(char letter)
{
	switch (letter) {
	case 'b': return GPUSORT_ORDER_IGNORE_LEADING_BLANKS;
	case 'd': return GPUSORT_ORDER_DICTIONARY;
	case 'f': return GPUSORT_ORDER_IGNORE_CASE;
	case 'g': return GPUSORT_ORDER_GENERAL_NUMERIC;
	case 'h': return GPUSORT_ORDER_HUMAN_NUMERIC;
	case 'i': return GPUSORT_ORDER_IGNORE_NONPRINTING;
	case 'M': return GPUSORT_ORDER_MONTH;
	case 'n': return GPUSORT_ORDER_NUMERIC;
	case 'R': return GPUSORT_ORDER_RANDOM;
	case 'V': return GPUSORT_ORDER_VERSION;
	default: return 0;
	}
}

static int push_string(const char ***list, size_t *count, const char *value)
{
	const char **grown = realloc(*list, (*count + 1) * sizeof *grown);
	if (!grown)
		return -ENOMEM;
	grown[(*count)++] = value;
	*list = grown;
	return 0;
}

static int push_input(struct command_line *line, const char *name)
{
	struct gpusort_input *grown = realloc(line->inputs, (line->job.input_count + 1) * sizeof *grown);
	if (!grown)
		return -ENOMEM;
	grown[line->job.input_count++] = (struct gpusort_input){name, -1};
	line->inputs = grown;
	line->job.inputs = grown;
	return 0;
}

static int push_key_field(struct command_line *line, const struct gpusort_binary_key *field)
{
	size_t count = line->job.key_field_count;
	struct gpusort_binary_key *grown = realloc(line->key_fields, (count + 1) * sizeof *grown);
	if (!grown)
		return -ENOMEM;
	grown[count] = *field;
	line->key_fields = grown;
	line->job.key_fields = grown;
	line->job.key_field_count = count + 1;
	return 0;
}

static int push_keydef(struct command_line *line, const char *keydef)
{
	if (push_string(&line->keys, &line->job.key_count, keydef) < 0)
		return -ENOMEM;
	line->job.keys = line->keys;
	return 0;
}

/* What the user set explicitly, for the checks after parsing. */
struct given {
	bool type, record_size, key_offset, key_size, key_field, key_file, text_key, text_only, separator;
	char text_only_option;
	char check; /* 'c' or 'C': the check asked for last (-c, -C, --check[=WORD]) */
};

/* The parse in progress: argv as getopt_long permutes it, the job it fills, and what
 * the options so far have said. */
struct parse {
	int argc;
	char **argv;
	struct command_line *line;
	struct gpusort_job *job;
	struct given given;
	bool posixly_correct; /* POSIXLY_CORRECT is set */
	bool traditional;     /* +POS1 is read as a key (obsolete_key.h) */
	int long_index;       /* getopt_long's index of the long option read, or -1 */
};

/* A group's handler returns this for an option of another group; otherwise 0 to go
 * on, or the exit status (1 after --help or --version, 2 after a message). */
#define NOT_IN_GROUP (-1)

static int out_of_memory(void)
{
	return usage_error("%s", "out of memory");
}

/* An option that applies to text lines only, for finish_binary's message. */
static void mark_text_only(struct given *given, char letter)
{
	given->text_only = true;
	given->text_only_option = letter;
}

/* An option GNU sort takes again with the same argument but refuses with another
 * (-o, --random-source, --compress-program), in message's words. */
static int set_once(const char **slot, const char *value, const char *message)
{
	if (*slot && strcmp(*slot, value) != 0)
		return option_error("%s", message);
	*slot = value;
	return 0;
}

/* -c and -C (in any spelling) may be repeated but not mixed: GNU sort refuses that
 * while it reads the options, with the same words whichever came first. */
static int set_check(struct gpusort_job *job, struct given *given, char letter)
{
	if (given->check && given->check != letter)
		return option_error("options '-%s' are incompatible", "cC");
	given->check = letter;
	job->check = letter == 'c' ? GPUSORT_CHECK_DIAGNOSE : GPUSORT_CHECK_QUIET;
	return 0;
}

/* What GNU sort refuses of a check once the options are read, in its order and words
 * (die(), without the pointer to --help; gpusort_run() would add it). With
 * --files0-from the inputs are known only when the list is read: gpusort_run()'s. */
static int check_operands(const struct command_line *line, const struct given *given)
{
	const struct gpusort_job *job = &line->job;
	/* GNU sort refuses --debug with a check or an output file before all else here */
	if (job->debug && (given->check || job->output)) {
		char letters[] = {given->check ? given->check : 'o', '\0'};
		return option_error("options '-%s --debug' are incompatible", letters);
	}
	if (!given->check || job->files0_from)
		return 0;
	if (job->input_count > 1) {
		char format[] = "extra operand '%s' not allowed with -?";
		format[sizeof format - 2] = given->check;
		return option_error(format, job->inputs[1].name);
	}
	if (job->output) {
		char options[] = {given->check, 'o', '\0'};
		return option_error("options '-%s' are incompatible", options);
	}
	return 0;
}

/* Binary mode's checks that need to know which options were given (the rest, which the
 * job's fields tell, are gpusort_run's), and the defaults that follow from them. */
static int finish_binary(struct command_line *line, const struct given *given)
{
	if (given->text_key)
		return usage_error("%s", "text keys (-k KEYDEF) cannot be combined with binary record options");
	if (given->text_only) {
		char option[3] = {'-', given->text_only_option, '\0'};
		return usage_error("option '%s' applies to text lines, not binary records", option);
	}
	/* the job cannot tell an explicit --type=u32 or --key-offset=0 from the defaults */
	if (given->key_field && (given->type || given->key_offset || given->key_size))
		return usage_error("%s", "--key-field cannot be combined with --type, --key-offset or --key-size");
	line->job.mode = GPUSORT_MODE_BINARY;
	if (!given->type && given->key_size)
		line->job.key.type = GPUSORT_KEY_BYTES;
	return 0;
}

/* An operand: a file, or (the obsolete syntax) a key that +POS1 and perhaps the next
 * element, -POS2, make. */
static int take_operand(struct parse *p)
{
	const char *operand = p->argv[optind - 1];
	if (operand[0] == '+') {
		const char *next = optind < p->argc ? p->argv[optind] : "";
		bool minus_pos = next[0] == '-' && isdigit((unsigned char)next[1]);
		p->traditional |= minus_pos && !p->posixly_correct;
		char keydef[200];
		int found = p->traditional ? obsolete_keydef(operand, minus_pos ? next : NULL, keydef, sizeof keydef)
					   : 1;
		if (found == 2)
			return 2;
		if (found == 0) {
			char *copy = strdup(keydef);
			if (!copy || push_string(&p->line->owned, &p->line->owned_count, copy) < 0) {
				free(copy);
				return out_of_memory();
			}
			if (push_keydef(p->line, copy) < 0)
				return out_of_memory();
			if (minus_pos)
				optind++;
			p->given.text_key = true;
			return 0;
		}
	}
	if (push_input(p->line, operand) < 0)
		return out_of_memory();
	return 0;
}

/* -k: a KEYDEF, or by the -k rule an input file that selects binary mode. */
static int take_key(struct parse *p, const char *argument)
{
	char message[1024];
	if (gpusort_keydef_check(argument, message, sizeof message) == GPUSORT_OK) {
		if (push_keydef(p->line, argument) < 0)
			return out_of_memory();
		p->given.text_key = true;
		return 0;
	}
	/* Neither a KEYDEF nor a file (nor standard input): GNU sort's words on what is
	 * wrong with it as a key (no pointer to --help). */
	if (strcmp(argument, "-") != 0 && access(argument, F_OK) != 0)
		return option_error("%s", message);
	if (push_input(p->line, argument) < 0)
		return out_of_memory();
	p->given.key_file = true;
	return 0;
}

/* -t SEP, which GNU sort takes again only with the same SEP. */
static int take_separator(struct parse *p, const char *argument)
{
	int previous = p->job->separator;
	int error = parse_separator(argument, &p->job->separator);
	if (error == -E2BIG)
		return option_error_quoted("multi-character tab %s", argument);
	if (error)
		return option_error("%s", "empty tab");
	if (p->given.separator && previous != p->job->separator)
		return option_error("%s", "incompatible tabs");
	p->given.separator = true;
	mark_text_only(&p->given, 't');
	return 0;
}

/* --sort=WORD: one of the ordering letters, by its name. */
static int take_sort_word(struct parse *p, const char *argument)
{
	static const char *const words[] = {"general-numeric", "human-numeric", "month", "numeric",
					    "random", "version"};
	int letter = match_word(argument, words, "ghMnRV", 6);
	if (letter < 0)
		return invalid_word(argument, "--sort", words, 6, letter == -2);
	p->job->ordering |= ordering_bit((char)letter);
	mark_text_only(&p->given, (char)letter);
	return 0;
}

/* --csv[=WORD]: strict (RFC 4180, the default) or lenient. */
static int take_csv_word(struct parse *p, const char *argument)
{
	static const char *const words[] = {"strict", "lenient"};
	int mode = argument ? match_word(argument, words, "\1\2", 2) : GPUSORT_CSV_STRICT;
	if (mode < 0)
		return invalid_word(argument, "--csv", words, 2, mode == -2);
	p->job->csv = mode;
	return 0;
}

/* The text options: ordering, keys, the separator and the line delimiter. */
static int take_text_option(struct parse *p, int option)
{
	switch (option) {
	case 'b': case 'd': case 'f': case 'g': case 'h': case 'i': case 'M': case 'n': case 'R': case 'V':
		p->job->ordering |= ordering_bit((char)option);
		mark_text_only(&p->given, (char)option);
		return 0;
	case OPT_SORT:
		return take_sort_word(p, optarg);
	case 'k':
		return take_key(p, optarg);
	case 't':
		return take_separator(p, optarg);
	case 's':
		p->job->stable = 1;
		return 0;
	case 'z':
		p->job->zero_terminated = 1;
		mark_text_only(&p->given, 'z');
		return 0;
	case OPT_RANDOM_SOURCE:
		return set_once(&p->job->random_source, optarg, "multiple random sources specified");
	case OPT_DEBUG:
		p->job->debug = 1;
		return 0;
	case OPT_HEADER:
		return parse_header_lines(optarg, &p->job->header_lines);
	case OPT_CSV:
		return take_csv_word(p, optarg);
	default:
		return NOT_IN_GROUP;
	}
}

/* --check[=WORD]: -c, or -C by one of its quiet names. */
static int take_check_word(struct parse *p, const char *argument)
{
	static const char *const words[] = {"quiet", "silent", "diagnose-first"};
	static const char *const listed[] = {"quiet", "=silent", "diagnose-first"};
	int letter = argument ? match_word(argument, words, "CCc", 3) : 'c';
	if (letter < 0)
		return invalid_word(argument, "--check", listed, 3, letter == -2);
	return set_check(p->job, &p->given, (char)letter);
}

/* What to make of the inputs: reverse, unique, check, merge; where the result goes. */
static int take_result_option(struct parse *p, int option)
{
	switch (option) {
	case 'r':
		p->job->reverse = 1;
		return 0;
	case 'u':
		p->job->unique = 1;
		return 0;
	case 'c':
	case 'C':
		return set_check(p->job, &p->given, (char)option);
	case OPT_CHECK:
		return take_check_word(p, optarg);
	case 'm':
		p->job->merge = 1;
		return 0;
	case 'o':
		return set_once(&p->job->output, optarg, "multiple output files specified");
	case OPT_FILES0_FROM:
		p->job->files0_from = optarg;
		return 0;
	default:
		return NOT_IN_GROUP;
	}
}

/* -S SIZE: as GNU, several sizes are the largest, whatever their order; and 0 is the
 * smallest budget (the job's 0 would be the default). */
static int take_buffer_size(struct parse *p, const char *argument)
{
	size_t bytes;
	if (gpusort_parse_size(argument, &bytes) != GPUSORT_OK)
		return number_error(size_trouble(argument), p->long_index >= 0 ? "--buffer-size" : "-S", argument);
	if (bytes == 0)
		bytes = 1;
	if (bytes > p->job->memory_budget)
		p->job->memory_budget = bytes;
	return 0;
}

/* The resources of the sort: memory, temp files, threads, merging, compression. */
static int take_resource_option(struct parse *p, int option)
{
	switch (option) {
	case 'S':
		return take_buffer_size(p, optarg);
	case 'y':
		/* GNU's hidden -y, for old Solaris scripts: ignored with its argument, but a
		 * separate argument that is not all digits (none at all is) is read again,
		 * as an operand or an option, as GNU sort reads it */
		if (optarg == p->argv[optind - 1] && optarg[strspn(optarg, "0123456789")] != '\0')
			optind--;
		return 0;
	case 'T':
		if (push_string(&p->line->temp_dirs, &p->job->temp_dir_count, optarg) < 0)
			return out_of_memory();
		p->job->temp_dirs = p->line->temp_dirs;
		return 0;
	case OPT_PARALLEL:
		return parse_threads(optarg, &p->job->threads);
	case OPT_BATCH_SIZE:
		return parse_batch_size(optarg, &p->job->batch_size);
	case OPT_COMPRESS_PROGRAM:
		/* GNU sort's rule: the same PROG again is fine, another is not */
		return set_once(&p->job->compress_program, optarg, "multiple compress programs specified");
	default:
		return NOT_IN_GROUP;
	}
}

/* --key-field=SPEC, one more field of a composite key. */
static int take_key_field(struct parse *p, const char *argument)
{
	struct gpusort_binary_key field;
	char reason[160];
	if (parse_key_field(argument, &field, reason, sizeof reason) < 0) {
		fprintf(stderr, "gpusort: invalid key field specification '%s': %s\n", argument, reason);
		command_line_usage_hint();
		return 2;
	}
	if (push_key_field(p->line, &field) < 0)
		return out_of_memory();
	p->given.key_field = true;
	return 0;
}

/* The binary record layout: key type, record size, key offset and size, key fields. */
static int take_binary_option(struct parse *p, int option)
{
	struct gpusort_job *job = p->job;
	switch (option) {
	case OPT_TYPE:
		if (parse_key_type(optarg, &job->key.type) < 0)
			return usage_error("invalid --type '%s' (expected u32, i32, u64, i64, f32, f64 or bytes)", optarg);
		p->given.type = true;
		return 0;
	case OPT_RECORD_SIZE:
		if (parse_count(optarg, 1, &job->record_size) < 0)
			return usage_error("invalid --record-size '%s' (expected a positive number of bytes)", optarg);
		p->given.record_size = true;
		return 0;
	case OPT_KEY_OFFSET:
		if (parse_count(optarg, 0, &job->key.offset) < 0)
			return usage_error("invalid --key-offset '%s'", optarg);
		p->given.key_offset = true;
		return 0;
	case OPT_KEY_SIZE:
		if (parse_count(optarg, 1, &job->key.size) < 0)
			return usage_error("invalid --key-size '%s' (expected a positive number of bytes)", optarg);
		p->given.key_size = true;
		return 0;
	case OPT_KEY_FIELD:
		return take_key_field(p, optarg);
	default:
		return NOT_IN_GROUP;
	}
}

/* The engine and what the command reports: device, algorithm, self-check, notes,
 * --help and --version. */
static int take_engine_option(struct parse *p, int option)
{
	struct gpusort_job *job = p->job;
	switch (option) {
	case OPT_DEVICE:
		if (parse_device(optarg, &job->device) < 0)
			return usage_error("invalid --device '%s' (expected auto, cpu or a device number)", optarg);
		return 0;
	case OPT_GPU_MEMORY:
		if (gpusort_parse_size(optarg, &job->gpu_memory) != GPUSORT_OK)
			return usage_error("invalid --gpu-memory '%s'", optarg);
		return 0;
	case OPT_ALGORITHM:
		if (parse_algorithm(optarg, &job->algorithm) < 0)
			return usage_error("invalid --algorithm '%s' (expected bucket, sample, radix, bitonic or quick)",
					   optarg);
		return 0;
	case OPT_STATS:
		job->stats = 1;
		return 0;
	case OPT_NO_VERIFY:
		job->verify = 0;
		return 0;
	case OPT_PROGRESS:
		job->progress = 1;
		return 0;
	case OPT_VERBOSE:
		job->verbose = 1;
		return 0;
	case OPT_HELP:
		help_print();
		return 1;
	case OPT_VERSION:
		version_print();
		return 1;
	default:
		return NOT_IN_GROUP;
	}
}

/* One option (or operand, as 1) that getopt_long returned, to its group's handler. */
static int take_option(struct parse *p, int option)
{
	static int (*const groups[])(struct parse *, int) = {take_text_option, take_result_option,
							     take_resource_option, take_binary_option,
							     take_engine_option};
	if (option == 1)
		return take_operand(p);
	for (size_t i = 0; i < sizeof groups / sizeof *groups; i++) {
		int status = groups[i](p, option);
		if (status != NOT_IN_GROUP)
			return status;
	}
	command_line_usage_hint(); /* getopt_long has said what is wrong */
	return 2;
}

/* Under POSIXLY_CORRECT, what follows a file is a file, as for GNU sort; but for its
 * old exception, -o FILE after the files (traditional usage, no -c). */
static bool options_end(const struct parse *p)
{
	if (!p->posixly_correct || !p->job->input_count)
		return false;
	const char *next = optind < p->argc ? p->argv[optind] : NULL;
	bool output_after_files = p->traditional && !p->given.check && next && next[0] == '-' && next[1] == 'o' &&
				  (next[2] || optind + 1 != p->argc);
	return !output_after_files;
}

static int parse_arguments(int argc, char **argv, struct command_line *line)
{
	struct parse p = {.argc = argc, .argv = argv, .line = line, .job = &line->job};
	p.posixly_correct = getenv("POSIXLY_CORRECT") != NULL;
	p.traditional = traditional_usage();

	/* 0, not 1: glibc's getopt then also forgets where it was inside a cluster of
	 * short options, which an earlier parse that stopped early (-bx) leaves behind and
	 * a second parse would otherwise continue in the old argv. */
	optind = 0;
	opterr = 1;
	while (!options_end(&p)) {
		p.long_index = -1;
		int option = getopt_long(argc, argv, short_options, long_options_for_next(argc, argv), &p.long_index);
		if (option == -1)
			break;
		int status = take_option(&p, option);
		if (status)
			return status;
	}
	for (int i = optind; i < argc; i++)
		if (push_input(line, argv[i]) < 0)
			return out_of_memory();

	const struct given *given = &p.given;
	if (given->type || given->record_size || given->key_offset || given->key_size || given->key_field ||
	    given->key_file) {
		int status = finish_binary(line, given);
		if (status)
			return status;
	}
	return check_operands(line, given);
}

int command_line_parse(int argc, char **argv, struct command_line *line)
{
	memset(line, 0, sizeof *line);
	gpusort_job_init(&line->job, sizeof line->job);
	/* a command sorts one job, on one device at most */
	line->job.one_device = 1;

	/* getopt_long words a bad option as GNU sort's messages do (it is the same code),
	 * naming argv[0]: it gets a copy whose argv[0] is the name every other message
	 * carries, however gpusort was started. The copy is permuted, not argv. */
	char **args = malloc(((size_t)argc + 1) * sizeof *args);
	if (!args)
		return out_of_memory();
	memcpy(args, argv, ((size_t)argc + 1) * sizeof *args);
	args[0] = (char *)"gpusort";
	int status = parse_arguments(argc, args, line);
	free(args);
	return status;
}

void command_line_free(struct command_line *line)
{
	for (size_t i = 0; i < line->owned_count; i++)
		free((char *)line->owned[i]);
	free(line->owned);
	free(line->inputs);
	free(line->keys);
	free(line->temp_dirs);
	free(line->key_fields);
	memset(line, 0, sizeof *line);
}
