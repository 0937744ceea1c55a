/* SPDX-License-Identifier: MIT */
/* --help: the usage line, the options by group and the notes on KEYDEF, SIZE, exit
 * status and MPI, each group its own function. Options start a line (after blanks)
 * and continuation lines never do: bash-completion's _parse_help reads the options
 * from this text (completion/gpusort.bash). */
#include "config.h"
#include <stdio.h>
#include "help.h"

static void help_usage(void)
{
	fputs(
"Usage: gpusort [OPTION]... [FILE]...\n"
"  or:  gpusort -k INPUT.bin -o OUTPUT.bin [OPTION]...\n"
"Sort lines of text, or fixed-size binary records, of FILEs (standard input\n"
"when none, or when FILE is -) and write the result to standard output, or\n"
"with -o to a file.  The sort runs on a CUDA GPU when there is one, on CPU\n"
"threads otherwise, with the same output; inputs larger than memory are sorted\n"
"in runs spilled to temp files.\n"
"\n",
	stdout);
}

static void help_binary(void)
{
	fputs(
"Binary records (little-endian keys; records travel whole; the sort is stable):\n"
"      --type=TYPE          key type: u32 i32 u64 i64 f32 f64, or bytes (memcmp\n"
"                           order); default u32, or bytes when --key-size is\n"
"                           given\n"
"      --record-size=N      bytes per record (default: the key size)\n"
"      --key-offset=N       key position inside each record (default 0)\n"
"      --key-size=N         key bytes (default: the type's size; for bytes, the\n"
"                           rest of the record)\n"
"      --key-field=TYPE:OFFSET[:SIZE][:asc|:desc]  a field of a composite key\n"
"                           (database ORDER BY), repeatable: records order by\n"
"                           the first field, then the second, ...; each\n"
"                           ascending, or descending with :desc; SIZE: a bytes\n"
"                           field's length (default: the rest of the record);\n"
"                           needs --record-size; not with --type, --key-offset\n"
"                           or --key-size.  -r reverses every field's\n"
"                           direction; -u keeps the first of records equal in\n"
"                           every field\n"
"  Floats: -0.0 equals +0.0; NaNs sort after every number (first with -r).\n"
"\n"
"The -k rule: an argument of -k that parses as a KEYDEF\n"
"(F[.C][OPTS][,F[.C][OPTS]]) is a text key; any other argument names an input\n"
"file and selects binary mode, with key type u32 unless --type says otherwise:\n"
"  gpusort -k input.bin -o out.bin\n"
"\n",
	stdout);
}

static void help_text_ordering(void)
{
	fputs(
"Text ordering options (as GNU sort, in the locale: LC_ALL, LC_COLLATE, LANG):\n"
"  -b, --ignore-leading-blanks  ignore leading blanks\n"
"  -d, --dictionary-order      consider only blanks and alphanumeric characters\n"
"  -f, --ignore-case           fold lower case to upper case characters\n"
"  -g, --general-numeric-sort  compare according to general numerical value\n"
"  -h, --human-numeric-sort    compare human readable numbers (e.g., 2K 1G)\n"
"  -i, --ignore-nonprinting    consider only printable characters\n"
"  -M, --month-sort            compare (unknown) < 'JAN' < ... < 'DEC'\n"
"  -n, --numeric-sort          compare according to string numerical value\n"
"  -R, --random-sort           shuffle, but group identical keys: a keyed hash\n"
"                              of each key orders them (ties by the key's bytes)\n"
"      --random-source=FILE    take the hash's salt from FILE's first 16 bytes:\n"
"                              the same FILE gives the same order (with every\n"
"                              engine, -S and -m); without it each run draws a\n"
"                              new salt\n"
"  -V, --version-sort          natural sort of (version) numbers within text\n"
"      --sort=WORD             sort according to WORD:\n"
"                                general-numeric -g, human-numeric -h, month -M,\n"
"                                numeric -n, random -R, version -V\n"
"  -k, --key=KEYDEF            sort via a key; KEYDEF gives location and type\n"
"  -t, --field-separator=SEP   use SEP instead of non-blank to blank transition\n"
"  -s, --stable                disable last-resort comparison\n"
"  -z, --zero-terminated       line delimiter is NUL, not newline\n"
"      --files0-from=F         read input from the files named by NUL-terminated\n"
"                              names in file F (- for standard input)\n"
"      --debug                 annotate the part of the line used to sort, and\n"
"                              warn about questionable usage to stderr, as GNU\n"
"                              sort 9.1 does; not with -c, -C or -o\n"
"      --header[=N]            the first N lines (default 1) of each input are a\n"
"                              header: the first input's is written first, as\n"
"                              it is; the others' are dropped\n"
"      --csv[=WORD]            records and fields as RFC 4180 reads them: fields\n"
"                              split at -t SEP (default ','), a field in double\n"
"                              quotes may hold SEP, \"\" and newlines; -k compares\n"
"                              a field's content, quotes removed; a malformed\n"
"                              record is an error (WORD strict, the default);\n"
"                              lenient: every quote opens or closes a quoted\n"
"                              part wherever it stands\n"
"\n",
	stdout);
}

