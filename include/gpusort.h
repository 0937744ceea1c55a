/* SPDX-License-Identifier: MIT */
/*
 * gpusort.h: the public C API of libgpusort, the library behind the gpusort command.
 *
 * The comments in this file are the reference manual; the section-3 man pages
 * (gpusort(3) and one page per call) say the same at more length.
 *
 * libgpusort sorts text lines, as GNU sort does in the process's locale (C unless
 * the program called setlocale; read when a job starts), and fixed-size binary
 * records by a binary key, on a CUDA GPU when there is one and on CPU threads
 * otherwise (same output, byte for byte). Inputs larger than memory are sorted in
 * chunks, spilled as compressed runs to temporary files and merged.
 *
 * Two ways in:
 *   - gpusort_run() runs a whole job, as the command line does: files or descriptors
 *     in, a file or descriptor out, text keys or a binary key, -c/-C checks, -m
 *     merges. Fill a struct gpusort_job with gpusort_job_init(), set what differs
 *     from the defaults, and pass it.
 *   - gpusort_sort_records() sorts a caller's buffer of fixed-size records in place,
 *     stably, by a binary key of one or more fields, as a job's key_fields.
 *
 * Conventions (one for every call):
 *   - A call returns an int: GPUSORT_OK (0) on success, a negative GPUSORT_ERROR_*
 *     code on failure, and, only from gpusort_run() with a check mode, the positive
 *     GPUSORT_DISORDER when the input is not in order. gpusort_is_error() tells
 *     errors from the rest; gpusort_error_name() names any code.
 *   - Structs that callers fill (struct gpusort_job, struct gpusort_sort_options)
 *     start with a size field that their init function sets to the size the caller
 *     was compiled with, so that later versions of the library can add fields at the
 *     end and still run programs built against this header. struct
 *     gpusort_binary_key has reserved space instead, which must be zero.
 *   - gpusort_run() reports what went wrong once, in the command's words ("FILE:
 *     reason"), to the job's message callback or else on standard error
 *     ("gpusort: FILE: reason"), and returns the code: the errno value of the system
 *     error behind it where there is one. gpusort_sort_records() prints nothing.
 *   - Calls are thread-safe: jobs and buffer sorts may run at once on threads of one
 *     process, each with its own job, options and buffer.
 *   - Everything the library exports starts with gpusort_ (functions) or GPUSORT_
 *     (macros and enumerators).
 */
#ifndef GPUSORT_H
#define GPUSORT_H

#include <errno.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*-************************************
 *  Version
 **************************************/

#define GPUSORT_VERSION_MAJOR 1
#define GPUSORT_VERSION_MINOR 0
#define GPUSORT_VERSION_PATCH 0

/* MAJOR * 10000 + MINOR * 100 + PATCH: 1.0.0 is 10000. Compare it with
 * gpusort_version_number() to tell the header a program was built with from the
 * library it runs with. */
#define GPUSORT_VERSION_NUMBER \
	(GPUSORT_VERSION_MAJOR * 10000 + GPUSORT_VERSION_MINOR * 100 + GPUSORT_VERSION_PATCH)

#define GPUSORT_QUOTE(text) #text
#define GPUSORT_EXPAND_AND_QUOTE(text) GPUSORT_QUOTE(text)
/* "1.0.0" */
#define GPUSORT_VERSION_STRING \
	GPUSORT_EXPAND_AND_QUOTE(GPUSORT_VERSION_MAJOR) "." \
	GPUSORT_EXPAND_AND_QUOTE(GPUSORT_VERSION_MINOR) "." \
	GPUSORT_EXPAND_AND_QUOTE(GPUSORT_VERSION_PATCH)

/* The library's GPUSORT_VERSION_NUMBER and GPUSORT_VERSION_STRING, as it was built. */
unsigned gpusort_version_number(void);
const char *gpusort_version_string(void);

/*-************************************
 *  Results and errors
 **************************************/

