#!/bin/sh
# SPDX-License-Identifier: MIT
# GPU bucket sort against CUB radix and merge sort on the device alone (bench/gpu_kernels.cu):
# builds the benchmark with nvcc unless GPU_BENCH_BIN names a built one, runs it for the
# sizes given (log2; default 20 24 28) and leaves the table (Gkeys/s) on stdout.
# Options by environment: GPU_BENCH_ALGS=bucket,radix,merge GPU_BENCH_KINDS=u32,u64,u64+index,key80+pos48
# GPU_BENCH_DISTS=uniform,normal (a subset, for ncu) GPU_BENCH_PROFILE=1 (per-step times of the bucket sort; needs a -DGPU_BUCKET_PROFILE build)
# GPU_BENCH_LANES=0 (the block classes in turn, not side by side on the lanes).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${GPU_BENCH_BIN:-}
if [ -z "$bin" ]; then
	nvcc=${NVCC:-nvcc}
	build=${TMPDIR:-/tmp}/gpusort-gpu-bench
	mkdir -p "$build"
	flags="-O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -DGPU_BUCKET_PROFILE -I$here"
	"$nvcc" $flags -c "$here/kernels/gpu_bucket_sort.cu" -o "$build/gpu_bucket_sort.o"
	"$nvcc" $flags -c "$here/bench/gpu_kernels.cu" -o "$build/gpu_kernels.o"
	"$nvcc" -arch=sm_90 "$build/gpu_kernels.o" "$build/gpu_bucket_sort.o" -o "$build/gpu_kernels"
	bin=$build/gpu_kernels
fi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null || true
exec "$bin" "$@"
