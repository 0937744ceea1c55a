# SPDX-License-Identifier: MIT
# tests/ for libgpusort: the API through the shared library, against qsort and the
# command's words (test_library); the command built as a client of the shared library,
# which links against the gpusort_* exports alone and must behave as gpusort does, and
# the exports and SONAME themselves (test_library_cli.sh).
check_PROGRAMS += tests/test_library tests/gpusort_shared tests/test_library_threads
tests_test_library_SOURCES = tests/test_library.c
tests_test_library_CPPFLAGS = -I$(top_srcdir)/include $(AM_CPPFLAGS)
tests_test_library_LDADD = tests/libtesthelp.a libgpusort.la -lm
tests_gpusort_shared_SOURCES = $(gpusort_SOURCES)
tests_gpusort_shared_CPPFLAGS = $(gpusort_CPPFLAGS)
tests_gpusort_shared_LDADD = libgpusort.la
# The threads client (tests/client/threads.c) on this tree's library too, so that
# make check runs it and .ci/run can build it under ThreadSanitizer.
tests_test_library_threads_SOURCES = tests/client/threads.c
tests_test_library_threads_CPPFLAGS = -I$(top_srcdir)/include
tests_test_library_threads_CFLAGS = -pthread $(AM_CFLAGS)
tests_test_library_threads_LDADD = libgpusort.la
TESTS += tests/test_library tests/test_library_cli.sh tests/test_library_threads.sh
EXTRA_DIST += tests/test_library_threads.sh
EXTRA_DIST += tests/test_library_cli.sh

# A program of a user's, built against the installed header and library through
# pkg-config (never this tree's), shared and static, checked against qsort. make
# installcheck runs it on what make install put in place (and make distcheck, on the
# tree it installs); tests/debian_packages.sh, on the unpacked .debs.
EXTRA_DIST += tests/client/client.c tests/client/threads.c tests/client/run_client.sh
installcheck-local:
	PKG_CONFIG_PATH='$(DESTDIR)$(pkgconfigdir)'$${PKG_CONFIG_PATH:+:$$PKG_CONFIG_PATH} \
	PKG_CONFIG_SYSROOT_DIR='$(DESTDIR)' CC='$(CC)' \
		$(SHELL) '$(srcdir)/tests/client/run_client.sh'
