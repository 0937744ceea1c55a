/* SPDX-License-Identifier: MIT */
/* libgpusort through its public header only, linked with the shared library: versions,
 * result names, the struct size rules, the front-end parsers, gpusort_sort_records
 * against a stable qsort for every key type, and gpusort_run on files and descriptors
 * (binary, composite keys, text, -c, -m, -u, usage errors, a missing input) against the
 * same oracle. */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <gpusort.h>
#include "tests/distributions.h"
#include "tests/tap.h"

static char work[] = "/tmp/gpusort-library.XXXXXX";
static uint64_t random_state = 12;

static char *work_path(const char *name)
{
	static char paths[8][512];
	static int next;
	char *path = paths[next++ % 8];
	snprintf(path, sizeof paths[0], "%s/%s", work, name);
	return path;
}

/* stderr into a file while a call runs, so that its messages can be read back. */
static int saved_stderr = -1;

static void stderr_capture(void)
{
	fflush(stderr);
	saved_stderr = dup(2);
	int fd = open(work_path("stderr"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
}

/* Restores stderr and returns what was written meanwhile (static). */
static const char *stderr_release(void)
{
	static char text[4096];
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	FILE *file = fopen(work_path("stderr"), "r");
	size_t got = file ? fread(text, 1, sizeof text - 1, file) : 0;
	text[got] = '\0';
	if (file)
		fclose(file);
	return text;
}

/* ---- the oracle: a stable sort of records by one binary key ---- */

struct oracle_key {
	const struct gpusort_binary_key *key;
	size_t key_size;
	const unsigned char *records;
	size_t record_size;
};
static struct oracle_key oracle;

/* -1, 0, 1 for two keys in ascending order: floats with -0.0 == +0.0, NaN last. */
static int compare_keys(const unsigned char *a, const unsigned char *b)
{
	switch (oracle.key->type) {
#define NUMERIC(kind, type) \
	case kind: { \
		type x, y; \
		memcpy(&x, a, sizeof x); \
		memcpy(&y, b, sizeof y); \
		return (x > y) - (x < y); \
	}
	NUMERIC(GPUSORT_KEY_U32, uint32_t)
	NUMERIC(GPUSORT_KEY_I32, int32_t)
	NUMERIC(GPUSORT_KEY_U64, uint64_t)
	NUMERIC(GPUSORT_KEY_I64, int64_t)
#undef NUMERIC
#define FLOATING(kind, type) \
	case kind: { \
		type x, y; \
		memcpy(&x, a, sizeof x); \
		memcpy(&y, b, sizeof y); \
		if (isnan(x) || isnan(y)) \
			return isnan(x) - isnan(y); \
		return (x > y) - (x < y); \
	}
	FLOATING(GPUSORT_KEY_F32, float)
	FLOATING(GPUSORT_KEY_F64, double)
#undef FLOATING
	default: {
		int c = memcmp(a, b, oracle.key_size);
		return (c > 0) - (c < 0);
	}
	}
}

static int compare_positions(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	const unsigned char *ka = oracle.records + a * oracle.record_size + oracle.key->offset;
	const unsigned char *kb = oracle.records + b * oracle.record_size + oracle.key->offset;
	int c = compare_keys(ka, kb);
	if (oracle.key->descending)
		c = -c;
	return c ? c : (a > b) - (a < b);
}

/* The records of buffer in the stable order, into out. */
static void oracle_sort(const unsigned char *records, size_t n, size_t record_size,
			const struct gpusort_binary_key *key, unsigned char *out)
{
	size_t key_size = key->size ? key->size
			: key->type == GPUSORT_KEY_BYTES ? record_size - key->offset
			: key->type == GPUSORT_KEY_U32 || key->type == GPUSORT_KEY_I32 || key->type == GPUSORT_KEY_F32 ? 4 : 8;
	oracle = (struct oracle_key){key, key_size, records, record_size};
	size_t *positions = malloc((n ? n : 1) * sizeof *positions);
	for (size_t i = 0; i < n; i++)
		positions[i] = i;
	qsort(positions, n, sizeof *positions, compare_positions);
	for (size_t i = 0; i < n; i++)
		memcpy(out + i * record_size, records + positions[i] * record_size, record_size);
	free(positions);
}

/* Records of random bytes with few distinct keys (ties whose order the rest of the
 * record shows); floats get NaNs and both zeros. */
static void make_records(unsigned char *records, size_t n, size_t record_size,
			 const struct gpusort_binary_key *key)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char *record = records + i * record_size;
		for (size_t b = 0; b < record_size; b++)
			record[b] = (unsigned char)random_next(&random_state);
		unsigned char *k = record + key->offset;
		uint64_t r = random_next(&random_state) % 64;
		if (key->type == GPUSORT_KEY_F32) {
			float v = r == 0 ? NAN : r == 1 ? -0.0f : r == 2 ? 0.0f : (float)((int)r - 30) / 4;
			memcpy(k, &v, sizeof v);
		} else if (key->type == GPUSORT_KEY_F64) {
			double v = r == 0 ? NAN : r == 1 ? -0.0 : r == 2 ? 0.0 : (double)((int)r - 30) / 4;
			memcpy(k, &v, sizeof v);
		} else if (key->type == GPUSORT_KEY_BYTES) {
			size_t size = key->size ? key->size : record_size - key->offset;
			memset(k, 'a' + (int)(r % 3), size);
			k[size - 1] = (unsigned char)('a' + r % 5); /* ties past any 8-byte prefix */
		} else {
			uint64_t v = (uint64_t)(((int64_t)r - 32) * 0x0101010101010101ll);
			memcpy(k, &v, key->type == GPUSORT_KEY_U32 || key->type == GPUSORT_KEY_I32 ? 4 : 8);
		}
	}
}

