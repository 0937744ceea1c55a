# SPDX-License-Identifier: MIT
# src/text/: text mode's keys and comparators (GNU sort's, in the user's locale) and its lines
# in memory: read, copied, sorted.
libpipeline_la_SOURCES += \
	src/text/text_order.h src/text/text_order.c \
	src/text/text_emit.h src/text/text_emit.c \
	src/text/text_fields.h src/text/text_fields.c \
	src/text/text_compare.h src/text/text_compare.c \
	src/text/text_ignore.h src/text/text_ignore.c \
	src/text/text_collate.h src/text/text_collate.c \
	src/text/text_locale.h src/text/text_locale.c \
	src/text/text_numeric.h src/text/text_numeric.c \
	src/text/text_general.h src/text/text_general.c \
	src/text/text_month.h src/text/text_month.c \
	src/text/text_version.h src/text/text_version.c \
	src/text/text_prefix.h src/text/text_prefix.c \
	src/text/text_random.h src/text/text_random.c \
	src/text/text_debug.h src/text/text_debug.c \
	src/text/text_lines.h src/text/text_lines.c \
	src/text/text_count.h src/text/text_count.c \
	src/text/text_line_copy.h src/text/text_line_copy.c \
	src/text/text_merge_sort.h src/text/text_merge_sort.c \
	src/text/text_line_sort.h src/text/text_line_sort.c \
	src/text/csv_record.h src/text/csv_record.c \
	src/text/csv_field.h src/text/csv_field.c \
	src/text/csv_codec.h src/text/csv_codec.c
EXTRA_DIST += src/text/README.md