#define GPUSORT_OK 0
/* gpusort_run() with GPUSORT_CHECK_DIAGNOSE or GPUSORT_CHECK_QUIET: the input is not
 * in order (the command's exit status 1). Not an error. */
#define GPUSORT_DISORDER 1

/* Every result below zero is an error: a negative errno value, what the system said
 * when the job failed (-ENOENT: an input that does not exist, -ENOSPC: a full file
 * system, -EACCES, -EMFILE, -ENOMEM, ...), or one of gpusort's own codes below, all
 * under -4095, where no errno value lies. */
enum gpusort_error {
	/* A NULL where a pointer is needed, an enumerator or flag this version does not
	 * know, a negative descriptor, a record size of 0. */
	GPUSORT_ERROR_INVALID_ARGUMENT = -EINVAL,
	/* Memory for the job could not be allocated. */
	GPUSORT_ERROR_NO_MEMORY = -ENOMEM,
	/* A struct whose size field was not set by its init function, or that was built
	 * with a newer header and sets fields this library does not have. */
	GPUSORT_ERROR_STRUCT_SIZE = -10001,
	/* Settings that contradict each other, as the command's usage errors: a binary key
	 * outside the record, a key size that does not match the key type, text keys or
	 * text options in a binary job, several inputs or an output with a check mode,
	 * inputs besides files0_from. The message says which (the command adds "Try
	 * 'gpusort --help'"). */
	GPUSORT_ERROR_USAGE = -10002,
	/* A text key that is not a KEYDEF (gpusort_keydef_check() says why). */
	GPUSORT_ERROR_KEYDEF = -10003,
	/* The job failed for a reason that is no system error: incompatible ordering
	 * options, a --compress-program that failed, a temporary file that does not read
	 * back as written, a device that cannot sort. The message says which. */
	GPUSORT_ERROR_FAILED = -10004,
	/* gpusort_sort_records(): the CUDA device asked for (a device number) cannot be
	 * used, or cannot hold the items: no device, a driver too old, a build without
	 * CUDA. GPUSORT_DEVICE_AUTO never fails this way: it falls back to the CPU. */
	GPUSORT_ERROR_DEVICE = -10005,
	/* The self-check found the sorted output out of order or not the input's records
	 * (a bug of the library): "internal error: ...". */
	GPUSORT_ERROR_INTERNAL = -10006
};

/* Nonzero when code is an error: below zero. */
int gpusort_is_error(int code);

/* A short text for any result: "no error", "input out of order"; for a negative errno
 * value the system's description of it ("No such file or directory"); "struct size
 * mismatch", "usage error", "invalid key definition", "sort failed", "device
 * unavailable", "internal error (self-check failed)"; or "unknown error code". Never
 * NULL; a static string, the same in every thread. */
const char *gpusort_error_name(int code);

/*-************************************
 *  Shared settings
 **************************************/

/* Binary key types. Keys are little-endian; BYTES compares as memcmp. Floats: -0.0
 * equals +0.0, and every NaN sorts after every number (first when descending). */
enum gpusort_key_type {
	GPUSORT_KEY_U32,
	GPUSORT_KEY_I32,
	GPUSORT_KEY_U64,
	GPUSORT_KEY_I64,
	GPUSORT_KEY_F32,
	GPUSORT_KEY_F64,
	GPUSORT_KEY_BYTES
};

/* The algorithm the engine sorts with (--algorithm). Every one gives the same
 * output; without a GPU each runs as the CPU bucket sort. */
enum gpusort_algorithm {
	GPUSORT_ALGORITHM_BUCKET,  /* deterministic sample sort (Dehne and Zaboli); default */
	GPUSORT_ALGORITHM_SAMPLE,  /* Fine Sample Sort: randomized splitters */
	GPUSORT_ALGORITHM_RADIX,   /* LSD radix sort */
	GPUSORT_ALGORITHM_BITONIC, /* bitonic sorting network */
	GPUSORT_ALGORITHM_QUICK    /* GPU quicksort */
};

