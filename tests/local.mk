# SPDX-License-Identifier: MIT
# tests/: TAP programs and scripts, one per concern; fragments per room.
noinst_HEADERS += tests/tap.h tests/distributions.h tests/item_oracle.h
check_LIBRARIES = tests/libtesthelp.a
tests_libtesthelp_a_SOURCES = tests/tap.c tests/distributions.c tests/item_oracle.c
TEST_LINK = tests/libtesthelp.a $(LINK_ALL)
noinst_PROGRAMS += tests/keygen tests/sortcheck
tests_keygen_SOURCES = tests/keygen.c tests/distributions.c
tests_keygen_LDADD = -lm
tests_sortcheck_SOURCES = tests/sortcheck.c
tests_sortcheck_LDADD = -lm
EXTRA_DIST += tests/lib.sh

include tests/kernels.mk
include tests/cli.mk
include tests/io.mk
include tests/gpu.mk
include tests/text.mk
include tests/fuzz/local.mk
include tests/library.mk
# The distributed sort's shares and splitters, without MPI (only in a build with it).
if HAVE_MPI
check_PROGRAMS += tests/test_distributed_parts
tests_test_distributed_parts_SOURCES = tests/test_distributed_parts.c
tests_test_distributed_parts_LDADD = $(TEST_LINK)
TESTS += tests/test_distributed_parts
endif
# The rooms' layering (src/README.md): no #include of a room above or beside.
TESTS += tests/test_layering.sh
EXTRA_DIST += tests/test_layering.sh
# The bash completion offers --help's options and the words of options that take one.
TESTS += tests/test_completion.sh
EXTRA_DIST += tests/test_completion.sh
