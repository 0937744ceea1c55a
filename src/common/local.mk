# SPDX-License-Identifier: MIT
# src/common/: helpers of every room above it: a job's own state, messages, --stats, the self-check's
# fingerprints, GNU's SIZE syntax, the memory limits, the emitter both modes share, the
# GPUSORT_* variables.
libpipeline_la_SOURCES += \
	src/common/environment.h src/common/environment.c \
	src/common/job_context.h src/common/job_context.c \
	src/common/report.h src/common/report.c \
	src/common/stats.h src/common/stats.c \
	src/common/verify.h src/common/verify.c \
	src/common/record_sink.h src/common/record_sink.c \
	src/common/emit_rounds.h src/common/emit_rounds.c \
	src/common/size_parse.h src/common/size_parse.c \
	src/common/memory_limits.h src/common/memory_limits.c
EXTRA_DIST += src/common/README.md
