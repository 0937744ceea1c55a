# src/: keys and items, the sort pipeline and the merge (libpipeline, a convenience
# library), libgpusort's API over them (src/library/, include/gpusort.h), and the
# command, which uses only that API.
noinst_LTLIBRARIES += libpipeline.la
libpipeline_la_SOURCES = \
	src/options.h \
	src/keydef.h \
	src/size_parse.h src/size_parse.c \
	src/key_image.h src/key_image.c \
	src/record_items.h src/record_items.c \
	src/input_list.h src/input_list.c \
	src/record_reader.h src/record_reader.c \
	src/memory_plan.h src/memory_plan.c \
	src/binary_sort.h src/binary_sort.c \
	src/binary_runs.h src/binary_runs.c \
	src/range_merge.h src/range_merge.c \
	src/record_output.h src/record_output.c \
	src/output_check.h src/output_check.c \
	src/external_sort.h src/external_sort.c \
	src/record_order.h src/record_order.c \
	src/record_stream.h src/record_stream.c \
	src/order_check.h src/order_check.c \
	src/merge.h src/merge.c \
	src/merge_inputs.h src/merge_inputs.c \
	src/verify.h src/verify.c \
	src/stats.h src/stats.c \
	src/report.h src/report.c
# The API: a job turned into the pipeline's struct options, gpusort_run, the in-memory
# sort, and the small calls.
libpipeline_la_SOURCES += \
	include/gpusort.h \
	src/library/job_options.h src/library/job_options.c \
	src/library/run.c \
	src/library/sort_records.c \
	src/library/results.c

# libgpusort: the convenience libraries in one, exporting only the API (gpusort_*).
# -version-info CURRENT:REVISION:AGE, libtool's rules: an interface added: CURRENT+1,
# REVISION=0, AGE+1; one removed or changed: CURRENT+1, REVISION=0, AGE=0 (a new
# SONAME); only the code changed: REVISION+1.
lib_LTLIBRARIES += libgpusort.la
libgpusort_la_SOURCES = include/gpusort.h
libgpusort_la_LIBADD = libpipeline.la libio.la libkernels.la $(ZSTD_LIBS) $(URING_SHARED_LIBS) \
	$(CUDA_LIBS) -lpthread -lm
libgpusort_la_LDFLAGS = -version-info 0:0:0 -export-symbols-regex '^gpusort_' -no-undefined
include_HEADERS = include/gpusort.h
# The installed static library is one object whose only global symbols are the API's,
# as the shared library's are: a program linked with it cannot meet the internals'
# names (report, merge_*, thread_pool_*...). Where objcopy is missing it stays as built.
install-exec-hook:
	@archive='$(DESTDIR)$(libdir)/libgpusort.a'; \
	if test -f "$$archive" && test "x$(OBJCOPY)" != x:; then \
		dir=`mktemp -d "$${TMPDIR:-/tmp}/libgpusort.XXXXXX"` && \
		(cd "$$dir" && $(AR) x "$$archive" && $(LD) -r -o libgpusort.o *.o && \
		 $(OBJCOPY) --wildcard --keep-global-symbol='gpusort_*' libgpusort.o && \
		 rm -f "$$archive" && $(AR) cr "$$archive" libgpusort.o && $(RANLIB) "$$archive"); \
		status=$$?; rm -rf "$$dir"; \
		test $$status -eq 0 && echo "  LOCALIZE $$archive: only gpusort_* global"; \
		exit $$status; \
	fi
# The API's section-3 pages: an overview and a page per call or group of calls (the
# group's other names are .so links to its page).
dist_man_MANS += man/gpusort.3 man/gpusort_run.3 man/gpusort_job_init.3 \
	man/gpusort_sort_records.3 man/gpusort_sort_options_init.3 \
	man/gpusort_error_name.3 man/gpusort_is_error.3 \
	man/gpusort_version_number.3 man/gpusort_version_string.3 \
	man/gpusort_keydef_check.3 man/gpusort_parse_size.3
pkgconfigdir = $(libdir)/pkgconfig
pkgconfig_DATA = gpusort.pc

# The command links the libraries statically (a binary that needs no libgpusort.so,
# nor liburing.so where its archive is there), and includes only <gpusort.h>.
bin_PROGRAMS += gpusort
gpusort_SOURCES = src/main.c src/command_line.h src/options.c src/close_stdout.h src/close_stdout.c
gpusort_CPPFLAGS = -I$(top_srcdir)/include -I$(top_builddir)
gpusort_LDADD = $(LINK_ALL)
include src/text_local.mk
