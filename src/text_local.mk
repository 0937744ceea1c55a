# src/text_*: text mode (GNU sort keys and options under LC_ALL=C), included by src/local.mk.
libpipeline_la_SOURCES += \
	src/keydef.c \
	src/text_sort.h src/text_sort.c \
	src/text_order.h src/text_order.c \
	src/text_fields.h src/text_fields.c \
	src/text_compare.h src/text_compare.c \
	src/text_numeric.h src/text_numeric.c \
	src/text_general.h src/text_general.c \
	src/text_month.h src/text_month.c \
	src/text_version.h src/text_version.c \
	src/text_prefix.h src/text_prefix.c \
	src/text_lines.h src/text_lines.c \
	src/text_line_copy.h src/text_line_copy.c \
	src/text_merge_sort.h src/text_merge_sort.c \
	src/text_line_sort.h src/text_line_sort.c \
	src/text_write.h src/text_write.c \
	src/text_spill.h src/text_spill.c \
	src/text_memory.h src/text_memory.c
