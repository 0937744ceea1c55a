# SPDX-License-Identifier: MIT
# src/settings/: the keys a sort is asked to order by: text keys (GNU sort's KEYDEF) and
# binary key fields; and the parts of inputs a rank reads.
libpipeline_la_SOURCES += \
	src/settings/key_field.h src/settings/input_range.h \
	src/settings/keydef.h src/settings/keydef.c
EXTRA_DIST += src/settings/README.md
