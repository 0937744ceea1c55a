/* SPDX-License-Identifier: MIT */
/* The command line (command_line.h): getopt_long over GNU sort's options plus
 * gpusort's binary-record, device and algorithm options, read into a struct gpusort_job.
 * Only include/gpusort.h is used: the command is libgpusort's first client. Usage
 * errors of single options are reported here (exit status 2); the job's consistency is
 * checked by gpusort_run(), and everything else where the file is known. */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <gpusort.h>
#include "command_line.h"

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

static const char *const key_type_names[] = {"u32", "i32", "u64", "i64", "f32", "f64", "bytes"};
static const enum gpusort_key_type key_types[] = {GPUSORT_KEY_U32, GPUSORT_KEY_I32, GPUSORT_KEY_U64,
						   GPUSORT_KEY_I64, GPUSORT_KEY_F32, GPUSORT_KEY_F64,
						   GPUSORT_KEY_BYTES};
static const char *const algorithm_names[] = {"bucket", "sample", "radix", "bitonic", "quick"};
static const enum gpusort_algorithm algorithms[] = {GPUSORT_ALGORITHM_BUCKET, GPUSORT_ALGORITHM_SAMPLE,
						    GPUSORT_ALGORITHM_RADIX, GPUSORT_ALGORITHM_BITONIC,
						    GPUSORT_ALGORITHM_QUICK};

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

