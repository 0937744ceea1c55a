/* SPDX-License-Identifier: MIT */
/* A user's program that runs libgpusort from several threads, built as client.c is
 * (the installed <gpusort.h>, pkg-config, -pthread): 8 gpusort_run jobs of text, 8 of
 * binary records and 8 gpusort_sort_records calls at once, each checked against qsort
 * and each job's messages its own; then jobs stopped by gpusort_cancel from another
 * thread, which must return -ECANCELED, leave the output file as it was and no temp
 * file behind. The tree also builds it under ThreadSanitizer (.ci/run). TAP output;
 * exit status 0 when every check passed. Arguments: a scratch directory, and
 * optionally a device ("cpu", the default, or a CUDA device number). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <gpusort.h>

enum { THREADS = 8, LINES = 20000, RECORDS = 60000, RECORD = 16 };

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;
static int checks, failures;
static int device = GPUSORT_DEVICE_CPU;

static void ok(int condition, const char *what, int thread)
{
	pthread_mutex_lock(&print_lock);
	checks++;
	failures += !condition;
	if (thread >= 0)
		printf("%sok %d - thread %d: %s\n", condition ? "" : "not ", checks, thread, what);
	else
		printf("%sok %d - %s\n", condition ? "" : "not ", checks, what);
	fflush(stdout);
	pthread_mutex_unlock(&print_lock);
}

static uint64_t next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static char *path_in(const char *dir, const char *name)
{
	size_t size = strlen(dir) + strlen(name) + 2;
	char *path = malloc(size);
	snprintf(path, size, "%s/%s", dir, name);
	return path;
}

static int write_file(const char *path, const void *data, size_t size)
{
	FILE *file = fopen(path, "wb");
	if (!file)
		return -1;
	size_t wrote = fwrite(data, 1, size, file);
	return fclose(file) == 0 && wrote == size ? 0 : -1;
}

/* Whether the file holds exactly size bytes equal to data. */
static int file_is(const char *path, const void *data, size_t size)
{
	FILE *file = fopen(path, "rb");
	if (!file)
		return 0;
	unsigned char *got = malloc(size + 1);
	size_t read = fread(got, 1, size + 1, file);
	fclose(file);
	int same = read == size && memcmp(got, data, size) == 0;
	free(got);
	return same;
}

/* The entries of a directory but . and .. (a job's temp files left behind). */
static int entries(const char *dir)
{
	DIR *stream = opendir(dir);
	if (!stream)
		return -1;
	int count = 0;
	for (struct dirent *entry; (entry = readdir(stream));)
		count += strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0;
	closedir(stream);
	return count;
}

/* A job's messages, kept by the callback. */
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

struct worker {
	int index;
	char *dir;  /* the thread's own: input, output and -T directory */
	char *temp;
	pthread_t thread;
};

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Writes the lines (size bytes with their newlines) to path, frees them, and returns
 * the text they make in qsort's order: what a sort of the file must give. */
static char *lines_written_sorted(char **lines, int count, size_t size, const char *path)
{
	char *text = malloc(size + 1), *at = text; /* sprintf ends with a NUL */
	for (int i = 0; i < count; i++)
		at += sprintf(at, "%s\n", lines[i]);
	write_file(path, text, size);
	qsort(lines, count, sizeof *lines, compare_strings);
	at = text;
	for (int i = 0; i < count; i++) {
		at += sprintf(at, "%s\n", lines[i]);
		free(lines[i]);
	}
	free(lines);
	return text;
}

/* A text job of random lines with a 1 MiB budget, so that it spills into its -T
 * directory and merges; then a job of a missing input, whose one message must be its
 * own, naming its own file. */