static bool records_sort_right(size_t n, size_t record_size, const struct gpusort_binary_key *key,
			       const struct gpusort_sort_options *options)
{
	size_t bytes = n * record_size;
	unsigned char *records = malloc(bytes + 1), *expect = malloc(bytes + 1);
	make_records(records, n, record_size, key);
	oracle_sort(records, n, record_size, key, expect);
	int code = gpusort_sort_records(records, n, record_size, key, 1, options);
	bool right = code == GPUSORT_OK && memcmp(records, expect, bytes) == 0;
	if (code != GPUSORT_OK)
		tap_diag("gpusort_sort_records: %s", gpusort_error_name(code));
	free(records);
	free(expect);
	return right;
}

static const char *const type_names[] = {"u32", "i32", "u64", "i64", "f32", "f64", "bytes"};

static void test_sort_records(void)
{
	struct gpusort_sort_options cpu;
	gpusort_sort_options_init(&cpu, sizeof cpu);
	cpu.device = GPUSORT_DEVICE_CPU;
	for (int type = GPUSORT_KEY_U32; type <= GPUSORT_KEY_BYTES; type++) {
		size_t type_size = type == GPUSORT_KEY_BYTES ? 10 : type == GPUSORT_KEY_U32 ||
				   type == GPUSORT_KEY_I32 || type == GPUSORT_KEY_F32 ? 4 : 8;
		for (int descending = 0; descending <= 1; descending++) {
			struct gpusort_binary_key key = {.type = type, .descending = descending};
			/* bare keys, keys with a payload, a key inside the record */
			tap_ok(records_sort_right(5000, type_size, &key, NULL), "%s%s bare keys", type_names[type],
			       descending ? " descending" : "");
			tap_ok(records_sort_right(20000, type_size + 12, &key, &cpu), "%s%s records of %zu bytes",
			       type_names[type], descending ? " descending" : "", type_size + 12);
			key.offset = 3;
			tap_ok(records_sort_right(3000, type_size + 7, &key, &cpu), "%s%s key at offset 3",
			       type_names[type], descending ? " descending" : "");
		}
	}
	struct gpusort_binary_key bytes_key = {.type = GPUSORT_KEY_BYTES, .offset = 2, .size = 16};
	tap_ok(records_sort_right(10000, 24, &bytes_key, &cpu), "16-byte keys whose 8-byte prefixes tie");
	bytes_key.size = 3;
	cpu.threads = 1;
	cpu.algorithm = GPUSORT_ALGORITHM_RADIX;
	tap_ok(records_sort_right(10000, 5, &bytes_key, &cpu), "3-byte keys, one thread, --algorithm=radix");
	struct gpusort_binary_key u32 = {.type = GPUSORT_KEY_U32};
	tap_ok(records_sort_right(0, 4, &u32, NULL) && records_sort_right(1, 4, &u32, NULL),
	       "no records, one record");

	/* what is refused, leaving the records alone */
	unsigned char records[64] = {3, 0, 0, 0, 1};
	struct gpusort_binary_key beyond = {.type = GPUSORT_KEY_U64, .offset = 4};
	struct gpusort_binary_key mismatch = {.type = GPUSORT_KEY_U32, .size = 8};
	struct gpusort_binary_key reserved = {.type = GPUSORT_KEY_U32, .reserved = {1}};
	struct gpusort_binary_key unknown = {.type = (enum gpusort_key_type)99};
	tap_ok(gpusort_sort_records(records, 8, 8, &beyond, 1, NULL) == GPUSORT_ERROR_INVALID_ARGUMENT &&
	       gpusort_sort_records(records, 8, 8, &mismatch, 1, NULL) == GPUSORT_ERROR_INVALID_ARGUMENT &&
	       gpusort_sort_records(records, 8, 8, &reserved, 1, NULL) == GPUSORT_ERROR_INVALID_ARGUMENT &&
	       gpusort_sort_records(records, 8, 8, &unknown, 1, NULL) == GPUSORT_ERROR_INVALID_ARGUMENT &&
	       gpusort_sort_records(records, 8, 0, &u32, 1, NULL) == GPUSORT_ERROR_INVALID_ARGUMENT &&
	       gpusort_sort_records(records, 8, 8, NULL, 1, NULL) == GPUSORT_ERROR_INVALID_ARGUMENT &&
	       gpusort_sort_records(NULL, 8, 8, &u32, 1, NULL) == GPUSORT_ERROR_INVALID_ARGUMENT &&
	       records[0] == 3 && records[4] == 1,
	       "keys outside the record, size mismatches, reserved fields, NULLs are refused");
	struct gpusort_sort_options small = {.size = 4};
	tap_ok(gpusort_sort_records(records, 8, 8, &u32, 1, &small) == GPUSORT_ERROR_STRUCT_SIZE,
	       "options whose size was not set by gpusort_sort_options_init are refused");
	/* a newer header's options: larger, zero past ours */
	struct {
		struct gpusort_sort_options options;
		uint64_t newer_field;
	} newer;
	gpusort_sort_options_init(&newer.options, sizeof newer);
	tap_ok(gpusort_sort_records(records, 8, 8, &u32, 1, &newer.options) == GPUSORT_OK,
	       "a newer header's larger options run while their new fields are unset");
	newer.newer_field = 1;
	tap_ok(gpusort_sort_records(records, 8, 8, &u32, 1, &newer.options) == GPUSORT_ERROR_STRUCT_SIZE,
	       "and are refused when one is set");

	/* a device number: the GPU's sort where there is one, else GPUSORT_ERROR_DEVICE */
	struct gpusort_sort_options gpu;
	gpusort_sort_options_init(&gpu, sizeof gpu);
	gpu.device = 0;
	unsigned char keys[4000], before[4000];
	struct gpusort_binary_key u32_key = {.type = GPUSORT_KEY_U32};
	make_records(keys, 1000, 4, &u32_key);
	memcpy(before, keys, sizeof keys);
	int code = gpusort_sort_records(keys, 1000, 4, &u32_key, 1, &gpu);
	if (code == GPUSORT_ERROR_DEVICE)
		tap_ok(memcmp(keys, before, sizeof keys) == 0, "--device=0 without a usable GPU: %s, records untouched",
		       gpusort_error_name(code));
	else
		tap_ok(code == GPUSORT_OK, "--device=0 sorts on the GPU");
}

