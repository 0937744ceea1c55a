# src/settings/: what a sort is asked to do (struct options) and the text keys it
# carries (GNU sort's KEYDEF).
libpipeline_la_SOURCES += \
	src/settings/options.h src/settings/key_field.h src/settings/input_range.h \
	src/settings/keydef.h src/settings/keydef.c
EXTRA_DIST += src/settings/README.md
