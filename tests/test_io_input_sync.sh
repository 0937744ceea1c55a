#!/bin/sh
# SPDX-License-Identifier: MIT
# input_file again with io_uring switched off (GPUSORT_IO=sync): the same results.
GPUSORT_IO=sync exec "${TESTS_BUILDDIR:-tests}/test_io_input"
