# SPDX-License-Identifier: MIT
# tests/ for kernels/: the thread pool, each CPU bucket-sort step against an oracle,
# the whole CPU sort against qsort, and the sort engine's backend choice.
KERNEL_TESTS = tests/test_thread_pool tests/test_bucket_steps tests/test_bucket_sort \
	tests/test_sort_engine tests/test_huge_memory
check_PROGRAMS += $(KERNEL_TESTS)
TESTS += $(KERNEL_TESTS)
tests_test_thread_pool_SOURCES = tests/test_thread_pool.c
tests_test_thread_pool_LDADD = $(TEST_LINK)
tests_test_bucket_steps_SOURCES = tests/test_bucket_steps.c
tests_test_bucket_steps_LDADD = $(TEST_LINK)
tests_test_bucket_sort_SOURCES = tests/test_bucket_sort.c
tests_test_bucket_sort_LDADD = $(TEST_LINK)
tests_test_sort_engine_SOURCES = tests/test_sort_engine.c
tests_test_sort_engine_LDADD = $(TEST_LINK)
# huge_memory_grow: realloc's contract, kept huge-page alignment across mremap's moves.
tests_test_huge_memory_SOURCES = tests/test_huge_memory.c
tests_test_huge_memory_LDADD = $(TEST_LINK)
