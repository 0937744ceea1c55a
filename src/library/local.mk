# SPDX-License-Identifier: MIT
# src/library/: libgpusort's API over the pipeline: a job turned into the pipeline's
# struct sort_job, gpusort_run, the in-memory sort, and the small calls.
libpipeline_la_SOURCES += \
	include/gpusort.h \
	src/library/job_options.h src/library/job_options.c \
	src/library/run.c \
	src/library/sort_records.c \
	src/library/results.c
EXTRA_DIST += src/library/README.md

# libgpusort: the convenience libraries in one, exporting only the API (gpusort_*).
# -version-number MAJOR:MINOR:PATCH, gpusort.h's version: the SONAME is
# libgpusort.so.MAJOR. An interface removed or changed: MAJOR+1 (a new SONAME, and
# the Debian package libgpusortMAJOR); one added: MINOR+1; only the code changed: PATCH+1.
lib_LTLIBRARIES += libgpusort.la
libgpusort_la_SOURCES = include/gpusort.h
libgpusort_la_LIBADD = libpipeline.la libio.la libkernels.la $(ZSTD_LIBS) $(URING_SHARED_LIBS) \
	$(DLOPEN_LIBS) -lpthread -lm
libgpusort_la_LDFLAGS = -version-number 1:0:0 -export-symbols-regex '^gpusort_' -no-undefined
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
# group's other names are symbolic links to its page, installed as copies).
dist_man_MANS += man/gpusort.3 man/gpusort_run.3 man/gpusort_job_init.3 man/gpusort_cancel.3 \
	man/gpusort_signals_thread.3 \
	man/gpusort_sort_records.3 man/gpusort_sort_options_init.3 \
	man/gpusort_error_name.3 man/gpusort_is_error.3 \
	man/gpusort_version_number.3 man/gpusort_version_string.3 \
	man/gpusort_keydef_check.3 man/gpusort_parse_size.3 man/gpusort_quote.3
pkgconfigdir = $(libdir)/pkgconfig
pkgconfig_DATA = gpusort.pc
