# SPDX-License-Identifier: MIT
# src/pipeline/: the sort, mode by mode: the drivers, run formation, the merges, -c,
# the output and its checks, the memory plan, the inputs.
libpipeline_la_SOURCES += \
	src/pipeline/sort_job.h src/pipeline/sort_job.c \
	src/pipeline/input_list.h src/pipeline/input_list.c \
	src/pipeline/memory_plan.h src/pipeline/memory_plan.c \
	src/pipeline/record_order.h src/pipeline/record_order.c \
	src/pipeline/binary_sort.h src/pipeline/binary_sort.c \
	src/pipeline/engine_choice.h src/pipeline/engine_choice.c \
	src/pipeline/sort_chunks.h src/pipeline/sort_chunks.c \
	src/pipeline/sort_driver.h src/pipeline/sort_driver.c \
	src/pipeline/runs.h src/pipeline/runs.c src/pipeline/merge_passes.c \
	src/pipeline/merge.h src/pipeline/merge.c src/pipeline/merge_keys.h src/pipeline/merge_keys.c \
	src/pipeline/merge_inputs.h src/pipeline/merge_inputs.c \
	src/pipeline/record_stream.h src/pipeline/record_stream.c \
	src/pipeline/order_check.h src/pipeline/order_check.c \
	src/pipeline/ordered_blocks.h src/pipeline/ordered_blocks.c \
	src/pipeline/range_cut.h src/pipeline/range_cut.c \
	src/pipeline/range_merge.h src/pipeline/range_merge.c \
	src/pipeline/run_ranges.h src/pipeline/run_ranges.c \
	src/pipeline/input_header.h src/pipeline/input_header.c \
	src/pipeline/csv_input.h src/pipeline/csv_input.c \
	src/pipeline/record_output.h src/pipeline/record_output.c \
	src/pipeline/output_check.h src/pipeline/output_check.c \
	src/pipeline/text_sort.h src/pipeline/text_sort.c
EXTRA_DIST += src/pipeline/README.md
