#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/client/threads.c against this tree's library: 8 jobs of each kind at once,
# and cancelled jobs (its TAP output is this test's). GPUSORT_THREADS_DEVICE picks a
# CUDA device number to run them on instead of the CPU threads.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
# not exec: lib.sh removes $WORK when the shell exits
"$TESTS_BUILDDIR/test_library_threads" "$WORK" "${GPUSORT_THREADS_DEVICE:-cpu}"
