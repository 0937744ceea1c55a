#!/bin/bash
# SPDX-License-Identifier: MIT
# Issue 17's tests on a machine with several GPUs, through bench/device_check.sh: the
# GPU engine tests on every GPU at once (one process per GPU, CUDA_VISIBLE_DEVICES),
# then the boundary sweep with its GPU side as 2 ranks and as one rank per GPU (mpirun,
# --device=0: local rank r on GPU r), tests/test_mpi.sh and tests/test_gpu_cli.sh.
# Logs go to LOGDIR; ends with "N passed, N failed".
# usage: bench/multi_gpu_check.sh BUILD_DIR [LOGDIR]
#   GPUSORT_SWEEP_CASES, GPUSORT_SWEEP_JOBS, GPUSORT_SWEEP_SEED as for the sweep.
set -u
build=${1:?usage: multi_gpu_check.sh BUILD_DIR [LOGDIR]}
logs=${2:-$(mktemp -d)}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$logs"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$gpus" -gt 0 ] || { echo "1..0 # SKIP no GPU"; exit 0; }
export NO_SANITIZER=1 GPUSORT_SWEEP_JOBS=${GPUSORT_SWEEP_JOBS:-4}
export GPUSORT_SWEEP_SEED=${GPUSORT_SWEEP_SEED:-$(date +%s)}
engine_tests=()
for t in test_gpu_sort test_gpu_steps test_gpu_algorithms test_gpu_boundaries test_sort_engine test_gpu_expose; do
	engine_tests+=("$build/tests/$t")
done

for ((g = 0; g < gpus; g++)); do
	CUDA_VISIBLE_DEVICES=$g bash "$here/device_check.sh" "$build" "${engine_tests[@]}" >"$logs/engine_gpu$g.log" 2>&1 &
done
ranks_list=2
[ "$gpus" -gt 2 ] && ranks_list="2 $gpus"
for ranks in $ranks_list; do
	GPUSORT_SWEEP_RANKS=$ranks bash "$here/device_check.sh" "$build" "$here/../tests/test_gpu_sweep.sh" \
		>"$logs/sweep_ranks$ranks.log" 2>&1
done
bash "$here/device_check.sh" "$build" "$here/../tests/test_mpi.sh" "$here/../tests/test_gpu_cli.sh" \
	>"$logs/mpi_cli.log" 2>&1
wait

passed=0 failed=0 skipped=0
for log in "$logs"/*.log; do
	echo "== $(basename "$log" .log)"
	grep -v 'passed, .* failed' "$log"
	read -r p f s < <(awk '/passed, .* failed/ { print $1, $3, $5 }' "$log")
	passed=$((passed + ${p:-0})) failed=$((failed + ${f:-1})) skipped=$((skipped + ${s:-0}))
done
echo "sweep seed $GPUSORT_SWEEP_SEED; $gpus GPUs"
echo "$passed passed, $failed failed, $skipped skipped"
