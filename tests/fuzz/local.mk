# SPDX-License-Identifier: MIT
# tests/fuzz/: libFuzzer harnesses, compiled by clang (FUZZ_CC, found by configure)
# with -fsanitize=fuzzer,address,undefined straight from the sources they exercise, so
# that they do not depend on how the libraries were built. `make fuzz` builds them;
# tests/fuzz/test_fuzz.sh (make check) replays each seed corpus and fuzzes each harness
# for GPUSORT_FUZZ_SECONDS (default 20).
FUZZ_HARNESSES = tests/fuzz/fuzz_options tests/fuzz/fuzz_text_compare tests/fuzz/fuzz_run_file
FUZZ_CFLAGS = -g -O1 -std=gnu11 -Wall -Wextra -Wno-sign-compare -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_LINK = $(AM_V_GEN)$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEFS) $(AM_CPPFLAGS) -I$(top_srcdir)/include \
	$(ZSTD_CFLAGS) $(URING_CFLAGS) -o $@ $(filter %.c %.$(OBJEXT),$^)

# The command line is src/cli/ less main.c (argv into a libgpusort job) and the library's
# job checks (src/library/); the checks name the sort engine's algorithms, so the engine
# comes along (the CUDA backend is a module it would open: never, in these harnesses).
FUZZ_ENGINE = kernels/sort_engine.c kernels/bucket_sort_cpu.c kernels/thread_pool.c kernels/huge_memory.c \
	kernels/module_open.c
if HAVE_CUDA
FUZZ_ENGINE += kernels/gpu_module.c
endif
FUZZ_SHARED_INCLUDES = tests/fuzz/quiet_harness.h tests/fuzz/command_line.h
FUZZ_CLI_FILES = src/cli/options.c src/cli/option_values.c src/cli/option_errors.c \
	src/cli/obsolete_key.c src/cli/help.c src/cli/version.c
FUZZ_OPTIONS_FILES = $(FUZZ_CLI_FILES) src/library/job_options.c src/library/results.c \
	src/binary/key_image.c src/settings/keydef.c src/common/size_parse.c \
	src/common/report.c src/common/job_context.c io/io_scope.c io/temp_files.c io/safe_fd.c \
	src/common/stats.c src/common/environment.c io/fault_inject.c \
	src/text/text_order.c src/text/text_locale.c \
	src/text/text_collate.c $(FUZZ_ENGINE)
FUZZ_TEXT_FILES = $(FUZZ_OPTIONS_FILES) src/text/text_compare.c src/text/text_ignore.c src/text/text_fields.c \
	src/text/text_numeric.c src/text/text_general.c src/text/text_month.c \
	src/text/text_version.c src/text/text_prefix.c src/text/text_random.c src/text/csv_codec.c src/text/text_count.c
FUZZ_RUN_FILE_FILES = io/run_writer.c io/run_reader.c io/read_full.c io/block_transform.c io/block_checksum.c io/write_queue.c \
	io/io_ring.c io/safe_fd.c io/fault_inject.c

tests/fuzz/fuzz_options$(EXEEXT): tests/fuzz/fuzz_options.c $(FUZZ_SHARED_INCLUDES) $(FUZZ_OPTIONS_FILES) \
		config.h
	@$(MKDIR_P) $(@D)
	$(FUZZ_LINK) $(URING_LIBS) $(DLOPEN_LIBS) -lpthread -lm
tests/fuzz/fuzz_text_compare$(EXEEXT): tests/fuzz/fuzz_text_compare.c $(FUZZ_SHARED_INCLUDES) $(FUZZ_TEXT_FILES) \
		config.h
	@$(MKDIR_P) $(@D)
	$(FUZZ_LINK) $(URING_LIBS) $(DLOPEN_LIBS) -lpthread -lm
tests/fuzz/fuzz_run_file$(EXEEXT): tests/fuzz/fuzz_run_file.c $(FUZZ_RUN_FILE_FILES) config.h
	@$(MKDIR_P) $(@D)
	$(FUZZ_LINK) $(ZSTD_LIBS) $(URING_LIBS) -lpthread

if HAVE_FUZZ
FUZZ_ENABLED = yes
fuzz: $(FUZZ_HARNESSES)
check_SCRIPTS = $(FUZZ_HARNESSES)
else
fuzz:
	@echo "make fuzz: configure found no clang with libFuzzer (see config.log; FUZZ_CC=...)" >&2
	@exit 1
endif
.PHONY: fuzz
CLEANFILES += $(FUZZ_HARNESSES)

TESTS += tests/fuzz/test_fuzz.sh
EXTRA_DIST += tests/fuzz/test_fuzz.sh tests/fuzz/README.md tests/fuzz/command_line.h tests/fuzz/quiet_harness.h tests/fuzz/fuzz_options.c \
	tests/fuzz/fuzz_text_compare.c tests/fuzz/fuzz_run_file.c tests/fuzz/fuzz_text_compare.dict \
	tests/fuzz/fuzz_options.dict tests/fuzz/corpus