static void help_common(void)
{
	fputs(
"Common options:\n"
"  -r, --reverse               reverse the result of comparisons\n"
"  -u, --unique                output only the first of an equal run\n"
"  -c, --check, --check=diagnose-first  check for sorted input; do not sort\n"
"  -C, --check=quiet, --check=silent  like -c, but do not report first bad line\n"
"  -m, --merge                 merge already sorted files; do not sort\n"
"      --batch-size=NMERGE     merge at most NMERGE inputs at once (at least 2);\n"
"                              for more use temp files\n"
"      --compress-program=PROG  compress temporaries with PROG;\n"
"                              decompress them with PROG -d (default: zstd\n"
"                              in-process; with PROG the last merge is\n"
"                              sequential)\n"
"  -o, --output=FILE           write result to FILE instead of standard output;\n"
"                              FILE may be an input; a symbolic link's target is\n"
"                              written; /dev/stdout, /dev/fd/N: that descriptor\n"
"  -S, --buffer-size=SIZE      use SIZE for the main memory budget\n"
"  -T, --temporary-directory=DIR  use DIR for temporaries, not $TMPDIR or /tmp;\n"
"                              multiple options specify multiple directories\n"
"      --parallel=N            use N CPU threads (default: the online cores,\n"
"                              fewer under a small -S)\n",
	stdout);
}

static void help_engine(void)
{
	fputs(
"      --device=auto|cpu|N     sort on the first GPU if any (auto), on CPU\n"
"                              threads, or on CUDA device N (auto sorts text\n"
"                              below 1 GiB, and binary input whose keys take\n"
"                              below 256 MiB, on the CPU: a GPU would take\n"
"                              longer to start)\n"
"      --gpu-memory=SIZE       device memory to use (default: most of what is\n"
"                              free)\n"
"      --algorithm=NAME        bucket (default), sample, radix, bitonic or\n"
"                              quick; without a GPU every one runs as the CPU\n"
"                              bucket sort (the output is the same)\n"
"      --stats                 print per-stage times and bytes to standard error\n"
"      --no-verify             skip the self-check every sort makes of its\n"
"                              output (order, count, and a checksum of the\n"
"                              records)\n"
"      --progress              show a progress line on a terminal\n"
"      --verbose               print notes (device choice, fallbacks) to stderr\n"
"      --help                  display this help and exit\n"
"      --version               output version information and exit\n"
"\n",
	stdout);
}

static void help_notes(void)
{
	fputs(
"KEYDEF is F[.C][OPTS][,F[.C][OPTS]] for start and stop position, where F is a\n"
"field number and C a character position in the field; both are origin 1, and\n"
"the stop position defaults to the line's end.  OPTS is one or more\n"
"single-letter ordering options [bdfghiMnRrV], which override global ordering\n"
"options for that key.  With --csv and --header, F may be a column's name in\n"
"brackets, [NAME], as the header's first record names it: -k '[price],[price]n'.\n"
"\n"
"SIZE may be followed by the following multiplicative suffixes:\n"
"% 1% of memory, b 1, K 1024 (default), and so on for M, G, T, P, E, Z, Y.\n"
"\n"
"Exit status: 0 done; 1 with -c or -C when the input is not in order; 2 trouble\n"
"(bad option or input, I/O error).  The output file changes only when the sort\n"
"succeeds, and temp files are removed on any exit.  Where FILE is copied into,\n"
"not renamed over (more than one link, another owner, a directory you may not\n"
"write), room for the copy is reserved first (a full disk leaves FILE as it\n"
"was), and SIGINT, SIGTERM, SIGHUP and SIGPIPE wait for its end; SIGKILL or an\n"
"I/O error during the copy can leave FILE new up to some byte and old after it.\n"
"\n"
"Under MPI (mpirun -np N gpusort ...; built with Open MPI) the N ranks sort the\n"
"inputs together, each its share with its own engine, and write the output one\n"
"process would write; -c, -C, -m, --debug, --header and --csv run on rank 0\n"
"while the others wait.\n",
	stdout);
}

void help_print(void)
{
	help_usage();
	help_binary();
	help_text_ordering();
	help_common();
	help_engine();
	help_notes();
}