static void *text_job(void *argument)
{
	struct worker *worker = argument;
	uint64_t state = 0x9e3779b97f4a7c15ull * (uint64_t)(worker->index + 1);
	char **lines = malloc(LINES * sizeof *lines);
	size_t text_size = 0;
	for (int i = 0; i < LINES; i++) {
		lines[i] = malloc(48);
		int length = snprintf(lines[i], 48, "%08llx %d %llu",
				      (unsigned long long)(next_random(&state) % 100000),
				      worker->index, (unsigned long long)(next_random(&state) % 1000));
		text_size += (size_t)length + 1;
	}
	char *input_name = path_in(worker->dir, "lines");
	char *text = lines_written_sorted(lines, LINES, text_size, input_name);

	struct gpusort_job job;
	gpusort_job_init(&job, sizeof job);
	struct gpusort_input input = {input_name, -1};
	const char *temp_dirs[] = {worker->temp};
	struct said said = {{0}, 0};
	job.inputs = &input;
	job.input_count = 1;
	job.output = path_in(worker->dir, "lines.sorted");
	job.memory_budget = 1 << 20;
	job.temp_dirs = temp_dirs;
	job.temp_dir_count = 1;
	job.device = device;
	job.threads = 2;
	job.message = collect;
	job.message_context = &said;
	int code = gpusort_run(&job);
	ok(code == GPUSORT_OK && said.count == 0 && file_is(job.output, text, text_size),
	   "a spilled text job gives qsort's order and says nothing", worker->index);
	ok(entries(worker->temp) == 0, "it leaves no temp file", worker->index);

	char *missing = path_in(worker->dir, "missing");
	input.name = missing;
	code = gpusort_run(&job);
	char expected[600];
	snprintf(expected, sizeof expected, "cannot read: %s: No such file or directory", missing);
	ok(code == -ENOENT && said.count == 1 && strcmp(said.first, expected) == 0,
	   "a missing input: -ENOENT and one message, naming this thread's file", worker->index);
	free(missing);
	free(input_name);
	free((char *)job.output);
	free(text);
	return NULL;
}

static int compare_records(const void *a, const void *b)
{
	uint64_t x[2], y[2];
	memcpy(x, a, RECORD);
	memcpy(y, b, RECORD);
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Records of a u64 key and the record's position (so the stable order is qsort's). */
static unsigned char *make_records(int index, size_t count)
{
	uint64_t state = 0x2545f4914f6cdd1dull * (uint64_t)(index + 3);
	unsigned char *records = malloc(count * RECORD);
	for (size_t i = 0; i < count; i++) {
		uint64_t key = next_random(&state) % (count / 4 + 1), position = i;
		memcpy(records + i * RECORD, &key, 8);
		memcpy(records + i * RECORD + 8, &position, 8);
	}
	return records;
}

/* A binary job of records, spilled as the text job is. */
static void *binary_job(void *argument)
{
	struct worker *worker = argument;
	unsigned char *records = make_records(worker->index, RECORDS);
	char *input_name = path_in(worker->dir, "records");
	write_file(input_name, records, (size_t)RECORDS * RECORD);
	qsort(records, RECORDS, RECORD, compare_records);

	struct gpusort_job job;
	gpusort_job_init(&job, sizeof job);
	struct gpusort_input input = {input_name, -1};
	const char *temp_dirs[] = {worker->temp};
	struct said said = {{0}, 0};
	job.mode = GPUSORT_MODE_BINARY;
	job.inputs = &input;
	job.input_count = 1;
	job.output = path_in(worker->dir, "records.sorted");
	job.record_size = RECORD;
	job.key.type = GPUSORT_KEY_U64;
	job.memory_budget = 1 << 20;
	job.temp_dirs = temp_dirs;
	job.temp_dir_count = 1;
	job.device = device;
	job.threads = 2;
	job.message = collect;
	job.message_context = &said;
	int code = gpusort_run(&job);
	ok(code == GPUSORT_OK && said.count == 0 && file_is(job.output, records, (size_t)RECORDS * RECORD),
	   "a spilled binary job gives qsort's order", worker->index);
	ok(entries(worker->temp) == 0, "it leaves no temp file", worker->index);
	free(input_name);
	free((char *)job.output);
	free(records);
	return NULL;
}

/* gpusort_sort_records on a buffer of the thread's own. */
static void *buffer_sort(void *argument)
{
	struct worker *worker = argument;
	size_t count = RECORDS + (size_t)worker->index * 1001;
	unsigned char *records = make_records(worker->index, count);
	unsigned char *expect = malloc(count * RECORD);
	memcpy(expect, records, count * RECORD);
	qsort(expect, count, RECORD, compare_records);
	struct gpusort_binary_key key = {.type = GPUSORT_KEY_U64};
	struct gpusort_sort_options options;
	gpusort_sort_options_init(&options, sizeof options);
	options.device = device;
	options.threads = 2;
	int code = gpusort_sort_records(records, count, RECORD, &key, 1, &options);
	ok(code == GPUSORT_OK && memcmp(records, expect, count * RECORD) == 0,
	   "gpusort_sort_records gives qsort's order", worker->index);
	free(records);
	free(expect);
	return NULL;
}

