# src/: the command line, keys and items, the sort pipeline and the merge (libpipeline).
noinst_LTLIBRARIES += libpipeline.la
libpipeline_la_SOURCES = \
	src/options.h src/options.c \
	src/keydef.h \
	src/size_parse.h src/size_parse.c \
	src/key_image.h src/key_image.c \
	src/record_items.h src/record_items.c \
	src/input_list.h src/input_list.c \
	src/record_reader.h src/record_reader.c \
	src/memory_plan.h src/memory_plan.c \
	src/binary_check.h src/binary_check.c \
	src/binary_sort.h src/binary_sort.c \
	src/binary_runs.h src/binary_runs.c \
	src/range_merge.h src/range_merge.c \
	src/record_output.h src/record_output.c \
	src/output_check.h src/output_check.c \
	src/external_sort.h src/external_sort.c \
	src/merge.h src/merge.c \
	src/verify.h src/verify.c \
	src/stats.h src/stats.c \
	src/report.h src/report.c

bin_PROGRAMS += gpusort
gpusort_SOURCES = src/main.c src/close_stdout.h src/close_stdout.c
gpusort_LDADD = $(LINK_ALL)
include src/text_local.mk