/* Device numbers (--device): GPUSORT_DEVICE_AUTO sorts on the first CUDA device when
 * there is one and the input is large enough to repay starting it, else on CPU
 * threads; GPUSORT_DEVICE_CPU only on CPU threads; 0, 1, ... on that CUDA device,
 * which fails when it cannot be used. */
#define GPUSORT_DEVICE_AUTO (-1)
#define GPUSORT_DEVICE_CPU (-2)

/* One binary key of a fixed-size record, or one field of a composite key
 * (gpusort_job.key_fields). All zero is a valid key: a u32 at offset 0. */
struct gpusort_binary_key {
	enum gpusort_key_type type; /* default GPUSORT_KEY_U32 */
	int descending;             /* nonzero: largest first (ties still keep input order) */
	size_t offset;              /* the key's first byte in the record; default 0 */
	size_t size;                /* key bytes; 0: the type's size (4 or 8), and for
	                               GPUSORT_KEY_BYTES the rest of the record. A nonzero
	                               size for a numeric type must be the type's size. */
	size_t reserved[4];         /* must be zero */
};

/*-************************************
 *  Jobs: gpusort_run()
 **************************************/

enum gpusort_mode {
	GPUSORT_MODE_TEXT,   /* lines (or NUL-terminated records with zero_terminated) */
	GPUSORT_MODE_BINARY  /* fixed-size records of record_size bytes */
};

/* -c, -C: check the one input instead of sorting it. */
enum gpusort_check {
	GPUSORT_CHECK_NONE,     /* sort (default) */
	GPUSORT_CHECK_DIAGNOSE, /* -c: report the first line out of order on stderr */
	GPUSORT_CHECK_QUIET     /* -C: say nothing, only return GPUSORT_DISORDER */
};

/* Text ordering options (global; a KEYDEF carries its own letters). Bits of
 * gpusort_job.ordering. */
#define GPUSORT_ORDER_IGNORE_LEADING_BLANKS (1u << 0) /* -b */
#define GPUSORT_ORDER_DICTIONARY            (1u << 1) /* -d */
#define GPUSORT_ORDER_IGNORE_CASE           (1u << 2) /* -f */
#define GPUSORT_ORDER_GENERAL_NUMERIC       (1u << 3) /* -g */
#define GPUSORT_ORDER_HUMAN_NUMERIC         (1u << 4) /* -h */
#define GPUSORT_ORDER_IGNORE_NONPRINTING    (1u << 5) /* -i */
#define GPUSORT_ORDER_MONTH                 (1u << 6) /* -M */
#define GPUSORT_ORDER_NUMERIC               (1u << 7) /* -n */
#define GPUSORT_ORDER_VERSION               (1u << 8) /* -V */
/* -R: a random order that keeps equal keys together: keys order by a 64-bit keyed hash
 * of the key (as -d, -i and -f leave it, and in a collating locale of its collation
 * image), the salt read from gpusort_job.random_source or else drawn at random; keys
 * whose hashes tie compare by those bytes. */
#define GPUSORT_ORDER_RANDOM                (1u << 9)

/* gpusort_job.separator's default: fields are separated by the empty string between a
 * non-blank and a blank, as GNU sort without -t. */
#define GPUSORT_SEPARATOR_BLANKS (-1)

/* One input: a file name, or (name NULL) a descriptor open for reading. The name "-"
 * is standard input. A descriptor is read as it is, never opened again: a regular file
 * from the descriptor's offset, a pipe or socket as a stream; messages name it
 * /dev/fd/N. The caller keeps it open and closes it. */
struct gpusort_input {
	const char *name;
	int fd;
};

/* Everything a sort, merge or check needs; the command's options map to fields one to
 * one (noted on the right). Fill it with gpusort_job_init(), then set fields. The
 * library only reads it, and keeps no pointer into it after gpusort_run() returns. */
/* gpusort_job.csv's modes. */
#define GPUSORT_CSV_STRICT 1
#define GPUSORT_CSV_LENIENT 2

