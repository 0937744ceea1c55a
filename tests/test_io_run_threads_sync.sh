#!/bin/sh
# SPDX-License-Identifier: MIT
# run_file's writer threads and stored blocks again with io_uring switched off
# (GPUSORT_FAULT=io_ring:ENOSYS): the same results.
GPUSORT_FAULT=io_ring:ENOSYS exec "${TESTS_BUILDDIR:-tests}/test_io_run_threads"
