#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 17's floor: what a distributed sort on N GPUs of one machine pays whatever the
# sort does, against which its speedup over one GPU is bounded.
#  - the launch: `mpirun -np N true`, and N ranks of gpusort sorting 1000 keys
#    (mpirun, MPI_Init, the exit; --device=auto sorts so few on the CPU threads, so no
#    CUDA context is opened), wall seconds, best of 3; each as the environment has it
#    and with hwloc's GPU plugins left out of mpirun's topology (HWLOC_COMPONENTS: they
#    start CUDA and NVML to list the GPUs, 1.2 s of mpirun's 1.3 s on 4 x H200);
#  - the CUDA driver's start in one process, with every GPU visible and with one, and in
#    N processes at once, each told of its own GPU alone (as the ranks start it);
#  - the output: SIZE GiB made a new file in the page cache from memory, by pwrite and
#    through shared mappings, from 1 to 64 threads (bench/page_cache_writes.c), the most
#    any number of ranks could write it at;
#  - the links: nvidia-smi's topology, and whether Open MPI was built CUDA-aware.
# Usage: bench/multi_gpu_floor.sh [GPUSORT] [TOOLS_DIR] [SIZE_GIB]
#   defaults: ./gpusort ./tests 16; needs mpirun, a C compiler, SIZE GiB free in $TMPDIR;
#   nvcc for the driver's start.
set -e
gpusort=${1:-./gpusort}
tools=${2:-./tests}
size=${3:-16}
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
module=$(dirname "$gpusort")/.libs/gpusort-mpi.so
[ -z "${GPUSORT_MPI_MODULE:-}" ] && [ -e "$module" ] && export GPUSORT_MPI_MODULE="$(cd "$(dirname "$module")" && pwd)/gpusort-mpi.so"
dir=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-floor.XXXXXX")
trap 'rm -rf "$dir"' EXIT
gpu_count=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)

# best3 COMMAND...: the best of three wall times, in seconds
best3() {
	best=
	for _ in 1 2 3; do
		start=$(date +%s.%N)
		"$@" >/dev/null 2>&1
		seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
		if [ -z "$best" ] || awk -v a="$seconds" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$seconds
		fi
	done
	echo "$best"
}

echo "$(mpirun --version 2>/dev/null | head -n 1); CUDA-aware: $(ompi_info --parsable --all 2>/dev/null |
	awk -F: '/mpi_built_with_cuda_support:value/ { print $NF }')"
nvidia-smi topo -m 2>/dev/null | sed -n '1,/^$/p'
"$tools/keygen" --type=u64 --count=1000 --seed=1 -o "$dir/small"
# hwloc's plugins that list GPUs through CUDA, NVML, OpenCL, ROCm, Level Zero and GL
no_gpu_plugins=-cuda,-nvml,-opencl,-rsmi,-levelzero,-gl
echo "| ranks | mpirun true (s) | gpusort, 1000 keys (s) | mpirun true, HWLOC_COMPONENTS=$no_gpu_plugins (s) | gpusort, the same (s) |"
echo "|---|---|---|---|---|"
for n in 1 2 4 8; do
	[ "$n" -le "${gpu_count:-0}" ] || [ "$n" -eq 1 ] || continue
	t=$(best3 mpirun --bind-to none -np "$n" true)
	g=$(best3 mpirun --bind-to none -np "$n" "$gpusort" --device=auto --type=u64 "$dir/small" -o "$dir/small.out")
	tf=$(best3 env HWLOC_COMPONENTS=$no_gpu_plugins mpirun --bind-to none -np "$n" true)
	gf=$(best3 env HWLOC_COMPONENTS=$no_gpu_plugins mpirun --bind-to none -np "$n" "$gpusort" --device=auto \
		--type=u64 "$dir/small" -o "$dir/small.out")
	echo "| $n | $t | $g | $tf | $gf |"
done
if nvcc -O2 -o "$dir/cuda_start" "$here/cuda_start.cu" 2>/dev/null; then
	echo "the CUDA driver's start and a context on GPU 0, every GPU visible: $("$dir/cuda_start")"
	echo "the same, GPU 0 alone visible (CUDA_VISIBLE_DEVICES=0): $(CUDA_VISIBLE_DEVICES=0 "$dir/cuda_start")"
	# as the ranks start it: N processes at once, each told of its own GPU alone
	for n in 2 4 8; do
		[ "$n" -le "${gpu_count:-0}" ] || continue
		for round in 1 2; do
			echo "$n at once, round $round, each its GPU alone: $(HWLOC_COMPONENTS=$no_gpu_plugins mpirun \
				--bind-to none -np "$n" sh -c 'CUDA_VISIBLE_DEVICES=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0"' \
				"$dir/cuda_start" | sed 's/^1 GPU(s): //' | sort | tr '\n' ';')"
		done
	done
fi
plain=$(best3 "$gpusort" --device=auto --type=u64 "$dir/small" -o "$dir/small.out")
echo "one plain process, 1000 keys: $plain s"
${CC:-cc} -O2 -pthread -o "$dir/page_cache_writes" "$here/page_cache_writes.c"
echo "$size GiB into a new file in the page cache ($(df -h "$dir" | awk 'NR == 2 { print $1 }')):"
"$dir/page_cache_writes" "$dir/out" "$size"
