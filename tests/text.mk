# SPDX-License-Identifier: MIT
# tests/: text mode (GNU sort keys and options): comparator unit test, differential CLI
# tests (small inputs of every kind; large generated inputs spilled beyond -S).
check_PROGRAMS += tests/test_text_compare
tests_test_text_compare_SOURCES = tests/test_text_compare.c
tests_test_text_compare_LDADD = $(TEST_LINK)
# text_lines: the count taken as pieces are read, the cut, the index built from the
# count's marks and the input's fingerprint taken with it, against a plain scan.
check_PROGRAMS += tests/test_text_lines
tests_test_text_lines_SOURCES = tests/test_text_lines.c
tests_test_text_lines_LDADD = $(TEST_LINK)
TESTS += tests/test_text_lines
# textgen: fast generator of text inputs, for tests and bench/text_bench.sh.
noinst_PROGRAMS += tests/textgen
tests_textgen_SOURCES = tests/textgen.c
TESTS += tests/test_text_compare tests/test_text_diff.sh tests/test_text_spill.sh
EXTRA_DIST += tests/test_text_diff.sh tests/test_text_spill.sh tests/text_inputs.py
# Differential fuzzing against the system sort: a fixed seed in CI, any seed by hand.
TESTS += tests/test_text_fuzz.sh
EXTRA_DIST += tests/test_text_fuzz.sh tests/text_fuzz.py
# Locale collation against the system sort in en_US, de_DE and fr_FR UTF-8 (each skipped
# where it is not installed), and which variable chooses the order.
TESTS += tests/test_locale.sh
EXTRA_DIST += tests/test_locale.sh tests/locale_inputs.py tests/generate_locales.sh
# -R and --random-source: GNU's promises of a random order against the system sort, one
# salt giving one output however the sort runs, and the errors.
TESTS += tests/test_random_sort.sh
EXTRA_DIST += tests/test_random_sort.sh tests/random_check.py
# --debug against the system sort byte for byte: fixed cases, random option sets, every
# output path.
TESTS += tests/test_debug.sh
EXTRA_DIST += tests/test_debug.sh tests/debug_fuzz.py
# GNU coreutils' own sort test cases (tests/sort/*.pl, *.sh) and more, against the
# system sort in the C locale and en_US.UTF-8: output, messages, status, files left.
TESTS += tests/test_gnu_cases.sh
EXTRA_DIST += tests/test_gnu_cases.sh
# CSV records and fields (--csv): hand-written cases cut at every offset, every
# malformed kind, and random inputs against Python's csv module (tests/csv_oracle.py).
check_PROGRAMS += tests/test_csv_record
tests_test_csv_record_SOURCES = tests/test_csv_record.c
tests_test_csv_record_LDADD = $(TEST_LINK)
TESTS += tests/test_csv_record
EXTRA_DIST += tests/csv_oracle.py
