# SPDX-License-Identifier: MIT
# src/cli/: the command. It links the libraries statically (a binary that needs no
# libgpusort.so, nor liburing.so where its archive is there), and includes only
# <gpusort.h> and its own room's headers (tests/test_layering.sh checks it).
bin_PROGRAMS += gpusort
gpusort_SOURCES = src/cli/main.c src/cli/command_line.h src/cli/options.c \
	src/cli/option_values.h src/cli/option_values.c src/cli/option_errors.h \
	src/cli/option_errors.c src/cli/obsolete_key.h src/cli/obsolete_key.c \
	src/cli/help.h src/cli/help.c src/cli/version.c \
	src/cli/close_stdout.h src/cli/close_stdout.c
gpusort_CPPFLAGS = -I$(top_srcdir)/include -I$(top_builddir)
gpusort_LDADD = $(LINK_ALL)
EXTRA_DIST += src/cli/README.md