/* The engine's self-check: GPUSORT_FAULT (set before the first call) spoils the first
 * sort's items; the call must fail and leave the records as they were. */
static void test_self_check(void)
{
	struct gpusort_binary_key key = {.type = GPUSORT_KEY_U32};
	unsigned char records[16 * 1000], before[sizeof records];
	make_records(records, 1000, 16, &key);
	memcpy(before, records, sizeof records);
	int code = gpusort_sort_records(records, 1000, 16, &key, 1, NULL);
	tap_ok(code == GPUSORT_ERROR_INTERNAL && memcmp(records, before, sizeof records) == 0,
	       "a fault planted after the engine is caught (%s), the records untouched", gpusort_error_name(code));
	tap_ok(records_sort_right(1000, 16, &key, NULL), "the next sort is right again");
}

static void test_small_calls(void)
{
	tap_ok(gpusort_version_number() == GPUSORT_VERSION_NUMBER &&
	       strcmp(gpusort_version_string(), GPUSORT_VERSION_STRING) == 0,
	       "the library's version is the header's (%s)", gpusort_version_string());
	tap_ok(strcmp(GPUSORT_VERSION_STRING, PACKAGE_VERSION) == 0, "and the package's (%s)", PACKAGE_VERSION);
	bool named = true;
	const int codes[] = {GPUSORT_OK, GPUSORT_DISORDER, GPUSORT_ERROR_INVALID_ARGUMENT, GPUSORT_ERROR_NO_MEMORY,
			     GPUSORT_ERROR_STRUCT_SIZE, GPUSORT_ERROR_USAGE, GPUSORT_ERROR_KEYDEF, GPUSORT_ERROR_FAILED,
			     GPUSORT_ERROR_DEVICE, GPUSORT_ERROR_INTERNAL, -ENOENT, -ENOSPC, -EBADMSG};
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
		named = named && strcmp(gpusort_error_name(codes[i]), "unknown error code") != 0;
		named = named && (gpusort_is_error(codes[i]) != 0) == (codes[i] < 0);
	}
	tap_ok(named && strcmp(gpusort_error_name(-5000), "unknown error code") == 0 &&
	       strcmp(gpusort_error_name(GPUSORT_ERROR_FAILED), "sort failed") == 0 &&
	       strcmp(gpusort_error_name(-ENOENT), "No such file or directory") == 0 &&
	       GPUSORT_ERROR_INVALID_ARGUMENT == -EINVAL && GPUSORT_ERROR_NO_MEMORY == -ENOMEM,
	       "every result has a name, an errno value the system's; gpusort_is_error is true for the negative ones");
	char message[256];
	tap_ok(gpusort_keydef_check("2,2nr", message, sizeof message) == GPUSORT_OK &&
	       gpusort_keydef_check("1.3b,1.5", NULL, 0) == GPUSORT_OK, "KEYDEFs are accepted");
	tap_ok(gpusort_keydef_check("0", message, sizeof message) == GPUSORT_ERROR_KEYDEF &&
	       strcmp(message, "field number is zero: invalid field specification '0'") == 0,
	       "a bad KEYDEF gets GNU's words: %s", message);
	size_t bytes = 0, other = 0;
	tap_ok(gpusort_parse_size("10K", &bytes) == GPUSORT_OK && bytes == 10240 &&
	       gpusort_parse_size("7", &other) == GPUSORT_OK && other == 7168 &&
	       gpusort_parse_size("1b", &other) == GPUSORT_OK && other == 1 &&
	       gpusort_parse_size("x", &other) == GPUSORT_ERROR_INVALID_ARGUMENT,
	       "SIZE as -S: K by default, b bytes, bad syntax refused");
	struct gpusort_job job;
	tap_ok(gpusort_job_init(&job, 8) == GPUSORT_ERROR_STRUCT_SIZE &&
	       gpusort_job_init(&job, sizeof job) == GPUSORT_OK && job.size == sizeof job &&
	       job.output_fd == 1 && job.separator == GPUSORT_SEPARATOR_BLANKS && job.verify == 1 &&
	       job.device == GPUSORT_DEVICE_AUTO && job.mode == GPUSORT_MODE_TEXT,
	       "gpusort_job_init: the size rule and the defaults");
}

/* ---- gpusort_run ---- */

static void write_file(const char *path, const void *data, size_t size)
{
	FILE *file = fopen(path, "wb");
	fwrite(data, 1, size, file);
	fclose(file);
}

/* The file's bytes (malloc'd) and size. */
static unsigned char *read_file(const char *path, size_t *size)
{
	FILE *file = fopen(path, "rb");
	*size = 0;
	if (!file)
		return NULL;
	unsigned char *data = NULL;
	size_t got, capacity = 0;
	do {
		capacity += 1 << 16;
		data = realloc(data, capacity);
		got = fread(data + *size, 1, capacity - *size, file);
		*size += got;
	} while (*size == capacity);
	fclose(file);
	return data;
}

