# SPDX-License-Identifier: MIT
# io/: reading and writing files (io_uring, with a plain fallback), temp files, run files,
# and how the output replaces a file (its attributes, the copy into it).
noinst_LTLIBRARIES += libio.la
libio_la_SOURCES = \
	io/fault_inject.h io/fault_inject.c \
	io/safe_fd.h io/safe_fd.c \
	io/io_ring.h io/io_ring.c \
	io/write_queue.h io/write_queue.c \
	io/input_file.h io/input_file.c \
	io/output_path.h io/output_path.c \
	io/output_file.h io/output_file.c \
	io/file_map.h io/file_map.c \
	io/file_attributes.h io/file_attributes.c \
	io/file_copy.h io/file_copy.c \
	io/file_move.h io/file_move.c \
	io/io_scope.h io/io_scope.c io/temp_files.h io/temp_files.c \
	io/parallel_io.h io/parallel_io.c \
	io/block_transform.h io/block_transform.c \
	io/block_checksum.h io/block_checksum.c \
	io/run_level.h io/run_level.c \
	io/cache_budget.h io/cache_budget.c \
	io/cgroup_memory.h io/cgroup_memory.c \
	io/run_file.h io/run_format.h io/run_writer.c io/run_reader.c \
	io/compress_program.h io/compress_program.c \
	io/random_source.h io/random_source.c io/read_full.h io/read_full.c
EXTRA_DIST += io/README.md
