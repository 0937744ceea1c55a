# tests/: text mode (GNU sort keys and options): comparator unit test, differential CLI test.
check_PROGRAMS += tests/test_text_compare
tests_test_text_compare_SOURCES = tests/test_text_compare.c
tests_test_text_compare_LDADD = $(TEST_LINK)
TESTS += tests/test_text_compare tests/test_text_diff.sh
EXTRA_DIST += tests/test_text_diff.sh tests/text_inputs.py