static void print_help(void)
{
	fputs(
"Usage: gpusort [OPTION]... [FILE]...\n"
"  or:  gpusort -k INPUT.bin -o OUTPUT.bin [OPTION]...\n"
"Sort lines of text, or fixed-size binary records, of FILEs (standard input when\n"
"none, or when FILE is -) and write the result to standard output or -o FILE.\n"
"The sort runs on a CUDA GPU when there is one, on CPU threads otherwise, with the\n"
"same output; inputs larger than memory are sorted in runs spilled to temp files.\n"
"\n"
"Binary records (little-endian keys; records travel whole; the sort is stable):\n"
"      --type=TYPE          key type: u32 i32 u64 i64 f32 f64, or bytes (memcmp\n"
"                           order); default u32, or bytes when --key-size is given\n"
"      --record-size=N      bytes per record (default: the key size)\n"
"      --key-offset=N       key position inside each record (default 0)\n"
"      --key-size=N         key bytes (default: the type's size; for bytes, the rest\n"
"                           of the record)\n"
"      --key-field=TYPE:OFFSET[:SIZE][:asc|:desc]  a field of a composite key\n"
"                           (database ORDER BY), repeatable: records order by the\n"
"                           first field, then the second, ...; each ascending, or\n"
"                           descending with :desc; SIZE: a bytes field's length\n"
"                           (default: the rest of the record); needs --record-size;\n"
"                           not with --type, --key-offset, --key-size. -r reverses\n"
"                           every field's direction; -u keeps the first of records\n"
"                           equal in every field\n"
"  Floats: -0.0 equals +0.0; NaNs sort after every number (first with -r).\n"
"\n"
"The -k rule: an argument of -k that parses as a KEYDEF (F[.C][OPTS][,F[.C][OPTS]])\n"
"is a text key; any other argument names an input file and selects binary mode, with\n"
"key type u32 unless --type says otherwise:  gpusort -k input.bin -o out.bin\n"
"\n"
"Text ordering options (as GNU sort, in the locale: LC_ALL, LC_COLLATE, LANG):\n"
"  -b, --ignore-leading-blanks  ignore leading blanks\n"
"  -d, --dictionary-order      consider only blanks and alphanumeric characters\n"
"  -f, --ignore-case           fold lower case to upper case characters\n"
"  -g, --general-numeric-sort  compare according to general numerical value\n"
"  -h, --human-numeric-sort    compare human readable numbers (e.g., 2K 1G)\n"
"  -i, --ignore-nonprinting    consider only printable characters\n"
"  -M, --month-sort            compare (unknown) < 'JAN' < ... < 'DEC'\n"
"  -n, --numeric-sort          compare according to string numerical value\n"
"  -R, --random-sort           shuffle, but group identical keys: a keyed hash of\n"
"                              each key orders them (ties by the key's bytes)\n"
"      --random-source=FILE    take the hash's salt from FILE's first 16 bytes: the\n"
"                              same FILE gives the same order (every engine, -S, -m);\n"
"                              without it each run draws a new salt\n"
"  -V, --version-sort          natural sort of (version) numbers within text\n"
"      --sort=WORD             sort according to WORD: general-numeric -g,\n"
"                              human-numeric -h, month -M, numeric -n, random -R,\n"
"                              version -V\n"
"  -k, --key=KEYDEF            sort via a key; KEYDEF gives location and type\n"
"  -t, --field-separator=SEP   use SEP instead of non-blank to blank transition\n"
"  -s, --stable                disable last-resort comparison\n"
"  -z, --zero-terminated       line delimiter is NUL, not newline\n"
"      --files0-from=F         read input from the files named by NUL-terminated\n"
"                              names in file F (- for standard input)\n""      --debug                 annotate the part of the line used to sort, and\n"
"                              warn about questionable usage to stderr, as GNU\n"
"                              sort 9.1 does; not with -c, -C or -o\n"
"\n"
"Common options:\n"
"  -r, --reverse               reverse the result of comparisons\n"
"  -u, --unique                output only the first of an equal run\n"
"  -c, --check, --check=diagnose-first  check for sorted input; do not sort\n"
"  -C, --check=quiet, --check=silent    like -c, but do not report first bad line\n"
"  -m, --merge                 merge already sorted files; do not sort\n"
"      --batch-size=NMERGE     merge at most NMERGE inputs at once (at least 2);\n"
"                              for more use temp files\n"
"      --compress-program=PROG  compress temporaries with PROG;\n"
"                              decompress them with PROG -d (default: zstd\n"
"                              in-process; with PROG the last merge is sequential)\n"
"  -o, --output=FILE           write result to FILE instead of standard output;\n"
"                              FILE may be an input; a symbolic link's target is\n"
"                              written; /dev/stdout, /dev/fd/N: that descriptor\n"
"  -S, --buffer-size=SIZE      use SIZE for the main memory budget\n"
"  -T, --temporary-directory=DIR  use DIR for temporaries, not $TMPDIR or /tmp;\n"
"                              multiple options specify multiple directories\n"
"      --parallel=N            use N CPU threads (default: the online cores,\n"
"                              fewer under a small -S)\n"
"      --device=auto|cpu|N     sort on the first GPU if any (auto), on CPU threads,\n"
"                              or on CUDA device N (auto sorts text below 1 GiB,\n"
"                              and binary input whose keys take below 256 MiB,\n"
"                              on the CPU: a GPU would take longer to start)\n"
"      --gpu-memory=SIZE       device memory to use (default: most of what is free)\n"
"      --algorithm=NAME        bucket (default), sample, radix, bitonic or quick;\n"
"                              without a GPU every one runs as the CPU bucket sort\n"
"                              (the output is the same)\n"
"      --stats                 print per-stage times and bytes to standard error\n"
"      --no-verify             skip the self-check every sort makes of its output\n"
"                              (order, count, and a checksum of the records)\n"
"      --progress              show a progress line on a terminal\n"
"      --verbose               print notes (device choice, fallbacks) to stderr\n"
"      --help                  display this help and exit\n"
"      --version               output version information and exit\n"
"\n"
"KEYDEF is F[.C][OPTS][,F[.C][OPTS]] for start and stop position, where F is a\n"
"field number and C a character position in the field; both are origin 1, and the\n"
"stop position defaults to the line's end. OPTS is one or more single-letter\n"
"ordering options [bdfghiMnRrV], which override global ordering options for that key.\n"
"\n"
"SIZE may be followed by the following multiplicative suffixes: % of memory, b 1,\n"
"K 1024 (default), and so on for M, G, T, P, E, Z, Y.\n"
"\n"
"Exit status: 0 done; 1 with -c or -C when the input is not in order; 2 trouble\n"
"(bad option or input, I/O error). The output file changes only when the sort\n"
"succeeds, and temp files are removed on any exit. Where FILE is copied into, not\n"
"renamed over (more than one link, another owner, a directory you may not write),\n"
"room for the copy is reserved first (a full disk leaves FILE as it was), and\n"
"SIGINT, SIGTERM, SIGHUP and SIGPIPE wait for its end; SIGKILL or an I/O error\n"
"during the copy can leave FILE new up to some byte and old after it.\n"
"\n"
"Under MPI (mpirun -np N gpusort ...; built with Open MPI) the N ranks sort the\n"
"inputs together, each its share with its own engine, and write the output one\n"
"process would write; -c, -C, -m and --debug run on rank 0 while the others wait.\n",
	stdout);
}

