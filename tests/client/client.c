/* SPDX-License-Identifier: MIT */
/* A program built the way a user of libgpusort builds one: against the installed
 * <gpusort.h>, with `pkg-config --cflags --libs gpusort`, and nothing from gpusort's
 * source tree. It sorts a file of records and a file of lines through gpusort_run and
 * a buffer through gpusort_sort_records, and checks each against qsort. TAP output;
 * the exit status is 0 when every check passed. Argument: a scratch directory. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gpusort.h>

static int checks, failures;

static void ok(int condition, const char *what)
{
	checks++;
	failures += !condition;
	printf("%sok %d - %s\n", condition ? "" : "not ", checks, what);
}

static uint64_t state = 88172645463325252ull;
static uint64_t next_random(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

static char *path_in(const char *dir, const char *name)
{
	size_t size = strlen(dir) + strlen(name) + 2;
	char *path = malloc(size);
	snprintf(path, size, "%s/%s", dir, name);
	return path;
}

static unsigned char *read_all(const char *path, size_t *size)
{
	FILE *file = fopen(path, "rb");
	unsigned char *data = NULL;
	*size = 0;
	if (!file)
		return NULL;
	if (fseek(file, 0, SEEK_END) == 0) {
		long end = ftell(file);
		rewind(file);
		data = malloc(end > 0 ? (size_t)end : 1);
		*size = fread(data, 1, (size_t)(end > 0 ? end : 0), file);
	}
	fclose(file);
	return data;
}

/* Records of 12 bytes: an i32 key at offset 4 and the record's position at 8, which
 * makes the stable order the order of (key, position). */
enum { RECORD = 12, RECORDS = 50000 };

static int32_t record_key(const unsigned char *record)
{
	int32_t key;
	memcpy(&key, record + 4, 4);
	return key;
}

static int compare_records(const void *a, const void *b)
{
	int32_t x = record_key(a), y = record_key(b);
	uint32_t i, j;
	if (x != y)
		return x < y ? -1 : 1;
	memcpy(&i, (const unsigned char *)a + 8, 4);
	memcpy(&j, (const unsigned char *)b + 8, 4);
	return (i > j) - (i < j);
}

static void sort_a_file_of_records(const char *dir)
{
	unsigned char *records = malloc(RECORDS * RECORD);
	for (uint32_t i = 0; i < RECORDS; i++) {
		int32_t key = (int32_t)(next_random() % 2000) - 1000;
		uint32_t tag = (uint32_t)next_random();
		memcpy(records + i * RECORD, &tag, 4);
		memcpy(records + i * RECORD + 4, &key, 4);
		memcpy(records + i * RECORD + 8, &i, 4);
	}
	char *input = path_in(dir, "records"), *output = path_in(dir, "records.sorted");
	FILE *file = fopen(input, "wb");
	fwrite(records, RECORD, RECORDS, file);
	fclose(file);

	struct gpusort_job job;
	struct gpusort_input in = {input, -1};
	gpusort_job_init(&job, sizeof job);
	job.mode = GPUSORT_MODE_BINARY;
	job.inputs = &in;
	job.input_count = 1;
	job.output = output;
	job.record_size = RECORD;
	job.key.type = GPUSORT_KEY_I32;
	job.key.offset = 4;
	int code = gpusort_run(&job);
	if (code != GPUSORT_OK)
		printf("# gpusort_run: %s\n", gpusort_error_name(code));

	qsort(records, RECORDS, RECORD, compare_records);
	size_t size;
	unsigned char *sorted = read_all(output, &size);
	ok(code == GPUSORT_OK && sorted && size == RECORDS * RECORD &&
	   memcmp(sorted, records, size) == 0,
	   "gpusort_run sorts a file of records (i32 key at offset 4) as a stable qsort does");

	job.inputs = &(struct gpusort_input){output, -1};
	job.output = NULL;
	job.check = GPUSORT_CHECK_QUIET;
	ok(gpusort_run(&job) == GPUSORT_OK, "gpusort_run -C finds the output in order");
	job.inputs = &in;
	ok(gpusort_run(&job) == GPUSORT_DISORDER, "and the input out of order (GPUSORT_DISORDER)");
	free(sorted);
	free(records);
	free(input);
	free(output);
}

static int compare_lines(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	long nx = strtol(strchr(x, ' ') + 1, NULL, 10), ny = strtol(strchr(y, ' ') + 1, NULL, 10);
	if (nx != ny)
		return nx < ny ? -1 : 1;
	return strcmp(x, y); /* GNU sort's last resort: the whole lines, as bytes */
}

