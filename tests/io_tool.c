/* SPDX-License-Identifier: MIT */
/* A small driver of io/ for the shell tests (faults, signals): copy a file through
 * input_file and output_file, spill a file into a run and read it back, hold temp
 * files and a half-written output until a signal comes, or say whether io_uring can
 * start here (ring: exit 0, or 1 with the reason). Errors: "io_tool: NAME: why",
 * exit 2. */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "io/fault_inject.h"
#include "io/input_file.h"
#include "io/io_ring.h"
#include "io/output_file.h"
#include "io/run_file.h"
#include "io/temp_files.h"

#define PIECE 1000003
#define BLOCK (256 * 1024 + 5)

static int fail(const char *name, int error)
{
	fprintf(stderr, "io_tool: %s: %s\n", name, strerror(-error));
	return 2;
}

static int copy(const char *in_path, const char *out_path)
{
	struct input_file *in;
	struct output_file *out;
	int error = input_file_open(in_path, &in);
	if (error)
		return fail(in_path, error);
	error = output_file_open(out_path, &out);
	if (error)
		return input_file_close(in), fail(out_path, error);
	char *buffer = malloc(PIECE);
	ssize_t got;
	while ((got = input_file_read(in, buffer, PIECE)) > 0)
		if ((error = output_file_write(out, buffer, got)))
			break;
	input_file_close(in);
	free(buffer);
	if (got < 0)
		return output_file_abort(out), fail(in_path, got);
	if (error)
		return output_file_abort(out), fail(out_path, error);
	error = output_file_commit(out);
	return error ? fail(out_path, error) : 0;
}

/* The input in BLOCK-byte blocks into a run in dir, then back out to stdout; mode
 * "stored" stores the blocks uncompressed, "threads" compresses them on three threads
 * with two blocks held at once, NULL takes the writer's defaults. */
static int spill(const char *dir, const char *in_path, const char *mode)
{
	struct run_writer_options options = {0};
	if (mode && strcmp(mode, "stored") == 0)
		options = (struct run_writer_options){.stored = true, .threads = 2};
	else if (mode && strcmp(mode, "threads") == 0)
		options = (struct run_writer_options){.threads = 3, .depth = 2};
	else if (mode)
		return fail(mode, -EINVAL);
	temp_files_init(&dir, 1);
	char run_path[PATH_MAX];
	struct input_file *in;
	int error = input_file_open(in_path, &in);
	if (error)
		return fail(in_path, error);
	int fd = temp_file_create(run_path, sizeof run_path);
	if (fd < 0)
		return input_file_close(in), fail(dir, fd);
	struct run_writer *writer;
	char *buffer = malloc(BLOCK);
	ssize_t got = 0;
	error = run_writer_open(fd, &options, &writer);
	while (!error && (got = input_file_read(in, buffer, BLOCK)) > 0)
		error = run_writer_append_block(writer, buffer, got, 1, buffer, got < 8 ? got : 8);
	input_file_close(in);
	if (!error && got < 0)
		error = got;
	if (error)
		run_writer_abort(writer);
	else
		error = run_writer_finish(writer, NULL);
	struct run_reader *reader = NULL;
	struct output_file *out = NULL;
	if (!error)
		error = run_reader_open(fd, &reader);
	if (!error)
		error = output_file_open(NULL, &out);
	for (size_t i = 0; !error && i < run_reader_block_count(reader); i++) {
		got = run_reader_read_block(reader, i, buffer, BLOCK);
		error = got < 0 ? got : output_file_write(out, buffer, got);
	}
	if (!error)
		error = output_file_commit(out);
	else if (out)
		output_file_abort(out);
	run_reader_close(reader);
	close(fd);
	temp_file_remove(run_path);
	free(buffer);
	return error ? fail(run_path, error) : 0;
}

/* With thread, the signals go to temp_signals_thread_start's thread, as the command
 * has them: the main thread, which then waits with them blocked, never takes one. */
static int hold(const char *dir, const char *out_path, bool thread)
{
	int error = 0;
	if (thread)
		error = temp_signals_thread_start();
	else
		temp_signals_handle();
	if (error)
		return fail("signal thread", error);
	temp_files_init(&dir, 1);
	for (int i = 0; i < 3; i++) {
		char path[PATH_MAX];
		int fd = temp_file_create(path, sizeof path);
		if (fd < 0)
			return fail(dir, fd);
		if (write(fd, "run", 3) != 3)
			return fail(path, -errno);
	}
	struct output_file *out;
	error = output_file_open(out_path, &out);
	if (!error)
		error = output_file_write(out, "partial", 7);
	if (error)
		return fail(out_path, error);
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}

static int ring(void)
{
	struct io_uring probe;
	int error = io_ring_init(&probe, 2);
	if (error) {
		printf("io_uring cannot start here: %s\n", strerror(-error));
		return 1;
	}
	io_uring_queue_exit(&probe);
	return 0;
}

int main(int argc, char **argv)
{
	/* the faults a wrapper script asks for (io_ring: no io_uring) */
	fault_arm(getenv("GPUSORT_FAULT"));
	if (argc == 2 && strcmp(argv[1], "ring") == 0)
		return ring();
	if (argc == 4 && strcmp(argv[1], "copy") == 0)
		return copy(argv[2], argv[3]);
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "spill") == 0)
		return spill(argv[2], argv[3], argc == 5 ? argv[4] : NULL);
	if ((argc == 4 || (argc == 5 && strcmp(argv[4], "thread") == 0)) && strcmp(argv[1], "hold") == 0)
		return hold(argv[2], argv[3], argc == 5);
	fprintf(stderr, "usage: io_tool copy IN OUT | spill DIR IN [stored|threads] | hold DIR OUT [thread] | ring\n");
	return 2;
}