/* Laid out as coreutils' --version. The repository states no licence yet, so this
 * says so rather than claim one (or claim "free software"); when the authors choose
 * one, its line goes here, in the man page's COPYRIGHT and in the README. */
static void print_version(void)
{
	printf("gpusort (gpusort) %s\n"
	       "Copyright (C) 2026 the gpusort authors.\n"
	       "License: none stated yet by the authors.\n"
	       "There is NO WARRANTY, to the extent permitted by law.\n"
	       "\n"
	       "Written by the gpusort authors.\n",
	       gpusort_version_string());
}

void command_line_usage_hint(void)
{
	fputs("Try 'gpusort --help' for more information.\n", stderr);
}

/* An option's error as GNU sort's die() says it: the message alone, exit status 2. */
static int option_error(const char *format, const char *argument)
{
	fputs("gpusort: ", stderr);
	fprintf(stderr, format, argument);
	fputc('\n', stderr);
	return 2;
}

/* The same with the argument quoted as GNU's quote() does in the locale (format takes
 * it as %s, with no quotes of its own). */
static int option_error_quoted(const char *format, const char *argument)
{
	char quoted[1024];
	return option_error(format, gpusort_quote(argument, quoted, sizeof quoted));
}

/* What xstrtol_fatal() says of a numeric option's bad argument: the option as it was
 * named (-S, or the long name in full), the argument in quotes. */
enum number_trouble { NUMBER_INVALID, NUMBER_BAD_SUFFIX, NUMBER_TOO_LARGE };
static int number_error(enum number_trouble trouble, const char *option, const char *argument)
{
	/* straight quotes in every locale: GNU's xstrtol_error() writes them itself */
	static const char *const formats[] = {"invalid %s argument '%s'", "invalid suffix in %s argument '%s'",
					      "%s argument '%s' too large"};
	fputs("gpusort: ", stderr);
	fprintf(stderr, formats[trouble], option, argument);
	fputc('\n', stderr);
	return 2;
}

/* A usage error: the message and the pointer to --help, as GNU's usage(). */
static int usage_error(const char *format, const char *argument)
{
	option_error(format, argument);
	command_line_usage_hint();
	return 2;
}

/* A word option's bad argument, with the words it takes, as GNU's argmatch says it.
 * (GNU sort then exits 1, which -c uses for disorder; gpusort keeps 2 for trouble.) */
static int invalid_word(const char *argument, const char *option, const char *const *valid, size_t count,
			bool ambiguous)
{
	char quoted_argument[1024], quoted_option[64], quoted[64];
	fprintf(stderr, "gpusort: %s argument %s for %s\nValid arguments are:",
		ambiguous ? "ambiguous" : "invalid", gpusort_quote(argument, quoted_argument, sizeof quoted_argument),
		gpusort_quote(option, quoted_option, sizeof quoted_option));
	/* words of one meaning share a line, as argmatch_valid() lists them */
	for (size_t i = 0; i < count; i++) {
		bool same = i > 0 && valid[i][0] == '=';
		const char *word = valid[i] + (valid[i][0] == '=');
		fprintf(stderr, same ? ", %s" : "\n  - %s", gpusort_quote(word, quoted, sizeof quoted));
	}
	fputc('\n', stderr);
	command_line_usage_hint();
	return 2;
}

/* A word option's argument as GNU's argmatch takes it: a word in full, or the start of
 * one word (or of several that mean the same). Returns that word's value; -1 when no
 * word starts so, -2 when words of different meanings do. */
static int match_word(const char *text, const char *const *words, const char *values, size_t count)
{
	size_t length = strlen(text);
	int found = -1;
	bool ambiguous = false;
	for (size_t i = 0; i < count; i++) {
		if (strncmp(words[i], text, length) != 0)
			continue;
		if (words[i][length] == '\0')
			return values[i];
		if (found < 0)
			found = values[i];
		else if (found != values[i])
			ambiguous = true;
	}
	return ambiguous ? -2 : found;
}

static int parse_count(const char *text, size_t minimum, size_t *value)
{
	char *end;
	if (text[0] < '0' || text[0] > '9')
		return -EINVAL;
	errno = 0;
	unsigned long long parsed = strtoull(text, &end, 10);
	if (errno || *end || parsed < minimum || parsed > SIZE_MAX)
		return -EINVAL;
	*value = (size_t)parsed;
	return 0;
}