struct gpusort_job {
	size_t size; /* sizeof (struct gpusort_job) as the caller compiled it (gpusort_job_init) */

	enum gpusort_mode mode; /* default GPUSORT_MODE_TEXT */

	/* Inputs, in order; none: standard input. */
	const struct gpusort_input *inputs;
	size_t input_count;
	/* --files0-from=F: read the input names, NUL-terminated, from the file F ("-":
	 * standard input) instead; inputs must then be empty. NULL: unused. */
	const char *files0_from;

	/* -o FILE: the output file; it may name an input. It changes only when the sort
	 * has succeeded, keeping its mode, owner, extended attributes and hard links.
	 * NULL: write to output_fd instead. */
	const char *output;
	/* Where to write when output is NULL: a descriptor open for writing, written from
	 * its current offset; default 1 (standard output). The caller closes it. */
	int output_fd;

	/* Text mode. */
	const char *const *keys; /* -k KEYDEF, in order: GNU's F[.C][OPTS][,F[.C][OPTS]];
	                            with csv and header_lines F may be [NAME], a column's
	                            name in the first header record */
	size_t key_count;
	unsigned ordering;       /* GPUSORT_ORDER_* bits: -b -d -f -g -h -i -M -n -V */
	int separator;           /* -t: a byte 0..255, or GPUSORT_SEPARATOR_BLANKS (default) */
	int zero_terminated;     /* -z: lines end in NUL, not newline */
	int stable;              /* -s: no last-resort comparison of whole lines */

	/* Binary mode. */
	size_t record_size;      /* --record-size; 0: key.offset + the key's size */
	struct gpusort_binary_key key; /* --type, --key-offset, --key-size; its descending
	                                  must be 0 (the direction is reverse) */

	/* Both modes. */
	int reverse;             /* -r: the one direction switch of the whole order (with
	                            key_fields: every field's direction flipped) */
	int unique;              /* -u: output only the first of equal keys */
	enum gpusort_check check; /* -c, -C */
	int merge;               /* -m: the inputs are sorted already; merge them */
	size_t memory_budget;    /* -S in bytes; 0: a default share of physical memory */
	const char *const *temp_dirs; /* -T, used in turn; none: $TMPDIR, else /tmp */
	size_t temp_dir_count;
	int device;              /* --device: GPUSORT_DEVICE_AUTO (default), _CPU, or N */
	unsigned threads;        /* --parallel; 0: the online cores */
	size_t gpu_memory;       /* --gpu-memory in bytes; 0: most of the free memory */
	enum gpusort_algorithm algorithm; /* --algorithm; default GPUSORT_ALGORITHM_BUCKET */
	int verify;              /* default 1: the sort checks its own output (order, count,
	                            checksum); 0: --no-verify */
	int stats;               /* --stats: per-stage times and bytes on standard error */
	int progress;            /* --progress: a progress line when stderr is a terminal */
	int verbose;             /* --verbose: notes (device choice, fallbacks) on stderr */

	/* Fields added after the first release: a caller built with an older header has
	 * them zero, their default (see "Conventions" above). */
	size_t batch_size;       /* --batch-size: merge at most this many runs, or -m inputs,
	                            at once (at least 2), in passes through temporary
	                            files for more; 0 (default): as many as memory allows */

	/* A composite key (--key-field, repeatable), binary mode: records order by the
	 * first field, records equal there by the second, and so on (database ORDER BY),
	 * each field ascending or, with its descending set, descending; records equal in
	 * every field keep their input order, and unique keeps the first of them. reverse
	 * reverses the whole order (every field's direction). Each field is a
	 * struct gpusort_binary_key whose size is 0 or its type's size (bytes: 0 is the rest
	 * of the record). It needs record_size, and key must keep its default. NULL, 0
	 * (default): the one key above. */
	const struct gpusort_binary_key *key_fields;
	size_t key_field_count;

