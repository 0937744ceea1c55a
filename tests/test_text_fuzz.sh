#!/bin/sh
# SPDX-License-Identifier: MIT
# Differential fuzzing of text mode against the system `LC_ALL=C sort` (tests/text_fuzz.py):
# the issues' fixed cases, then GPUSORT_FUZZ_COUNT random inputs and option sets (500 by
# default, a fixed seed so CI is repeatable). By hand, any number and seed:
#   GPUSORT_FUZZ_SEED=$RANDOM GPUSORT_FUZZ_COUNT=5000 GPUSORT=build/gpusort tests/test_text_fuzz.sh
: "${GPUSORT:?GPUSORT must name the built gpusort}"
export GPUSORT
exec python3 "${TESTS_SRCDIR:-$(dirname "$0")}/text_fuzz.py"
