#!/bin/sh
# SPDX-License-Identifier: MIT
# test_io_uncached with the output's third write failing (EIO): the error comes back.
GPUSORT_FAULT=output_write:EIO:3 exec "${TESTS_BUILDDIR:-tests}/test_io_uncached"