/* The index of text in a list of names, or -1. */
static int find_name(const char *text, const char *const *names, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (strcmp(text, names[i]) == 0)
			return (int)i;
	return -1;
}

/* --batch-size=NMERGE as GNU sort's specify_nmerge() reads it (xstrtoumax: leading
 * blanks and '+' allowed, no suffix), with its messages: at least 2, and at most the
 * descriptors the process may open, less stdin, stdout and stderr. */
static int parse_batch_size(const char *text, size_t *batch_size)
{
	struct rlimit limit;
	unsigned most = (unsigned)((getrlimit(RLIMIT_NOFILE, &limit) == 0 ? limit.rlim_cur : 20) - 3);
	const char *digits = text;
	while (isspace((unsigned char)*digits))
		digits++;
	char *end = (char *)digits;
	uintmax_t value = 0;
	errno = 0;
	if (*digits != '-')
		value = strtoumax(digits, &end, 10);
	bool too_large = errno == ERANGE || value > UINT_MAX || value > most;
	/* xstrtol_fatal()'s words and straight quotes; GNU's own checks below quote() */
	if (end == digits)
		return number_error(NUMBER_INVALID, "--batch-size", text);
	if (*end)
		return number_error(NUMBER_BAD_SUFFIX, "--batch-size", text);
	if (value < 2) {
		option_error_quoted("invalid --batch-size argument %s", text);
		return option_error_quoted("minimum --batch-size argument is %s", "2");
	}
	if (too_large) {
		char maximum[16];
		snprintf(maximum, sizeof maximum, "%u", most);
		option_error_quoted("--batch-size argument %s too large", text);
		return option_error("maximum --batch-size argument with current rlimit is %s", maximum);
	}
	*batch_size = (size_t)value;
	return 0;
}

/* A count as GNU reads it (xstrtoumax): blanks and a '+' may lead, digits must follow;
 * a count too large for the type saturates (overflow says so). Returns the rest, or
 * NULL without digits. */
static const char *gnu_count(const char *text, uintmax_t *value, bool *overflow)
{
	while (isspace((unsigned char)*text))
		text++;
	if (*text == '+')
		text++;
	if (!isdigit((unsigned char)*text))
		return NULL;
	char *end;
	errno = 0;
	*value = strtoumax(text, &end, 10);
	*overflow = errno == ERANGE;
	return end;
}

/* What xstrtol_fatal() says of a SIZE that gpusort_parse_size() refused, by GNU sort
 * 9.1's rules (xstrtoumax with the suffixes below, then specify_sort_size's b and %):
 * no number at all, a number followed by something else, or a size too large. */
static enum number_trouble size_trouble(const char *text)
{
	const char *start = text;
	while (isspace((unsigned char)*start))
		start++;
	if (*start == '-')
		return NUMBER_INVALID;
	char *end;
	errno = 0;
	(void)strtoumax(text, &end, 10);
	bool overflow = errno == ERANGE;
	bool scaled = *end && strchr("EgGkKmMPtTYZ", *end);
	if (end == text && !scaled)
		return NUMBER_INVALID; /* a suffix alone counts one of it */
	if (*end == '\0')
		return NUMBER_TOO_LARGE;
	if (scaled)
		return end[1] ? NUMBER_BAD_SUFFIX : NUMBER_TOO_LARGE;
	/* b or % that end the text after a digit fail by their size alone */
	return !overflow && !end[1] && (*end == 'b' || *end == '%') ? NUMBER_TOO_LARGE : NUMBER_BAD_SUFFIX;
}

/* --parallel=N as GNU's specify_nthreads() reads it: a count past SIZE_MAX is SIZE_MAX,
 * zero is refused in words of its own. More threads than gpusort starts (4096) are
 * as many as it starts. */
static int parse_threads(const char *text, unsigned *threads)
{
	const char *digits = text;
	while (isspace((unsigned char)*digits))
		digits++;
	if (*digits == '-' || !isdigit((unsigned char)digits[*digits == '+']))
		return number_error(NUMBER_INVALID, "--parallel", text);
	char *end;
	errno = 0;
	uintmax_t value = strtoumax(digits, &end, 10);
	if (*end)
		return number_error(NUMBER_BAD_SUFFIX, "--parallel", text);
	if (errno == ERANGE || value > 4096)
		value = 4096;
	if (value == 0)
		return option_error("%s", "number in parallel must be nonzero");
	*threads = (unsigned)value;
	return 0;
}

