#!/bin/sh
# SPDX-License-Identifier: MIT
# The seeds' experiments (bench/seeds.cu) on the first GPU: builds the benchmark with
# nvcc unless SEEDS_BIN names a built one, runs it (argument: timed runs per point,
# default 5) and leaves the tables on stdout, progress on stderr. SEEDS_BUILD_ONLY=1:
# build, print the binary's path and stop (to build here and run on a GPU machine).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${SEEDS_BIN:-}
if [ -z "$bin" ]; then
	nvcc=${NVCC:-nvcc}
	build=${TMPDIR:-/tmp}/gpusort-seeds
	mkdir -p "$build"
	flags="-O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -I$here -I$here/tests"
	: >"$build/config.h"
	for source in gpu_bucket_sort gpu_sample_sort gpu_radix_sort gpu_bitonic_sort gpu_quick_sort; do
		"$nvcc" $flags -c "$here/kernels/$source.cu" -o "$build/$source.o"
	done
	"$nvcc" $flags -c "$here/bench/seeds.cu" -o "$build/seeds.o"
	${CC:-cc} -O2 -I"$build" -I"$here/tests" -c "$here/tests/distributions.c" -o "$build/distributions.o"
	"$nvcc" -arch=sm_90 "$build"/*.o -o "$build/seeds" -lm
	bin=$build/seeds
fi
if [ -n "${SEEDS_BUILD_ONLY:-}" ]; then echo "$bin"; exit 0; fi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null || true
exec "$bin" "$@"