	/* --random-source=FILE: the salt of the random order (-R, GPUSORT_ORDER_RANDOM, or
	 * an R in a key) is the file's first 16 bytes, so that the same file gives the same
	 * order, whatever the engine, memory budget or merge; NULL (default): a new salt
	 * from getrandom() each run. Read only when a key is random; a file shorter than 16
	 * bytes is an error ("'FILE': end of file"). */
	const char *random_source;

	/* --debug: GNU sort's notes on standard error before a text sort or merge (the
	 * locale's ordering, keys and options that may not act as meant), and each output
	 * line shown with its tabs as '>' and a newline, followed by a line per key that
	 * underlines what the key compares ("^ no match for key" where it is empty or holds
	 * no number) and one for the last-resort comparison. Not with check, nor with an
	 * output file (output): GNU sort refuses those. Text mode only. */
	int debug;

	/* --compress-program=PROG: each temporary file (a spilled run) is written through
	 * PROG (its standard input the run's bytes, its standard output the file) and read
	 * back through `PROG -d`, as GNU sort does; PROG is looked up on PATH. A PROG that
	 * cannot be started or ends with a status other than 0 fails the sort. Such runs
	 * are read from their start only, so the last merge is one sequential merge rather
	 * than the parallel one over key ranges. NULL (default): zstd in-process. */
	const char *compress_program;

	/* Nonzero: this process opens no CUDA device but the one this job sorts on (the
	 * device asked for; under mpirun, the local rank's), in this job or a later one,
	 * so the CUDA driver is started knowing of that device alone: CUDA_VISIBLE_DEVICES
	 * is set to its number, unless the environment sets it already. On a machine of
	 * several GPUs the driver then starts several times faster (4 GPUs: 0.19 s instead
	 * of 0.8-1.0 s). Device numbers keep their meaning. The gpusort command sets it.
	 * 0 (default): every device stays visible. */
	int one_device;

	/* Where the job's messages go. Each one, worded as the command words it but
	 * without its "gpusort: " prefix and newline ("cannot read: in.txt: No such file
	 * or directory", "write failed: out: No space left on device"), is passed as text
	 * to message(message_context, text), one call at a time, from whichever of the
	 * job's threads met it; text lives until the call returns, and message must not
	 * start a job. Errors and the notes of verbose and debug come this way; the
	 * tables of stats and the progress line stay on standard error. NULL (default):
	 * standard error, each message as a line "gpusort: TEXT". */
	void (*message)(void *context, const char *text);
	void *message_context;

	/* --header[=N]: the first header_lines lines of each input are a header, not
	 * records. The first input's are written first, unchanged (a last one without its
	 * terminator given one); each later input's are dropped, under merge too. check
	 * checks the lines after them (a disorder's line number counts them), unique never
	 * drops them. Text mode only; under mpirun, rank 0 sorts such a job alone. 0
	 * (default): no header. */
	size_t header_lines;

	/* --csv: records and fields as RFC 4180 reads them, separated by separator (','
	 * when it is GPUSORT_SEPARATOR_BLANKS; never '"', CR or LF): a field enclosed in
	 * double quotes may hold the separator, "" (one quote) and newlines, so one
	 * record may span lines; a CR before a record's LF ends it. keys count CSV
	 * fields and compare their content, quotes removed and "" read as ", to which
	 * every ordering option applies as to an unquoted field's bytes. Records are
	 * written back byte for byte. A malformed record (an unclosed quote at the end,
	 * a quote inside an unquoted field, a byte after a closing quote other than the
	 * separator or the record's end) fails the job: "FILE:LINE: malformed CSV
	 * record: WHAT", GPUSORT_ERROR_FAILED, nothing written. Text mode only; not with
	 * zero_terminated or debug; under mpirun rank 0 sorts such a job alone. With
	 * header_lines, the header is that many records. 0 (default): lines.
	 * GPUSORT_CSV_LENIENT reads a malformed record as best it can instead: every
	 * double quote opens or closes a quoted part of its field wherever it stands,
	 * "" inside quotes is one quote, a CR not before the record's LF is content, and
	 * an unclosed quote runs to the end of the input, which ends the record. */
	int csv;
};

