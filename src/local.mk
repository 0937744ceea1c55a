# SPDX-License-Identifier: MIT
# src/: libgpusort and the command, in rooms by concern, one fragment each, listed from
# the bottom up. A file may include files of its own room and of the rooms below it,
# never one above (src/README.md; tests/test_layering.sh checks it):
#   cli -> library -> distributed -> pipeline -> {text, binary} -> settings -> common
#   -> {kernels, io}
# The rooms from common to library make libpipeline, a convenience library of
# libgpusort; the command (cli/) uses only the API, include/gpusort.h.
noinst_LTLIBRARIES += libpipeline.la
libpipeline_la_SOURCES =
EXTRA_DIST += src/README.md
include src/common/local.mk
include src/settings/local.mk
include src/binary/local.mk
include src/text/local.mk
include src/pipeline/local.mk
include src/distributed/local.mk
include src/library/local.mk
include src/cli/local.mk