static void sort_a_file_of_lines(const char *dir)
{
	enum { LINES = 5000 };
	char *lines[LINES];
	char *input = path_in(dir, "lines"), *output = path_in(dir, "lines.sorted");
	FILE *file = fopen(input, "w");
	for (int i = 0; i < LINES; i++) {
		lines[i] = malloc(32);
		snprintf(lines[i], 32, "name%03u %d", (unsigned)(next_random() % 1000),
			 (int)(next_random() % 100) - 50);
		fprintf(file, "%s\n", lines[i]);
	}
	fclose(file);

	struct gpusort_job job;
	struct gpusort_input in = {input, -1};
	const char *keys[] = {"2,2n"};
	gpusort_job_init(&job, sizeof job);
	job.inputs = &in;
	job.input_count = 1;
	job.output = output;
	job.keys = keys;
	job.key_count = 1;
	job.separator = ' ';
	int code = gpusort_run(&job);

	qsort(lines, LINES, sizeof *lines, compare_lines);
	size_t size, at = 0;
	char *sorted = (char *)read_all(output, &size);
	int same = code == GPUSORT_OK && sorted != NULL;
	for (int i = 0; i < LINES && same; i++) {
		size_t length = strlen(lines[i]);
		same = at + length < size && memcmp(sorted + at, lines[i], length) == 0 &&
		       sorted[at + length] == '\n';
		at += length + 1;
	}
	ok(same && at == size, "gpusort_run sorts lines by -t' ' -k2,2n as qsort with GNU's rules does");
	for (int i = 0; i < LINES; i++)
		free(lines[i]);
	free(sorted);
	free(input);
	free(output);
}

/* Rows in memory: a position and a double; sorted by the double, descending. */
struct row {
	uint64_t position;
	double value;
};

static int compare_rows_descending(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return (x->position > y->position) - (x->position < y->position);
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static void sort_a_buffer(void)
{
	enum { ROWS = 100000 };
	struct row *rows = malloc(ROWS * sizeof *rows), *expect = malloc(ROWS * sizeof *rows);
	for (uint64_t i = 0; i < ROWS; i++)
		rows[i] = (struct row){i, (double)(next_random() % 5000) / 8 - 300};
	memcpy(expect, rows, ROWS * sizeof *rows);
	qsort(expect, ROWS, sizeof *expect, compare_rows_descending);

	struct gpusort_binary_key key = {.type = GPUSORT_KEY_F64, .offset = 8, .descending = 1};
	int code = gpusort_sort_records(rows, ROWS, sizeof *rows, &key, 1, NULL);
	ok(code == GPUSORT_OK && memcmp(rows, expect, ROWS * sizeof *rows) == 0,
	   "gpusort_sort_records sorts a buffer by an f64 key, descending, stably, as qsort does");

	uint64_t *keys = malloc(ROWS * sizeof *keys), *keys_expect = malloc(ROWS * sizeof *keys);
	for (size_t i = 0; i < ROWS; i++)
		keys[i] = next_random();
	memcpy(keys_expect, keys, ROWS * sizeof *keys);
	qsort(keys_expect, ROWS, sizeof *keys, compare_u64);
	struct gpusort_sort_options options;
	gpusort_sort_options_init(&options, sizeof options);
	options.device = GPUSORT_DEVICE_CPU;
	options.threads = 2;
	key = (struct gpusort_binary_key){.type = GPUSORT_KEY_U64};
	code = gpusort_sort_records(keys, ROWS, sizeof *keys, &key, 1, &options);
	ok(code == GPUSORT_OK && memcmp(keys, keys_expect, ROWS * sizeof *keys) == 0,
	   "gpusort_sort_records sorts bare u64 keys on two CPU threads as qsort does");
	free(rows);
	free(expect);
	free(keys);
	free(keys_expect);
}

/* What a job said through its message callback. */
struct said {
	char first[512];
	int count;
};

static void collect(void *context, const char *text)
{
	struct said *said = context;
	if (said->count++ == 0)
		snprintf(said->first, sizeof said->first, "%s", text);
}

/* A job that fails: its result is the errno value, its message the command's words. */
static void fail_with_a_cause(const char *dir)
{
	struct gpusort_job job;
	gpusort_job_init(&job, sizeof job);
	struct gpusort_input missing = {path_in(dir, "no-such-input"), -1};
	struct said said = {{0}, 0};
	job.inputs = &missing;
	job.input_count = 1;
	job.output = path_in(dir, "never-written");
	job.message = collect;
	job.message_context = &said;
	int code = gpusort_run(&job);
	char expected[600];
	snprintf(expected, sizeof expected, "cannot read: %s: No such file or directory", missing.name);
	ok(code == -ENOENT && said.count == 1 && strcmp(said.first, expected) == 0,
	   "a missing input: -ENOENT, and one message to the callback in the command's words");
	ok(strcmp(gpusort_error_name(code), "No such file or directory") == 0, "the errno value's name is the system's");
	free((char *)missing.name);
	free((char *)job.output);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s SCRATCH_DIR\n", argv[0]);
		return 2;
	}
	printf("# libgpusort %s, header %s\n", gpusort_version_string(), GPUSORT_VERSION_STRING);
	ok(gpusort_version_number() == GPUSORT_VERSION_NUMBER,
	   "the installed library's version is the installed header's");
	ok(gpusort_is_error(GPUSORT_ERROR_FAILED) && !gpusort_is_error(GPUSORT_DISORDER) &&
	   strcmp(gpusort_error_name(GPUSORT_OK), "no error") == 0, "result codes and their names");
	sort_a_file_of_records(argv[1]);
	sort_a_file_of_lines(argv[1]);
	sort_a_buffer();
	fail_with_a_cause(argv[1]);
	printf("1..%d\n", checks);
	return failures != 0;
}