/* Sets every field of job to its default (above) and job->size to job_size, which
 * must be sizeof *job as the caller compiled it:
 *
 *     struct gpusort_job job;
 *     gpusort_job_init(&job, sizeof job);
 *
 * Returns GPUSORT_OK, or GPUSORT_ERROR_STRUCT_SIZE when job_size is smaller than any
 * version of the struct (job is then untouched). */
int gpusort_job_init(struct gpusort_job *job, size_t job_size);

/* Runs the job: sorts (or with check, checks; with merge, merges) its inputs into its
 * output. Returns
 *   GPUSORT_OK               done (for a check: the input is in order);
 *   GPUSORT_DISORDER         a check found the input out of order;
 *   a negative errno value   the system error that failed the job, the first one
 *                            met: -ENOENT for a missing input, -EACCES, -EISDIR,
 *                            -ENOSPC or -EDQUOT for a full output or temporary
 *                            directory, -EBADF for a closed output, -ENOMEM, -EMFILE,
 *                            -EIO, -EBADMSG for a temporary file read back corrupted;
 *   GPUSORT_ERROR_USAGE      the job's settings contradict each other;
 *   GPUSORT_ERROR_KEYDEF     a text key is not a KEYDEF;
 *   GPUSORT_ERROR_INTERNAL   the self-check found a fault;
 *   GPUSORT_ERROR_FAILED     a failure that is no system error (see its enumerator);
 *   GPUSORT_ERROR_INVALID_ARGUMENT, GPUSORT_ERROR_STRUCT_SIZE  as everywhere.
 * Every problem is reported once, in the command's words, naming the file and the
 * reason, to job->message (standard error by default) before gpusort_run() returns;
 * nothing is said on success unless stats, verbose or debug ask. On an error the output
 * file is as it was and every temporary file is removed.
 *
 * The process's signals and exit hooks stay as the caller set them, and its CUDA
 * context too (a job lets go of its own streams and memory, and never resets the
 * device): the job removes its own temporary files before it returns, whatever it
 * returns. Jobs may run at
 * once on threads of one process, each with its own job struct: a job's messages,
 * cause, temporary files and settings are its own.
 *
 * Also returns -ECANCELED: gpusort_cancel() stopped the job. */
int gpusort_run(const struct gpusort_job *job);

/* Stops the job that gpusort_run(job) is running on another thread: the job stops at
 * its next step (a read, a block written, a run merged; a read waiting on an idle pipe
 * or socket within milliseconds), says nothing more, removes its temporary files,
 * leaves its output file as it was, and gpusort_run() returns -ECANCELED. A job
 * already replacing its output file finishes instead, and returns what it would have;
 * text already written to an output descriptor stays written. Returns GPUSORT_OK when
 * the job was running, -ESRCH when it was not (finished, or never started). */
int gpusort_cancel(const struct gpusort_job *job);

/* For a program whose process the jobs are (the gpusort command calls it): handlers
 * for SIGINT, SIGTERM, SIGHUP and SIGPIPE (those not ignored) that remove the running
 * job's temporary files and then end the process as the signal would, the same removal
 * registered with atexit(), and SIGINT, SIGTERM and SIGHUP taken from now on by a
 * thread of gpusort's, which removes the files within milliseconds, whatever the job's
 * threads are doing. The signals are blocked in the calling thread, and so in every
 * thread started from it afterwards: call it first, before other threads start.
 * Returns GPUSORT_OK, or the negative errno of pthread_create (-EAGAIN) when no thread
 * could be started (the handlers then act alone, on whichever thread the signal meets).
 * The process being the jobs', a job's GPU context is then destroyed as soon as its
 * sorts are done, beside the output's write, rather than at exit. */
int gpusort_signals_thread(void);

/*-************************************
 *  In memory: gpusort_sort_records()
 **************************************/