static bool file_is(const char *path, const void *expect, size_t size)
{
	size_t got;
	unsigned char *data = read_file(path, &got);
	bool same = data && got == size && memcmp(data, expect, size) == 0;
	free(data);
	return same;
}

/* What a job's message callback was given: the first message, and how many came. */
struct said {
	char text[600];
	size_t count;
};

static void collect_message(void *context, const char *text)
{
	struct said *said = context;
	if (said->count++ == 0)
		snprintf(said->text, sizeof said->text, "%s", text);
}

static int run_quietly(const struct gpusort_job *job, const char **messages)
{
	stderr_capture();
	int code = gpusort_run(job);
	*messages = stderr_release();
	return code;
}

static void test_run_binary(void)
{
	enum { N = 30000, SIZE = 20 };
	struct gpusort_binary_key key = {.type = GPUSORT_KEY_I64, .offset = 8};
	unsigned char *records = malloc(N * SIZE), *expect = malloc(N * SIZE);
	make_records(records, N, SIZE, &key);
	oracle_sort(records, N, SIZE, &key, expect);
	write_file(work_path("records"), records, N * SIZE);

	struct gpusort_job job;
	gpusort_job_init(&job, sizeof job);
	struct gpusort_input input = {work_path("records"), -1};
	job.mode = GPUSORT_MODE_BINARY;
	job.inputs = &input;
	job.input_count = 1;
	job.output = work_path("sorted");
	job.record_size = SIZE;
	job.key = key;
	job.memory_budget = 256 << 10; /* spilled runs and a merge */
	job.temp_dirs = (const char *const[]){work};
	job.temp_dir_count = 1;
	const char *messages;
	int code = run_quietly(&job, &messages);
	tap_ok(code == GPUSORT_OK && file_is(job.output, expect, N * SIZE),
	       "binary records beyond -S: sorted like the oracle (%s)", gpusort_error_name(code));

	/* one direction switch: reverse; the key's own descending is refused */
	struct gpusort_binary_key down = key;
	down.descending = 1;
	unsigned char *expect_down = malloc(N * SIZE);
	oracle_sort(records, N, SIZE, &down, expect_down);
	job.reverse = 1;
	job.output = work_path("sorted-down");
	code = run_quietly(&job, &messages);
	tap_ok(code == GPUSORT_OK && file_is(job.output, expect_down, N * SIZE),
	       "reverse: the binary key largest first, ties in input order (%s)", gpusort_error_name(code));
	job.reverse = 0;
	job.key = down;
	job.output = work_path("never-descending");
	code = run_quietly(&job, &messages);
	tap_ok(code == GPUSORT_ERROR_USAGE && strstr(messages, "key.descending must be 0") &&
		       access(job.output, F_OK) != 0,
	       "key.descending set: refused, reverse is the switch: %.80s", messages);
	job.key = key;
	job.output = work_path("sorted");
	free(expect_down);

	/* descriptors: a regular file in, a file out at its offset after a header */
	int in = open(work_path("records"), O_RDONLY);
	int out = open(work_path("by-fd"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	(void)!write(out, "HEADER", 6);
	input = (struct gpusort_input){NULL, in};
	job.output = NULL;
	job.output_fd = out;
	job.memory_budget = 0;
	code = run_quietly(&job, &messages);
	close(in);
	close(out);
	unsigned char *with_header = malloc(6 + N * SIZE);
	memcpy(with_header, "HEADER", 6);
	memcpy(with_header + 6, expect, N * SIZE);
	tap_ok(code == GPUSORT_OK && file_is(work_path("by-fd"), with_header, 6 + N * SIZE),
	       "descriptors: a file read as given, written from the output's offset");
	free(with_header);

	/* an input descriptor is read from its offset, and a socket as a stream: used as
	 * given, never reopened by name (which restarts a file and refuses a socket) */
	enum { SKIP = 1000, SOCKET_N = 2000 };
	in = open(work_path("records"), O_RDONLY);
	lseek(in, SKIP * SIZE, SEEK_SET);
	input = (struct gpusort_input){NULL, in};
	job.output_fd = -1;
	job.output = work_path("from-offset");
	code = run_quietly(&job, &messages);
	off_t left_at = lseek(in, 0, SEEK_CUR);
	close(in);
	unsigned char *tail = malloc((N - SKIP) * SIZE);
	oracle_sort(records + SKIP * SIZE, N - SKIP, SIZE, &key, tail);
	tap_ok(code == GPUSORT_OK && file_is(job.output, tail, (N - SKIP) * SIZE) && left_at == SKIP * SIZE,
	       "an input descriptor at an offset: the records from there on, the offset left as it was (%s)",
	       gpusort_error_name(code));
	free(tail);
	int pair[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0) {
		int sndbuf = 4 << 20;
		setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
		ssize_t sent = write(pair[0], records, SOCKET_N * SIZE);
		shutdown(pair[0], SHUT_WR);
		unsigned char *head = malloc(SOCKET_N * SIZE);
		oracle_sort(records, SOCKET_N, SIZE, &key, head);
		input = (struct gpusort_input){NULL, pair[1]};
		job.output = work_path("from-socket");
		code = run_quietly(&job, &messages);
		tap_ok(sent == SOCKET_N * SIZE && code == GPUSORT_OK && file_is(job.output, head, SOCKET_N * SIZE),
		       "an input descriptor that is a socket: read as a stream (%s%s%.60s)", gpusort_error_name(code),
		       *messages ? ": " : "", messages);
		free(head);
		close(pair[0]);
		close(pair[1]);
	} else {
		tap_ok(0, "socketpair: %s", strerror(errno));
	}
	job.output = NULL;

	/* -c on the sorted output, and on the input */
	input = (struct gpusort_input){work_path("sorted"), -1};
	job.output_fd = 1;
	job.check = GPUSORT_CHECK_QUIET;
	tap_ok(gpusort_run(&job) == GPUSORT_OK, "-C: the sorted file is in order");
	input.name = work_path("records");
	code = run_quietly(&job, &messages);
	tap_ok(code == GPUSORT_DISORDER && !*messages, "-C: the input is not, and nothing is said");
	job.check = GPUSORT_CHECK_DIAGNOSE;
	code = run_quietly(&job, &messages);
	tap_ok(code == GPUSORT_DISORDER && strstr(messages, "disorder"), "-c: disorder, reported: %.60s",
	       messages);

	/* usage errors: the command's words, GPUSORT_ERROR_USAGE */
	job.check = GPUSORT_CHECK_NONE;
	job.output = work_path("never");
	job.key.offset = 16;
	code = run_quietly(&job, &messages);
	tap_ok(code == GPUSORT_ERROR_USAGE &&
	       strstr(messages, "gpusort: the key (offset 16, size 8) extends beyond the record (size 20)") &&
	       access(job.output, F_OK) != 0, "a key beyond the record: %.70s", messages);
	job.key.offset = 8;
	job.check = GPUSORT_CHECK_DIAGNOSE;
	code = run_quietly(&job, &messages);
	tap_ok(code == GPUSORT_ERROR_USAGE && strstr(messages, "gpusort: options '-co' are incompatible"),
	       "-c with an output: %.50s", messages);
	job.check = GPUSORT_CHECK_QUIET;
	code = run_quietly(&job, &messages);
	tap_ok(code == GPUSORT_ERROR_USAGE && strstr(messages, "gpusort: options '-Co' are incompatible"),
	       "-C with an output, named -C as GNU sort does: %.50s", messages);
	job.output = work_path("never"); /* afresh: run_quietly's own paths reuse work_path's buffers */
	job.check = GPUSORT_CHECK_NONE;
	input.name = work_path("missing");
	code = run_quietly(&job, &messages);
	tap_ok(code == -ENOENT && strstr(messages, "missing: No such file or directory") &&
	       access(job.output, F_OK) != 0, "a missing input: -ENOENT (%s), %.60s", gpusort_error_name(code), messages);

	/* the job's messages to its callback, not stderr, without the command's prefix */
	struct said said = {{0}, 0};
	job.message = collect_message;
	job.message_context = &said;
	code = run_quietly(&job, &messages);
	char expected[600];
	snprintf(expected, sizeof expected, "cannot read: %s: No such file or directory", input.name);
	tap_ok(code == -ENOENT && said.count == 1 && strcmp(said.text, expected) == 0 && !*messages,
	       "job.message: one call, '%.80s', nothing on stderr ('%.40s')", said.text, messages);
	input.name = work; /* a directory: EISDIR, after it has been opened */
	said.count = 0;
	code = run_quietly(&job, &messages);
	tap_ok(code == -EISDIR && said.count == 1 && strstr(said.text, "read failed: ") &&
	       strstr(said.text, "Is a directory") && !*messages,
	       "a directory as input: -EISDIR, '%.80s'", said.text);
	job.message = NULL;
	free(records);
	free(expect);
}

/* ---- composite keys: the oracle compares field by field, each in its direction ---- */

static const struct gpusort_binary_key *oracle_fields;
static size_t oracle_field_count;

static int compare_by_fields(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	for (size_t i = 0; i < oracle_field_count; i++) {
		const struct gpusort_binary_key *field = &oracle_fields[i];
		oracle.key = field;
		oracle.key_size = field->size;
		int c = compare_keys(oracle.records + a * oracle.record_size + field->offset,
				     oracle.records + b * oracle.record_size + field->offset);
		if (c)
			return field->descending ? -c : c;
	}
	return (a > b) - (a < b);
}

static void caller_handler(int signal_number)
{
	(void)signal_number;
}

/* The host process is the caller's: a job installs no handler (the caller's own stays,
 * the defaults stay default) and leaves no temp file, also when it fails after
 * spilling. */
static void test_host_process(void)
{
	struct sigaction mine = {.sa_handler = caller_handler}, seen;
	sigemptyset(&mine.sa_mask);
	sigaction(SIGTERM, &mine, NULL);
	enum { N = 40000, SIZE = 16 };
	unsigned char *records = malloc((size_t)N * SIZE);
	const struct gpusort_binary_key u64 = {.type = GPUSORT_KEY_U64};
	make_records(records, N, SIZE, &u64);
	write_file(work_path("host-in"), records, (size_t)N * SIZE);
	free(records);
	char *temp = work_path("host-tmp");
	mkdir(temp, 0700);
	struct gpusort_job job;
	gpusort_job_init(&job, sizeof job);
	struct gpusort_input inputs[] = {{work_path("host-in"), -1}, {temp, -1}};
	job.mode = GPUSORT_MODE_BINARY;
	job.key = u64;
	job.record_size = SIZE;
	job.inputs = inputs;
	job.input_count = 1;
	job.output = work_path("host-out");
	job.memory_budget = 256 << 10;
	job.temp_dirs = (const char *const[]){temp};
	job.temp_dir_count = 1;
	const char *messages;
	int spilled = run_quietly(&job, &messages);
	job.input_count = 2; /* the second, a directory, fails after the first has spilled */
	int failed = run_quietly(&job, &messages);
	bool kept = sigaction(SIGTERM, NULL, &seen) == 0 && seen.sa_handler == caller_handler;
	const int defaults[] = {SIGINT, SIGHUP, SIGPIPE};
	for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
		kept = kept && sigaction(defaults[i], NULL, &seen) == 0 && seen.sa_handler == SIG_DFL;
	DIR *dir = opendir(temp);
	size_t left = 0;
	for (struct dirent *e; dir && (e = readdir(dir));)
		left += e->d_name[0] != '.';
	if (dir)
		closedir(dir);
	tap_ok(spilled == GPUSORT_OK && failed == -EISDIR && strstr(messages, "Is a directory") && kept &&
		       left == 0,
	       "jobs (one spilled, one failing after its spill) leave the caller's signals as set and no temp file "
	       "(%s, %s, %zu left)",
	       gpusort_error_name(spilled), gpusort_error_name(failed), left);
	signal(SIGTERM, SIG_DFL);
}

static void test_run_composite(void)
{
	enum { N = 20000, SIZE = 24 };
	/* u32 at 0, then f64 at 4 descending, then 8 bytes at 12: an image of 20 bytes,
	 * whose ties past its first 8 the full comparison finishes */
	const struct gpusort_binary_key fields[] = {
		{.type = GPUSORT_KEY_U32, .offset = 0},
		{.type = GPUSORT_KEY_F64, .offset = 4, .descending = 1},
		{.type = GPUSORT_KEY_BYTES, .offset = 12, .size = 8},
	};
	static const double values[] = {1.5, -2.0, 0.0, -0.0, NAN, 1e300, -1e-300};
	unsigned char *records = malloc(N * SIZE), *expect = malloc(N * SIZE);
	size_t *positions = malloc(N * sizeof *positions);
	for (size_t i = 0; i < N; i++) {
		unsigned char *record = records + i * SIZE;
		uint32_t small = (uint32_t)(random_next(&random_state) % 5);
		double value = values[random_next(&random_state) % 7];
		memcpy(record, &small, 4);
		memcpy(record + 4, &value, 8);
		for (size_t b = 12; b < SIZE; b++)
			record[b] = b < 20 ? (unsigned char)(random_next(&random_state) % 2) : (unsigned char)(i >> (8 * (b - 20)));
		positions[i] = i;
	}
	oracle = (struct oracle_key){NULL, 0, records, SIZE};
	oracle_fields = fields;
	oracle_field_count = 3;
	qsort(positions, N, sizeof *positions, compare_by_fields);
	for (size_t i = 0; i < N; i++)
		memcpy(expect + i * SIZE, records + positions[i] * SIZE, SIZE);
	write_file(work_path("composite"), records, N * SIZE);

	struct gpusort_job job;
	gpusort_job_init(&job, sizeof job);
	struct gpusort_input input = {work_path("composite"), -1};
	job.mode = GPUSORT_MODE_BINARY;
	job.inputs = &input;
	job.input_count = 1;
	job.output = work_path("composite-sorted");
	job.record_size = SIZE;
	job.key_fields = fields;
	job.key_field_count = 3;
	job.memory_budget = 256 << 10;
	job.temp_dirs = (const char *const[]){work};
	job.temp_dir_count = 1;
	const char *messages;
	int code = run_quietly(&job, &messages);
	tap_ok(code == GPUSORT_OK && file_is(job.output, expect, N * SIZE),
	       "key_fields (u32, f64 descending, 8 bytes) beyond -S: sorted like the oracle (%s)",
	       gpusort_error_name(code));

	/* the same key in memory, on the CPU threads and (where there is one) the GPU */
	unsigned char *buffer = malloc(N * SIZE);
	struct gpusort_sort_options placed;
	gpusort_sort_options_init(&placed, sizeof placed);
	for (int device = GPUSORT_DEVICE_CPU; device <= 0; device += 2) {
		placed.device = device;
		memcpy(buffer, records, N * SIZE);
		code = gpusort_sort_records(buffer, N, SIZE, fields, 3, &placed);
		if (device == 0 && code == GPUSORT_ERROR_DEVICE) {
			tap_skip(1, "gpusort_sort_records with key fields on the GPU: no usable device");
			continue;
		}
		tap_ok(code == GPUSORT_OK && memcmp(buffer, expect, N * SIZE) == 0,
		       "gpusort_sort_records by the same three fields (%s): as the oracle, stably (%s)",
		       device == 0 ? "GPU 0" : "CPU", gpusort_error_name(code));
	}
	memcpy(buffer, records, N * SIZE);
	struct gpusort_binary_key outside[] = {fields[0], {.type = GPUSORT_KEY_U64, .offset = SIZE - 4}};
	tap_ok(gpusort_sort_records(buffer, N, SIZE, outside, 2, NULL) == GPUSORT_ERROR_INVALID_ARGUMENT &&
	       gpusort_sort_records(buffer, N, SIZE, fields, 0, NULL) == GPUSORT_ERROR_INVALID_ARGUMENT &&
	       memcmp(buffer, records, N * SIZE) == 0,
	       "gpusort_sort_records: a second field outside the record, or no field: invalid, the buffer untouched");
	free(buffer);

	job.output = work_path("never");
	job.key.offset = 4;
	code = run_quietly(&job, &messages);
	tap_ok(code == GPUSORT_ERROR_USAGE && strstr(messages, "cannot be combined with --type"),
	       "key_fields and a key: %.70s", messages);
	job.key.offset = 0;
	job.record_size = 18;
	code = run_quietly(&job, &messages);
	tap_ok(code == GPUSORT_ERROR_USAGE &&
	       strstr(messages, "invalid key field specification 'bytes:12:8': the field (bytes 12 to 19) "
			       "extends beyond the record (--record-size=18)") && access(job.output, F_OK) != 0,
	       "a field beyond the record: %.90s", messages);
	job.record_size = 0;
	code = run_quietly(&job, &messages);
	tap_ok(code == GPUSORT_ERROR_USAGE && strstr(messages, "needs --record-size"), "key_fields without record_size");
	struct gpusort_binary_key unknown = {.type = (enum gpusort_key_type)99};
	job.record_size = SIZE;
	job.key_fields = &unknown;
	job.key_field_count = 1;
	code = run_quietly(&job, &messages);
	tap_ok(code == GPUSORT_ERROR_INVALID_ARGUMENT, "a field of an unknown type: %s", gpusort_error_name(code));
	job.key_fields = fields;
	job.mode = GPUSORT_MODE_TEXT;
	code = run_quietly(&job, &messages);
	tap_ok(code == GPUSORT_ERROR_USAGE, "key_fields in a text job: %s", gpusort_error_name(code));
	free(positions);
	free(records);
	free(expect);
}

static int compare_lines(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	long nx = strtol(strchr(x, ',') + 1, NULL, 10), ny = strtol(strchr(y, ',') + 1, NULL, 10);
	if (nx != ny)
		return nx < ny ? 1 : -1; /* -k2,2nr */
	return strcmp(x, y); /* the last-resort comparison of whole lines */
}

/* A text job of one input, one key and an output file, the rest as gpusort_job_init
 * leaves it. */
static void text_job_init(struct gpusort_job *job, struct gpusort_input *input, const char *name,
			  const char **keys, const char *output)
{
	gpusort_job_init(job, sizeof *job);
	*input = (struct gpusort_input){work_path(name), -1};
	job->inputs = input;
	job->input_count = 1;
	job->output = work_path(output);
	job->keys = keys;
	job->key_count = 1;
}

/* A CSV job with a header, keyed by a column's name: the fields carry the separator,
 * "" and newlines; the header first, then the records by their amount, descending. */
static void test_run_csv(void)
{
	static const char input_text[] = "name,\"amount, EUR\"\n"
					 "\"b, \"\"x\"\"\",2\n"
					 "\"two\nlines\",10\n"
					 "a,-1\n";
	static const char expect[] = "name,\"amount, EUR\"\n"
				     "\"two\nlines\",10\n"
				     "\"b, \"\"x\"\"\",2\n"
				     "a,-1\n";
	write_file(work_path("people.csv"), input_text, sizeof input_text - 1);
	struct gpusort_job job;
	struct gpusort_input input;
	const char *keys[] = {"[amount, EUR],[amount, EUR]nr"};
	text_job_init(&job, &input, "people.csv", keys, "people-sorted.csv");
	job.csv = 1;
	job.header_lines = 1;
	const char *messages;
	int code = run_quietly(&job, &messages);
	tap_ok(code == GPUSORT_OK && file_is(job.output, expect, sizeof expect - 1),
	       "csv, header_lines and a key by column name: the header, then the records as read (%s)",
	       gpusort_error_name(code));
	keys[0] = "[price]";
	job.output = work_path("never.csv");
	code = run_quietly(&job, &messages);
	tap_ok(code == GPUSORT_ERROR_FAILED && strstr(messages, "unknown column 'price'") &&
		       strstr(messages, "(its columns: name, amount, EUR)") && access(job.output, F_OK) != 0,
	       "a key naming no column: the header's names in the message: %.90s", messages);
	write_file(work_path("bad.csv"), "a\nb,\"c\n", 7);
	input.name = work_path("bad.csv");
	job.header_lines = 0;
	job.key_count = 0;
	code = run_quietly(&job, &messages);
	tap_ok(code == GPUSORT_ERROR_FAILED && strstr(messages, "bad.csv:2: malformed CSV record: unclosed quote"),
	       "a malformed record: its file and line: %.90s", messages);
	job.csv = GPUSORT_CSV_LENIENT;
	job.output = work_path("lenient.csv");
	code = run_quietly(&job, &messages);
	tap_ok(code == GPUSORT_OK && file_is(job.output, "a\nb,\"c\n\n", 8),
	       "GPUSORT_CSV_LENIENT: the open quote runs to the end, which ends the record (%s)",
	       gpusort_error_name(code));
	job.csv = 3;
	code = run_quietly(&job, &messages);
	tap_ok(code == GPUSORT_ERROR_USAGE && strstr(messages, "GPUSORT_CSV_LENIENT"),
	       "csv 3: a usage error naming the modes: %.90s", messages);
}

static void test_run_text(void)
{
	enum { LINES = 2000 };
	char *lines[LINES], text[LINES * 24], expect[LINES * 24];
	size_t used = 0;
	for (int i = 0; i < LINES; i++) {
		lines[i] = malloc(24);
		snprintf(lines[i], 24, "w%02d,%d", (int)(random_next(&random_state) % 50),
			 (int)(random_next(&random_state) % 200) - 100);
		used += (size_t)sprintf(text + used, "%s\n", lines[i]);
	}
	write_file(work_path("text"), text, used);
	qsort(lines, LINES, sizeof *lines, compare_lines);
	size_t expect_used = 0;
	for (int i = 0; i < LINES; i++) {
		expect_used += (size_t)sprintf(expect + expect_used, "%s\n", lines[i]);
		free(lines[i]);
	}

	struct gpusort_job job;
	struct gpusort_input input;
	const char *keys[] = {"2,2nr"};
	text_job_init(&job, &input, "text", keys, "text-sorted");
	job.separator = ',';
	const char *messages;
	int code = run_quietly(&job, &messages);
	tap_ok(code == GPUSORT_OK && file_is(job.output, expect, expect_used), "text: -t, -k2,2nr like the oracle");

	/* -m of two sorted halves, -u on their whole lines */
	size_t half = 0;
	for (int i = 0; i < LINES / 2; i++)
		half += strcspn(expect + half, "\n") + 1;
	write_file(work_path("half1"), expect, half);
	write_file(work_path("half2"), expect + half, expect_used - half);
	struct gpusort_input halves[] = {{work_path("half2"), -1}, {work_path("half1"), -1}};
	job.inputs = halves;
	job.input_count = 2;
	job.merge = 1;
	job.output = work_path("merged");
	code = run_quietly(&job, &messages);
	tap_ok(code == GPUSORT_OK && file_is(job.output, expect, expect_used), "-m merges sorted inputs");

	keys[0] = "0";
	code = run_quietly(&job, &messages);
	tap_ok(code == GPUSORT_ERROR_KEYDEF && strstr(messages, "field number is zero"),
	       "a bad KEYDEF in a job: %s", gpusort_error_name(code));
	job.keys = NULL;
	job.key_count = 0;
	job.merge = 0;
	job.check = GPUSORT_CHECK_QUIET;
	code = run_quietly(&job, &messages);
	tap_ok(code == GPUSORT_ERROR_USAGE && strstr(messages, "extra operand"),
	       "-C with two inputs: %.60s", messages);
	job.check = GPUSORT_CHECK_NONE;
	job.batch_size = 1;
	code = run_quietly(&job, &messages);
	tap_ok(code == GPUSORT_ERROR_INVALID_ARGUMENT && strstr(messages, "batch_size"),
	       "a batch_size of 1: %s", gpusort_error_name(code));
	code = run_quietly(NULL, &messages);
	tap_ok(code == GPUSORT_ERROR_INVALID_ARGUMENT, "a NULL job: %s", gpusort_error_name(code));
}

/* GPUSORT_ORDER_RANDOM with a random_source: one file, one output, also spilled; and
 * debug: annotated lines to a descriptor, refused with an output file. */
static void test_run_random_and_debug(void)
{
	enum { LINES = 40000 };
	static char text[LINES * 8];
	size_t used = 0;
	for (int i = 0; i < LINES; i++)
		used += (size_t)sprintf(text + used, "k%d\n", (int)(random_next(&random_state) % 5000));
	write_file(work_path("random-in"), text, used);
	write_file(work_path("salt"), "0123456789abcdef", 16);
	struct gpusort_job job;
	gpusort_job_init(&job, sizeof job);
	struct gpusort_input input = {work_path("random-in"), -1};
	job.inputs = &input;
	job.input_count = 1;
	job.ordering = GPUSORT_ORDER_RANDOM;
	job.random_source = work_path("salt");
	job.output = work_path("random-1");
	const char *messages;
	int first = run_quietly(&job, &messages);
	job.output = work_path("random-2");
	job.memory_budget = 64 << 10; /* spilled runs and merges */
	int second = run_quietly(&job, &messages);
	size_t size1, size2;
	unsigned char *one = read_file(work_path("random-1"), &size1), *two = read_file(work_path("random-2"), &size2);
	tap_ok(first == GPUSORT_OK && second == GPUSORT_OK && one && two && size1 == used && size1 == size2 &&
	       memcmp(one, two, size1) == 0 && memcmp(one, text, used) != 0,
	       "random_source: the same order in memory and spilled, not the input's");
	free(one);
	free(two);
	job.random_source = work_path("no-such-salt");
	int code = run_quietly(&job, &messages);
	tap_ok(code == -ENOENT && strstr(messages, "open failed: ") && strstr(messages, "no-such-salt"),
	       "a missing random_source: %.70s", messages);

	write_file(work_path("debug-in"), "b\tx\na\n", 6);
	gpusort_job_init(&job, sizeof job);
	input.name = work_path("debug-in");
	job.inputs = &input;
	job.input_count = 1;
	job.debug = 1;
	job.output = work_path("debug-out");
	code = run_quietly(&job, &messages);
	tap_ok(code == GPUSORT_ERROR_USAGE && strstr(messages, "options '-o --debug' are incompatible"),
	       "debug with an output file: %.60s", messages);
	job.output = NULL;
	job.output_fd = open(work_path("debug-out"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	code = run_quietly(&job, &messages);
	close(job.output_fd);
	static const char annotated[] = "a\n_\nb>x\n___\n";
	tap_ok(code == GPUSORT_OK && file_is(work_path("debug-out"), annotated, sizeof annotated - 1) &&
	       strstr(messages, "text ordering performed using simple byte comparison"),
	       "debug: each line and its underline on the descriptor, the note on stderr");
}

int main(void)
{
	/* before the first call, which reads it: spoil the first sort's items only */
	setenv("GPUSORT_FAULT", "sort_swap:SHORT:1", 1);
	if (!mkdtemp(work)) {
		perror("mkdtemp");
		return 1;
	}
	test_self_check();
	test_small_calls();
	test_sort_records();
	test_run_binary();
	test_run_composite();
	test_run_text();
	test_run_csv();
	test_run_random_and_debug();
	test_host_process();
	char command[600];
	snprintf(command, sizeof command, "rm -rf '%s'", work);
	if (system(command) != 0)
		tap_diag("could not remove %s", work);
	return tap_done();
}