static void run_at_once(struct worker *workers, void *(*main)(void *), const char *what)
{
	int started = 0;
	for (int i = 0; i < THREADS; i++)
		started += pthread_create(&workers[i].thread, NULL, main, &workers[i]) == 0;
	ok(started == THREADS, what, -1);
	for (int i = 0; i < started; i++)
		pthread_join(workers[i].thread, NULL);
}

static double seconds_now(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec + now.tv_nsec / 1e9;
}

/* A job to cancel: its input a pipe, fed by a feeder thread (or by nobody, so that
 * the job waits in a read), its output a file that holds "old\n". */
struct cancel_case {
	struct gpusort_job job;
	struct gpusort_input input;
	const char *temp_dirs[1];
	struct said said;
	int pipe[2];
	int feed; /* whether the feeder writes */
	int code;
	double returned_at;
};

/* The job of a cancel case: input to output, spilled into temp; output holds "old\n". */
static void cancel_case_init(struct cancel_case *c, struct gpusort_input input, const char *output, const char *temp)
{
	write_file(output, "old\n", 4);
	gpusort_job_init(&c->job, sizeof c->job);
	c->input = input;
	c->temp_dirs[0] = temp;
	c->job.inputs = &c->input;
	c->job.input_count = 1;
	c->job.output = output;
	c->job.memory_budget = 1 << 20;
	c->job.temp_dirs = c->temp_dirs;
	c->job.temp_dir_count = 1;
	c->job.device = device;
	c->job.threads = 2;
	c->job.message = collect;
	c->job.message_context = &c->said;
	c->code = 1;
}

static void *cancel_feeder(void *argument)
{
	struct cancel_case *c = argument;
	uint64_t state = 7;
	char block[1 << 16];
	for (;;) {
		size_t used = 0;
		while (used + 32 < sizeof block)
			used += (size_t)snprintf(block + used, 32, "%016llx\n",
						 (unsigned long long)next_random(&state));
		if (write(c->pipe[1], block, used) < 0)
			break; /* the job closed its end: EPIPE (SIGPIPE is ignored) */
	}
	return NULL;
}

static void *cancel_runner(void *argument)
{
	struct cancel_case *c = argument;
	c->code = gpusort_run(&c->job);
	c->returned_at = seconds_now();
	return NULL;
}

static void cancel_a_job(const char *dir, int feed, const char *what)
{
	struct cancel_case c;
	memset(&c, 0, sizeof c);
	if (pipe(c.pipe) != 0) {
		ok(0, "pipe", -1);
		return;
	}
	char *output = path_in(dir, feed ? "cancel-fed.out" : "cancel-idle.out");
	char *temp = path_in(dir, feed ? "cancel-fed.tmp" : "cancel-idle.tmp");
	mkdir(temp, 0700);
	cancel_case_init(&c, (struct gpusort_input){NULL, c.pipe[0]}, output, temp);
	pthread_t feeder, runner;
	int feeding = feed && pthread_create(&feeder, NULL, cancel_feeder, &c) == 0;
	pthread_create(&runner, NULL, cancel_runner, &c);
	/* let the job start and (fed) spill runs before it is stopped */
	struct timespec pause = {0, 400 * 1000 * 1000};
	nanosleep(&pause, NULL);
	int asked = gpusort_cancel(&c.job);
	double cancelled_at = seconds_now();
	pthread_join(runner, NULL);
	close(c.pipe[0]); /* the feeder's write fails now */
	if (feeding)
		pthread_join(feeder, NULL);
	close(c.pipe[1]);
	char message[200];
	snprintf(message, sizeof message, "%s: gpusort_cancel -> %d, the job -> %s (%.0f ms after the cancel)", what,
		 asked, gpusort_error_name(c.code), (c.returned_at - cancelled_at) * 1e3);
	ok(asked == GPUSORT_OK && c.code == -ECANCELED, message, -1);
	ok(file_is(output, "old\n", 4) && c.said.count == 0, "the output file is as it was and nothing was said", -1);
	ok(entries(temp) == 0, "no temp file is left", -1);
	ok(gpusort_cancel(&c.job) == -ESRCH, "a job that has returned is not running: -ESRCH", -1);
	rmdir(temp);
	free(output);
	free(temp);
}

