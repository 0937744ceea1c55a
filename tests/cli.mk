# SPDX-License-Identifier: MIT
# tests/: the command line and binary record mode, end to end.
TESTS += \
	tests/test_cli_options.sh \
	tests/test_cli_binary.sh \
	tests/test_cli_errors.sh \
	tests/test_name_quoting.sh \
	tests/test_cli_usage.sh \
	tests/test_cli_abbreviations.sh \
	tests/test_gnu_words.sh
EXTRA_DIST += \
	tests/test_cli_options.sh \
	tests/test_cli_binary.sh \
	tests/test_cli_errors.sh \
	tests/test_name_quoting.sh \
	tests/test_cli_usage.sh \
	tests/test_cli_abbreviations.sh \
	tests/test_gnu_words.sh \
	tests/binary_oracle.py
# The manual pages: mandoc and groff lint, the name never hyphenated, the licence.
TESTS += tests/test_man_pages.sh
EXTRA_DIST += tests/test_man_pages.sh
# --key-field: composite keys against the Python oracle, every distribution.
TESTS += tests/test_composite_keys.sh
EXTRA_DIST += tests/test_composite_keys.sh
TESTS += tests/test_external.sh tests/test_faults.sh tests/test_mpi.sh tests/test_spill_pipeline.sh
EXTRA_DIST += tests/test_external.sh tests/test_faults.sh tests/test_mpi.sh tests/test_spill_pipeline.sh
# Under mpirun: SIGTERM and SIGKILL mid-run leave no file of the job (issue 44 part 3).
TESTS += tests/test_mpi_signals.sh
EXTRA_DIST += tests/test_mpi_signals.sh
TESTS += tests/test_memory.sh
EXTRA_DIST += tests/test_memory.sh
# Binary records from a pipe, a FIFO, a socket and /dev/stdin: the file's bytes at the
# sizes where buffers grow and around the chunk, and memory that follows the input.
TESTS += tests/test_binary_pipe.sh
EXTRA_DIST += tests/test_binary_pipe.sh
TESTS += tests/test_verify.sh
EXTRA_DIST += tests/test_verify.sh
# The self-check of in-memory output, piece by piece: bugs planted at every boundary.
check_PROGRAMS += tests/test_verify_emit
tests_test_verify_emit_SOURCES = tests/test_verify_emit.c
tests_test_verify_emit_LDADD = $(TEST_LINK)
TESTS += tests/test_verify_emit
# -u as a chunk is put out: repeats found in the items or in the records, every form.
check_PROGRAMS += tests/test_unique_emit
tests_test_unique_emit_SOURCES = tests/test_unique_emit.c
tests_test_unique_emit_LDADD = $(TEST_LINK)
TESTS += tests/test_unique_emit
check_PROGRAMS += tests/test_merge
tests_test_merge_SOURCES = tests/test_merge.c
tests_test_merge_LDADD = $(TEST_LINK)
TESTS += tests/test_merge
check_PROGRAMS += tests/test_ordered_blocks
tests_test_ordered_blocks_SOURCES = tests/test_ordered_blocks.c
tests_test_ordered_blocks_LDADD = $(TEST_LINK)
TESTS += tests/test_ordered_blocks
# -c and -C of both modes where the check's reader turns a block, and their messages.
TESTS += tests/test_order_check.sh
# -u over spilled runs: ranges written at their places without -u, then moved down.
TESTS += tests/test_unique_merge.sh
EXTRA_DIST += tests/test_unique_merge.sh
# --header: the first input's header lines first, the rest sorted, on every path.
TESTS += tests/test_header.sh
EXTRA_DIST += tests/test_header.sh
# --csv: quoted fields, separators and newlines inside them, against Python's csv module.
TESTS += tests/test_csv_sort.sh
EXTRA_DIST += tests/test_csv_sort.sh tests/csv_sort_oracle.py
EXTRA_DIST += tests/test_order_check.sh
TESTS += tests/test_output_file.sh tests/test_output_uncached.sh tests/test_output_targets.sh
EXTRA_DIST += tests/test_output_file.sh tests/test_output_uncached.sh tests/test_output_targets.sh
# An in-memory sort's output through a mapping (GPUSORT_OUTPUT_MAP), against pwrite.
TESTS += tests/test_output_map.sh
EXTRA_DIST += tests/test_output_map.sh
# -T directories that cannot take a temp file: GNU sort's message, at GNU's moment.
TESTS += tests/test_temp_dirs.sh
EXTRA_DIST += tests/test_temp_dirs.sh
# --stats: every stage's bytes and time, merge passes and temp peak, in every mode.
TESTS += tests/test_stats.sh
EXTRA_DIST += tests/test_stats.sh
# --batch-size: GNU's words for bad values, more merge passes, sort's output.
TESTS += tests/test_batch_size.sh
EXTRA_DIST += tests/test_batch_size.sh
# --progress on a terminal (a pty): redrawn at least twice a second, ends at 100%.
TESTS += tests/test_progress.sh
EXTRA_DIST += tests/test_progress.sh
# Larger than host memory for real: external sorts inside a memory cgroup (page cache
# counted) a quarter of the input's size; skips where no memory cgroup can be made.
TESTS += tests/test_memory_cgroup.sh
EXTRA_DIST += tests/test_memory_cgroup.sh tests/cgroup_lib.sh tests/compress_lib.sh tests/uid_lib.sh tests/oracle_queue_lib.sh
# --compress-program: runs through PROG and PROG -d against the system sort, PROGs that
# fail, damage data or are interrupted.
TESTS += tests/test_compress_program.sh
EXTRA_DIST += tests/test_compress_program.sh
# --compress-program when no process is left for PROG (EAGAIN): runs stored without it,
# PROG -d's failure in GNU's words; fault points, and a real RLIMIT_NPROC where root.
TESTS += tests/test_compress_fallback.sh
EXTRA_DIST += tests/test_compress_fallback.sh
# Open-file limits: spilled sorts of hundreds of runs and -m of 40 inputs under ulimit
# -n 8 to 1024 (runs hold no descriptor between merges), and GNU sort's failures below.
TESTS += tests/test_descriptors.sh
EXTRA_DIST += tests/test_descriptors.sh
# RLIMIT_NPROC, RLIMIT_AS, a memory cgroup and --parallel beyond the work.
TESTS += tests/test_limits.sh
EXTRA_DIST += tests/test_limits.sh
# The environment matrix: -o targets, closed descriptors, input pipes and sockets,
# limits, a full file system and SIGKILL in the copy, crossed with text and binary modes.
TESTS += tests/test_environment.sh
EXTRA_DIST += tests/test_environment.sh