/* How gpusort_sort_records() runs. NULL options means all defaults. */
struct gpusort_sort_options {
	size_t size;                      /* sizeof as compiled (gpusort_sort_options_init) */
	int device;                       /* default GPUSORT_DEVICE_AUTO */
	unsigned threads;                 /* CPU threads; 0 (default): the online cores */
	size_t gpu_memory;                /* device bytes to use; 0: most of the free memory */
	enum gpusort_algorithm algorithm; /* default GPUSORT_ALGORITHM_BUCKET */
	int verify;                       /* default 1: check order and contents afterwards */
};

/* Sets the defaults above and options->size to options_size (sizeof *options).
 * Returns GPUSORT_OK or GPUSORT_ERROR_STRUCT_SIZE. */
int gpusort_sort_options_init(struct gpusort_sort_options *options, size_t options_size);

/* Sorts count records of record_size bytes each, starting at records, in place, by the
 * key_field_count fields at key, as a job's key_fields order them: by the first field,
 * records equal there by the second, and so on, each field ascending or, with its
 * descending set, descending; stably: records equal in every field keep their order.
 * One field is the common case (key_field_count 1). The records travel whole. Nothing
 * is printed.
 *
 * Besides the records, it needs 8, 12 or 16 bytes per record for the sort items and,
 * unless the records are bare integer keys (a u32, i32, u64 or i64 key that is the
 * whole record), room for a copy of the records. With GPUSORT_DEVICE_AUTO a
 * buffer whose items take less than 256 MiB is sorted on CPU threads (a GPU takes
 * longer to start than they take to finish), larger ones on the GPU when it can hold
 * them. Thread-safe: calls on different buffers may run at once.
 *
 * Returns GPUSORT_OK; GPUSORT_ERROR_INVALID_ARGUMENT (records NULL with count > 0,
 * key NULL, key_field_count 0, record_size 0, a field outside the record, a field size
 * that does not match its type, nonzero reserved fields, an unknown type, algorithm or
 * device);
 * GPUSORT_ERROR_STRUCT_SIZE; GPUSORT_ERROR_NO_MEMORY; GPUSORT_ERROR_DEVICE; or
 * GPUSORT_ERROR_INTERNAL. On an error the records are as they were, except after a
 * failed sort of bare integer keys, which are sorted in the buffer itself: they are
 * all there, perhaps partly reordered. */
int gpusort_sort_records(void *records, size_t count, size_t record_size,
			 const struct gpusort_binary_key *key, size_t key_field_count,
			 const struct gpusort_sort_options *options);

/*-************************************
 *  Helpers for front ends
 **************************************/

/* Whether keydef is a valid GNU sort KEYDEF, F[.C][OPTS][,F[.C][OPTS]] (OPTS from
 * bdfghiMnRrV). Returns GPUSORT_OK, or GPUSORT_ERROR_KEYDEF with GNU sort's message in
 * message (when message_size > 0), e.g. "field number is zero: invalid field
 * specification '0'"; GPUSORT_ERROR_INVALID_ARGUMENT for a NULL keydef. */
int gpusort_keydef_check(const char *keydef, char *message, size_t message_size);

/* text quoted for a message as GNU sort's quote() shows an argument, in the current
 * locale: 'text', or with curly quotes in a UTF-8 locale; a backslash before a backslash
 * or the closing quote; \t-style escapes for control characters and octal ones for
 * bytes the locale cannot print. Writes at most size bytes (NUL included) to buffer
 * and returns it. */
const char *gpusort_quote(const char *text, char *buffer, size_t size);

/* Parses a SIZE as GNU sort's -S does: a number with an optional suffix b (bytes), K,
 * M, G, T, P, E, Z, Y (powers of 1024; K when there is none) or % (of physical
 * memory). Returns GPUSORT_OK with *bytes set, or GPUSORT_ERROR_INVALID_ARGUMENT for
 * bad syntax or a size past SIZE_MAX. */
int gpusort_parse_size(const char *text, size_t *bytes);

#ifdef __cplusplus
}
#endif

#endif /* GPUSORT_H */
