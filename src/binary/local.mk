# SPDX-License-Identifier: MIT
# src/binary/: binary mode's records: key types and their images, sort items, the
# record reader.
libpipeline_la_SOURCES += \
	src/binary/key_image.h src/binary/key_image.c \
	src/binary/composite_key.h src/binary/composite_key.c \
	src/binary/record_items.h src/binary/record_items.c src/binary/record_bare.c \
	src/binary/record_emit.c \
	src/binary/record_reader.h src/binary/record_reader.c
EXTRA_DIST += src/binary/README.md