/* A spilled text job of a file cancelled after 0, 5, 10, ... ms: each either returns
 * -ECANCELED with the output as it was, or finished first and wrote the sorted lines;
 * never a crash, a half-written output or a temp file left. */
static void cancel_at_every_step(const char *dir)
{
	enum { STEP_LINES = 200000 };
	char **lines = malloc(STEP_LINES * sizeof *lines);
	uint64_t state = 12345;
	size_t size = 0;
	for (int i = 0; i < STEP_LINES; i++) {
		lines[i] = malloc(24);
		size += (size_t)snprintf(lines[i], 24, "%016llx", (unsigned long long)next_random(&state)) + 1;
	}
	char *input_name = path_in(dir, "steps.in"), *output = path_in(dir, "steps.out"), *temp = path_in(dir, "steps.tmp");
	char *text = lines_written_sorted(lines, STEP_LINES, size, input_name);
	mkdir(temp, 0700);
	int cancelled = 0, finished = 0, wrong = 0;
	for (int step = 0; step < 24; step++) {
		struct cancel_case c;
		memset(&c, 0, sizeof c);
		cancel_case_init(&c, (struct gpusort_input){input_name, -1}, output, temp);
		pthread_t runner;
		pthread_create(&runner, NULL, cancel_runner, &c);
		struct timespec pause = {0, step * 5L * 1000 * 1000};
		nanosleep(&pause, NULL);
		gpusort_cancel(&c.job);
		pthread_join(runner, NULL);
		if (c.code == -ECANCELED && file_is(output, "old\n", 4) && c.said.count == 0)
			cancelled++;
		else if (c.code == GPUSORT_OK && file_is(output, text, size))
			finished++;
		else
			wrong++;
		wrong += entries(temp) != 0;
	}
	char message[200];
	snprintf(message, sizeof message,
		 "a spilled job cancelled 0-115 ms in: %d cancelled (output as it was), %d finished (sorted), %d neither",
		 cancelled, finished, wrong);
	ok(wrong == 0 && cancelled > 0, message, -1);
	unlink(input_name);
	unlink(output);
	rmdir(temp);
	free(input_name);
	free(output);
	free(temp);
	free(text);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s SCRATCH_DIR [cpu|DEVICE]\n", argv[0]);
		return 2;
	}
	if (argc > 2 && strcmp(argv[2], "cpu") != 0)
		device = atoi(argv[2]);
	struct sigaction ignore = {.sa_handler = SIG_IGN};
	sigaction(SIGPIPE, &ignore, NULL); /* the feeder's write into a closed pipe */
	struct worker workers[THREADS];
	for (int i = 0; i < THREADS; i++) {
		char name[32];
		snprintf(name, sizeof name, "thread%d", i);
		workers[i].index = i;
		workers[i].dir = path_in(argv[1], name);
		workers[i].temp = path_in(workers[i].dir, "tmp");
		mkdir(workers[i].dir, 0700);
		mkdir(workers[i].temp, 0700);
	}
	run_at_once(workers, text_job, "8 text jobs start at once");
	run_at_once(workers, binary_job, "8 binary jobs start at once");
	run_at_once(workers, buffer_sort, "8 gpusort_sort_records calls start at once");
	cancel_a_job(argv[1], 0, "a job waiting on an idle pipe");
	cancel_a_job(argv[1], 1, "a job spilling a pipe's lines");
	cancel_at_every_step(argv[1]);
	struct gpusort_job idle;
	gpusort_job_init(&idle, sizeof idle);
	ok(gpusort_cancel(&idle) == -ESRCH && gpusort_cancel(NULL) == -ESRCH,
	   "gpusort_cancel of a job that is not running: -ESRCH", -1);
	for (int i = 0; i < THREADS; i++) {
		free(workers[i].dir);
		free(workers[i].temp);
	}
	printf("1..%d\n", checks);
	return failures != 0;
}
