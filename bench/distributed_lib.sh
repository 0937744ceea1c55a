# SPDX-License-Identifier: MIT
# Sourced by the distributed benches (mpi_bench.sh, multi_gpu_bench.sh): their inputs
# and one case's timed runs. Needs $gpusort, $tools, $dir (with an empty $dir/tmp for
# -T) and $repeats.

# mpirun's own start: hwloc's plugins that list the GPUs start CUDA and NVML, 1.2 s of
# mpirun's 1.3 s on 4 x H200 (bench/multi_gpu_floor.sh). They are left out unless the
# caller's environment says otherwise; Open MPI places the ranks without them.
export HWLOC_COMPONENTS="${HWLOC_COMPONENTS--cuda,-nvml,-opencl,-rsmi,-levelzero,-gl}"

# make_records COUNT FILE: COUNT 100-byte records with 10-byte keys in FILE, gensort's
# when a gensort is on PATH, else tests/keygen's of the same shape; says which in
# $records_from.
make_records() {
	if command -v gensort >/dev/null 2>&1; then
		gensort "$1" "$2"
		records_from=gensort
	else
		"$tools/keygen" --type=bytes --key-size=10 --record-size=100 --count="$1" --seed=1 -o "$2"
		records_from="tests/keygen, gensort's shape"
	fi
}

# best_run STATS LAUNCH ARGS... INPUT: best of $repeats wall times of
# `LAUNCH $gpusort -T $dir/tmp --stats ARGS INPUT -o $dir/out` (LAUNCH empty: a plain
# process) in $best; the best run's --stats in the file STATS. Each run starts with the
# input in the page cache and must leave no temp file; the first run since
# $dir/reference was removed becomes it, and every later one must equal it.
best_run() {
	stats=$1 launch=$2
	shift 2
	best=
	for _ in $(seq "$repeats"); do
		rm -f "$dir/out"
		for last; do :; done
		cat "$last" >/dev/null # the input, from the page cache
		start=$(date +%s.%N)
		$launch "$gpusort" -T "$dir/tmp" --stats "$@" -o "$dir/out" 2>"$dir/stats.now"
		seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
		test -z "$(ls -A "$dir/tmp")"
		if [ -z "$best" ] || awk -v a="$seconds" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$seconds
			cp "$dir/stats.now" "$stats"
		fi
		if [ ! -e "$dir/reference" ]; then
			mv "$dir/out" "$dir/reference"
		else
			cmp "$dir/reference" "$dir/out"
		fi
	done
}