static int parse_device(const char *text, int *device)
{
	size_t ordinal;
	if (strcmp(text, "auto") == 0)
		*device = GPUSORT_DEVICE_AUTO;
	else if (strcmp(text, "cpu") == 0)
		*device = GPUSORT_DEVICE_CPU;
	else if (parse_count(text, 0, &ordinal) == 0 && ordinal < 1024)
		*device = (int)ordinal;
	else
		return -EINVAL;
	return 0;
}

static int parse_separator(const char *text, int *separator)
{
	if (text[0] == '\0')
		return -EINVAL;
	if (strcmp(text, "\\0") == 0)
		*separator = '\0';
	else if (text[1] != '\0')
		return -E2BIG;
	else
		*separator = (unsigned char)text[0];
	return 0;
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

/* --key-field=TYPE:OFFSET[:SIZE][:asc|:desc] into a field; on a bad spec, what is wrong
 * with it in reason. (Whether it lies inside the record is gpusort_run()'s to say: the
 * record size may come later.) */
static int parse_key_field(const char *spec, struct gpusort_binary_key *field, char *reason, size_t size)
{
	char copy[256];
	if (strlen(spec) >= sizeof copy)
		return snprintf(reason, size, "too long"), -EINVAL;
	strcpy(copy, spec);
	char *parts[5];
	size_t count = 0;
	for (char *part = copy, *colon; part && count < 5; part = colon ? colon + 1 : NULL) {
		colon = strchr(part, ':');
		if (colon)
			*colon = '\0';
		parts[count++] = part;
	}
	memset(field, 0, sizeof *field);
	int found = find_name(parts[0], key_type_names, sizeof key_type_names / sizeof *key_type_names);
	if (found < 0)
		return snprintf(reason, size, "unknown type '%s' (expected u32, i32, u64, i64, f32, f64 or bytes)",
				parts[0]), -EINVAL;
	field->type = key_types[found];
	if (count < 2 || !parts[1][0])
		return snprintf(reason, size, "the offset is missing (TYPE:OFFSET[:SIZE][:asc|:desc])"), -EINVAL;
	if (parse_count(parts[1], 0, &field->offset) < 0)
		return snprintf(reason, size, "invalid offset '%s'", parts[1]), -EINVAL;
	size_t next = 2;
	if (next < count && parts[next][0] >= '0' && parts[next][0] <= '9') {
		if (parse_count(parts[next], 1, &field->size) < 0)
			return snprintf(reason, size, "invalid size '%s'", parts[next]), -EINVAL;
		next++;
	}
	if (next < count) {
		if (strcmp(parts[next], "desc") == 0)
			field->descending = 1;
		else if (strcmp(parts[next], "asc") != 0)
			return snprintf(reason, size, "'%s' is neither a size nor asc or desc", parts[next]), -EINVAL;
		next++;
	}
	if (next < count || count == 5)
		return snprintf(reason, size, "too many parts (TYPE:OFFSET[:SIZE][:asc|:desc])"), -EINVAL;
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

/* What the user set explicitly, for the checks after parsing. */
struct given {
	bool type, record_size, key_offset, key_size, key_field, key_file, text_key, text_only, separator;
	char text_only_option;
	char check; /* 'c' or 'C': the check asked for last (-c, -C, --check[=WORD]) */
};

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

/* The ordering letters GNU sort takes in a key, as many as lead text. */
static const char *ordering_letters_end(const char *text)
{
	return text + strspn(text, "bdfghiMnRrV");
}

/* One past a 0-origin count, saturating. */
static uintmax_t origin_one(uintmax_t value)
{
	return value == UINTMAX_MAX ? value : value + 1;
}

/* The obsolete key +POS1 [-POS2] (fields and characters counted from 0; -POS2 names
 * where the key stops: the end of field POS2 when its character is 0) as the KEYDEF
 * it means, into keydef. Returns 0 for a key, 1 when plus is no +POS1 (GNU then takes
 * it as a file, silently), 2 after reporting a bad -POS2. */
static int obsolete_keydef(const char *plus, const char *minus, char *keydef, size_t size)
{
	uintmax_t start_field, start_char = 0;
	bool saturated; /* as GNU: a count too large reads as the largest */
	const char *rest = gnu_count(plus + 1, &start_field, &saturated);
	if (rest && *rest == '.')
		rest = gnu_count(rest + 1, &start_char, &saturated);
	if (!rest || *ordering_letters_end(rest))
		return 1;
	int length = snprintf(keydef, size, "%ju.%ju%s", origin_one(start_field), origin_one(start_char), rest);
	if (!minus)
		return 0;
	uintmax_t end_field, end_char = 0;
	rest = gnu_count(minus + 1, &end_field, &saturated);
	if (*rest == '.') {
		const char *digits = rest + 1;
		rest = gnu_count(digits, &end_char, &saturated);
		if (!rest)
			return option_error_quoted("invalid number after '.': invalid count at start of %s", digits);
	}
	if (*ordering_letters_end(rest))
		return option_error_quoted("stray character in field spec: invalid field specification %s", minus);
	/* -B.0 stops at the end of field B (0-origin B-1, which -k calls B); -0 as -1 */
	if (end_char == 0)
		snprintf(keydef + length, size - (size_t)length, ",%ju%s", end_field ? end_field : 1, rest);
	else
		snprintf(keydef + length, size - (size_t)length, ",%ju.%ju%s", origin_one(end_field), end_char, rest);
	return 0;
}

/* Whether GNU sort 9 reads +POS1 as a key: unless _POSIX2_VERSION names POSIX 1003.1-2001
 * (200112 up to 200809, where +POS1 alone is a file), or when -POS2 follows and
 * POSIXLY_CORRECT is not set. */
static bool traditional_usage(void)
{
	const char *version = getenv("_POSIX2_VERSION");
	long value = 200809; /* the POSIX of GNU's build */
	if (version && *version) {
		char *end;
		long parsed = strtol(version, &end, 10);
		if (!*end)
			value = parsed;
	}
	return !(200112 <= value && value < 200809);
}

static int push_keydef(struct command_line *line, const char *keydef)
{
	if (push_string(&line->keys, &line->job.key_count, keydef) < 0)
		return -ENOMEM;
	line->job.keys = line->keys;
	return 0;
}

/* An operand: a file, or (the obsolete syntax) a key that +POS1 and perhaps the next
 * element, -POS2, make. Returns 0, or an exit status after a message. */
static int take_operand(int argc, char **argv, struct command_line *line, bool *traditional,
			bool posixly_correct, bool *text_key)
{
	const char *operand = argv[optind - 1];
	if (operand[0] == '+') {
		bool minus_pos = optind < argc && argv[optind][0] == '-' && isdigit((unsigned char)argv[optind][1]);
		*traditional |= minus_pos && !posixly_correct;
		if (*traditional) {
			char keydef[200];
			int found = obsolete_keydef(operand, minus_pos ? argv[optind] : NULL, keydef, sizeof keydef);
			if (found == 2)
				return 2;
			if (found == 0) {
				char *copy = strdup(keydef);
				if (!copy || push_string(&line->owned, &line->owned_count, copy) < 0) {
					free(copy);
					return usage_error("%s", "out of memory");
				}
				if (push_keydef(line, copy) < 0)
					return usage_error("%s", "out of memory");
				if (minus_pos)
					optind++;
				*text_key = true;
				return 0;
			}
		}
	}
	if (push_input(line, operand) < 0)
		return usage_error("%s", "out of memory");
	return 0;
}

static int parse_arguments(int argc, char **argv, struct command_line *line);

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
		return usage_error("%s", "out of memory");
	memcpy(args, argv, ((size_t)argc + 1) * sizeof *args);
	args[0] = (char *)"gpusort";
	int status = parse_arguments(argc, args, line);
	free(args);
	return status;
}

static int parse_arguments(int argc, char **argv, struct command_line *line)
{
	struct gpusort_job *job = &line->job;
	struct given given = {0};
	int error, found;
	bool posixly_correct = getenv("POSIXLY_CORRECT") != NULL;
	bool traditional = traditional_usage();

	/* 0, not 1: glibc's getopt then also forgets where it was inside a cluster of
	 * short options, which an earlier parse that stopped early (-bx) leaves behind and
	 * a second parse would otherwise continue in the old argv. */
	optind = 0;
	opterr = 1;
	for (;;) {
		/* Under POSIXLY_CORRECT, what follows a file is a file, as for GNU sort; but
		 * for its old exception, -o FILE after the files (traditional usage, no -c). */
		if (posixly_correct && job->input_count &&
		    !(traditional && !given.check && optind < argc && argv[optind][0] == '-' &&
		      argv[optind][1] == 'o' && (argv[optind][2] || optind + 1 != argc)))
			break;
		int long_index = -1;
		int option = getopt_long(argc, argv, short_options, long_options_for_next(argc, argv), &long_index);
		if (option == -1)
			break;
		switch (option) {
		case 1:
			if ((error = take_operand(argc, argv, line, &traditional, posixly_correct, &given.text_key)))
				return error;
			break;
		case 'b': case 'd': case 'f': case 'g': case 'h': case 'i': case 'M': case 'n': case 'R': case 'V':
			job->ordering |= ordering_bit((char)option);
			given.text_only = true;
			given.text_only_option = (char)option;
			break;
		case OPT_SORT: {
			static const char *const words[] = {"general-numeric", "human-numeric", "month", "numeric",
							    "random", "version"};
			int letter = match_word(optarg, words, "ghMnRV", 6);
			if (letter < 0)
				return invalid_word(optarg, "--sort", words, 6, letter == -2);
			job->ordering |= ordering_bit((char)letter);
			given.text_only = true;
			given.text_only_option = (char)letter;
			break;
		}
		case 'r':
			job->reverse = 1;
			break;
		case 'k': {
			char message[1024];
			if (gpusort_keydef_check(optarg, message, sizeof message) == GPUSORT_OK) {
				if (push_keydef(line, optarg) < 0)
					return usage_error("%s", "out of memory");
				given.text_key = true;
			} else if (strcmp(optarg, "-") != 0 && access(optarg, F_OK) != 0) {
				/* Neither a KEYDEF nor a file (nor standard input): GNU sort's
				 * words on what is wrong with it as a key (no pointer to --help). */
				return option_error("%s", message);
			} else {
				if (push_input(line, optarg) < 0)
					return usage_error("%s", "out of memory");
				given.key_file = true;
			}
			break;
		}
		case 't': {
			int previous = job->separator;
			error = parse_separator(optarg, &job->separator);
			if (error == -E2BIG)
				return option_error_quoted("multi-character tab %s", optarg);
			if (error)
				return option_error("%s", "empty tab");
			if (given.separator && previous != job->separator)
				return option_error("%s", "incompatible tabs");
			given.separator = true;
			given.text_only = true;
			given.text_only_option = 't';
			break;
		}
		case 's':
			job->stable = 1;
			break;
		case 'u':
			job->unique = 1;
			break;
		case 'c':
		case 'C':
			if (set_check(job, &given, (char)option))
				return 2;
			break;
		case OPT_CHECK: {
			static const char *const words[] = {"quiet", "silent", "diagnose-first"};
			static const char *const listed[] = {"quiet", "=silent", "diagnose-first"};
			int letter = optarg ? match_word(optarg, words, "CCc", 3) : 'c';
			if (letter < 0)
				return invalid_word(optarg, "--check", listed, 3, letter == -2);
			if (set_check(job, &given, (char)letter))
				return 2;
			break;
		}
		case 'm':
			job->merge = 1;
			break;
		case 'z':
			job->zero_terminated = 1;
			given.text_only = true;
			given.text_only_option = 'z';
			break;
		case 'o':
			if (job->output && strcmp(job->output, optarg) != 0)
				return option_error("%s", "multiple output files specified");
			job->output = optarg;
			break;
		case 'S': {
			size_t bytes;
			if (gpusort_parse_size(optarg, &bytes) != GPUSORT_OK)
				return number_error(size_trouble(optarg), long_index >= 0 ? "--buffer-size" : "-S", optarg);
			/* as GNU: several sizes are the largest, whatever their order; and 0 is
			 * the smallest budget (the job's 0 would be the default) */
			if (bytes == 0)
				bytes = 1;
			if (bytes > job->memory_budget)
				job->memory_budget = bytes;
			break;
		}
		case 'y':
			/* GNU's hidden -y, for old Solaris scripts: ignored with its argument,
			 * but a separate argument that is not all digits (none at all is) is
			 * read again, as an operand or an option, as GNU sort reads it */
			if (optarg == argv[optind - 1] && optarg[strspn(optarg, "0123456789")] != '\0')
				optind--;
			break;
		case 'T':
			if (push_string(&line->temp_dirs, &job->temp_dir_count, optarg) < 0)
				return usage_error("%s", "out of memory");
			job->temp_dirs = line->temp_dirs;
			break;
		case OPT_PARALLEL:
			if (parse_threads(optarg, &job->threads))
				return 2;
			break;
		case OPT_BATCH_SIZE:
			if (parse_batch_size(optarg, &job->batch_size))
				return 2;
			break;
		case OPT_FILES0_FROM:
			job->files0_from = optarg;
			break;
		case OPT_RANDOM_SOURCE:
			if (job->random_source && strcmp(job->random_source, optarg) != 0)
				return option_error("%s", "multiple random sources specified");
			job->random_source = optarg;
			break;
		case OPT_TYPE:
			found = find_name(optarg, key_type_names, sizeof key_type_names / sizeof *key_type_names);
			if (found < 0)
				return usage_error("invalid --type '%s' (expected u32, i32, u64, i64, f32, f64 or bytes)", optarg);
			job->key.type = key_types[found];
			given.type = true;
			break;
		case OPT_RECORD_SIZE:
			if (parse_count(optarg, 1, &job->record_size) < 0)
				return usage_error("invalid --record-size '%s' (expected a positive number of bytes)", optarg);
			given.record_size = true;
			break;
		case OPT_KEY_OFFSET:
			if (parse_count(optarg, 0, &job->key.offset) < 0)
				return usage_error("invalid --key-offset '%s'", optarg);
			given.key_offset = true;
			break;
		case OPT_KEY_SIZE:
			if (parse_count(optarg, 1, &job->key.size) < 0)
				return usage_error("invalid --key-size '%s' (expected a positive number of bytes)", optarg);
			given.key_size = true;
			break;
		case OPT_KEY_FIELD: {
			struct gpusort_binary_key field;
			char reason[160];
			if (parse_key_field(optarg, &field, reason, sizeof reason) < 0) {
				fprintf(stderr, "gpusort: invalid key field specification '%s': %s\n", optarg, reason);
				command_line_usage_hint();
				return 2;
			}
			if (push_key_field(line, &field) < 0)
				return usage_error("%s", "out of memory");
			given.key_field = true;
			break;
		}
		case OPT_DEVICE:
			if (parse_device(optarg, &job->device) < 0)
				return usage_error("invalid --device '%s' (expected auto, cpu or a device number)", optarg);
			break;
		case OPT_GPU_MEMORY:
			if (gpusort_parse_size(optarg, &job->gpu_memory) != GPUSORT_OK)
				return usage_error("invalid --gpu-memory '%s'", optarg);
			break;
		case OPT_ALGORITHM:
			found = find_name(optarg, algorithm_names, sizeof algorithm_names / sizeof *algorithm_names);
			if (found < 0)
				return usage_error("invalid --algorithm '%s' (expected bucket, sample, radix, bitonic or quick)", optarg);
			job->algorithm = algorithms[found];
			break;
		case OPT_STATS:
			job->stats = 1;
			break;
		case OPT_NO_VERIFY:
			job->verify = 0;
			break;
		case OPT_PROGRESS:
			job->progress = 1;
			break;
		case OPT_VERBOSE:
			job->verbose = 1;
			break;
		case OPT_DEBUG:
			job->debug = 1;
			break;
		case OPT_COMPRESS_PROGRAM:
			/* GNU sort's rule: the same PROG again is fine, another is not */
			if (job->compress_program && strcmp(job->compress_program, optarg) != 0)
				return option_error("%s", "multiple compress programs specified");
			job->compress_program = optarg;
			break;
		case OPT_HELP:
			print_help();
			return 1;
		case OPT_VERSION:
			print_version();
			return 1;
		default: /* getopt_long has said what is wrong */
			command_line_usage_hint();
			return 2;
		}
	}
	for (int i = optind; i < argc; i++)
		if (push_input(line, argv[i]) < 0)
			return usage_error("%s", "out of memory");

	if (given.type || given.record_size || given.key_offset || given.key_size || given.key_field ||
	    given.key_file) {
		int status = finish_binary(line, &given);
		if (status)
			return status;
	}
	return check_operands(line, &given);
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
