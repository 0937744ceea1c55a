/* SPDX-License-Identifier: MIT */
/* How long a libgpusort job takes to return after gpusort_cancel(): for a text sort in
 * memory, a text sort that spills (-S 64M), a binary sort of u64 keys and a read from
 * an idle pipe, each cancelled at 10%, 30%, 50%, 70% and 90% of its uncancelled time
 * (or, given STEPS, at STEPS points spread evenly inside it).
 * Prints one line per run: the case, when the cancel came, what the job returned and
 * the milliseconds from the cancel to the return; then the largest per case.
 *
 *   cc -O2 -pthread -Iinclude bench/cancel_latency.c -o cancel_latency \
 *       $(pkg-config --cflags --libs gpusort)       (or this tree's .libs/libgpusort.a)
 *   ./cancel_latency SCRATCH_DIR [MIB (default 512)] [cpu|DEVICE (default auto)] [STEPS]
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <gpusort.h>

static double now_seconds(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec + now.tv_nsec / 1e9;
}

static void sleep_seconds(double seconds)
{
	struct timespec pause = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
	nanosleep(&pause, NULL);
}

static char *path_in(const char *dir, const char *name)
{
	size_t size = strlen(dir) + strlen(name) + 2;
	char *path = malloc(size);
	snprintf(path, size, "%s/%s", dir, name);
	return path;
}

static int make_inputs(const char *text_path, const char *keys_path, size_t bytes)
{
	FILE *text = fopen(text_path, "wb"), *keys = fopen(keys_path, "wb");
	if (!text || !keys)
		return -1;
	uint64_t state = 88172645463325252ull;
	for (size_t done = 0; done < bytes; done += 8) {
		state ^= state << 13;
		state ^= state >> 7;
		state ^= state << 17;
		fwrite(&state, 8, 1, keys);
		if (done % 32 == 0)
			fprintf(text, "%016llx %08llx\n", (unsigned long long)state, (unsigned long long)(state >> 40));
	}
	return fclose(text) == 0 && fclose(keys) == 0 ? 0 : -1;
}

struct run {
	struct gpusort_job job;
	int code;
	double ended;
};

static void *run_main(void *argument)
{
	struct run *run = argument;
	run->code = gpusort_run(&run->job);
	run->ended = now_seconds();
	return NULL;
}

static void quiet(void *context, const char *text)
{
	(void)context;
	(void)text;
}

/* Runs the job; with cancel_after >= 0, cancels it that many seconds after its start.
 * Returns the job's time (uncancelled) or the cancel's latency; *code gets its result. */
static double timed_run(const struct gpusort_job *job, double cancel_after, int *code)
{
	struct run run = {.job = *job};
	pthread_t thread;
	double started = now_seconds();
	pthread_create(&thread, NULL, run_main, &run);
	double cancelled = 0;
	if (cancel_after >= 0) {
		sleep_seconds(cancel_after);
		cancelled = now_seconds();
		gpusort_cancel(&run.job);
	}
	pthread_join(thread, NULL);
	*code = run.code;
	return cancel_after >= 0 ? run.ended - cancelled : run.ended - started;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s SCRATCH_DIR [MIB] [cpu|DEVICE]\n", argv[0]);
		return 2;
	}
	size_t mib = argc > 2 ? strtoul(argv[2], NULL, 10) : 512;
	int device = argc > 3 ? strcmp(argv[3], "cpu") == 0 ? GPUSORT_DEVICE_CPU : atoi(argv[3]) : GPUSORT_DEVICE_AUTO;
	char *text = path_in(argv[1], "cancel.txt"), *keys = path_in(argv[1], "cancel.u64");
	char *out = path_in(argv[1], "cancel.out"), *temp = path_in(argv[1], "cancel.tmp");
	mkdir(temp, 0700);
	if (make_inputs(text, keys, mib << 20) != 0) {
		perror("inputs");
		return 2;
	}
	const char *temp_dirs[] = {temp};
	struct gpusort_input text_input = {text, -1}, keys_input = {keys, -1};
	int idle[2];
	if (pipe(idle) != 0)
		return 2;
	struct gpusort_input pipe_input = {NULL, idle[0]};
	struct {
		const char *name;
		const struct gpusort_input *input;
		int binary;
		size_t budget;
	} cases[] = {
		{"text in memory", &text_input, 0, 0},
		{"text spilled (-S 64M)", &text_input, 0, 64 << 20},
		{"u64 keys", &keys_input, 1, 0},
		{"idle pipe", &pipe_input, 0, 0},
	};
	size_t steps = argc > 4 ? strtoul(argv[4], NULL, 10) : 5;
	if (steps < 1 || steps > 1000)
		steps = 5;
	printf("# %zu MiB of input, device %s\n", mib, argc > 3 ? argv[3] : "auto");
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		struct gpusort_job job;
		gpusort_job_init(&job, sizeof job);
		job.inputs = cases[c].input;
		job.input_count = 1;
		job.output = out;
		job.memory_budget = cases[c].budget;
		job.temp_dirs = temp_dirs;
		job.temp_dir_count = 1;
		job.device = device;
		job.message = quiet;
		if (cases[c].binary) {
			job.mode = GPUSORT_MODE_BINARY;
			job.key.type = GPUSORT_KEY_U64;
		}
		int code;
		/* the quicker of two runs: the first may find the input out of the page cache */
		double whole = 1.0;
		if (cases[c].input != &pipe_input) {
			double first = timed_run(&job, -1, &code), second = timed_run(&job, -1, &code);
			whole = first < second ? first : second;
		}
		printf("%-22s uncancelled %.3f s\n", cases[c].name, whole);
		double worst = 0;
		for (size_t f = 0; f < steps; f++) {
			double fraction = (f + 0.5) / (double)steps;
			double latency = timed_run(&job, fraction * whole, &code);
			if (code == -ECANCELED)
				printf("%-22s cancel at %3.0f%%: returned -ECANCELED after %7.1f ms\n", cases[c].name,
				       fraction * 100, latency * 1e3);
			else
				printf("%-22s cancel at %3.0f%%: finished first (%s)\n", cases[c].name,
				       fraction * 100, gpusort_error_name(code));
			if (code == -ECANCELED && latency > worst)
				worst = latency;
		}
		printf("%-22s largest latency of a cancelled job: %.1f ms\n", cases[c].name, worst * 1e3);
	}
	unlink(text);
	unlink(keys);
	unlink(out);
	rmdir(temp);
	return 0;
}
