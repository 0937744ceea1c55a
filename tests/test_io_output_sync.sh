#!/bin/sh
# SPDX-License-Identifier: MIT
# output_file again with io_uring switched off (GPUSORT_FAULT=io_ring:ENOSYS): the same results.
GPUSORT_FAULT=io_ring:ENOSYS exec "${TESTS_BUILDDIR:-tests}/test_io_output"
