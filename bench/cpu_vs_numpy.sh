#!/bin/sh
# SPDX-License-Identifier: MIT
# gpusort on CPU threads against numpy.sort on the same 2^26 random u64 keys: times
# both in one run, checks the outputs are identical, prints a table.
#   bench/cpu_vs_numpy.sh BUILD_DIR [COUNT] [ROUNDS]     (BUILD_DIR holds gpusort, tests/keygen)
set -eu

build=${1:?usage: cpu_vs_numpy.sh BUILD_DIR [COUNT] [ROUNDS]}
count=${2:-67108864}
rounds=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
python=/usr/bin/python3                 # Debian's python3 is the one with numpy
work=$(mktemp -d "${TMPDIR:-/tmp}/cpu_vs_numpy.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

"$build/tests/keygen" --type=u64 --count="$count" --dist=uniform --seed=1 -o "$work/in.bin"

# wall seconds of a command, from date's nanoseconds
seconds() {
	start=$(date +%s.%N)
	"$@"
	end=$(date +%s.%N)
	echo "$start $end" | awk '{ printf "%.3f", $2 - $1 }'
}

echo "# $count uniform u64 keys ($(($count * 8 / 1048576)) MiB), $(nproc) cores, $rounds rounds"
printf '%-6s %-34s %-34s %s\n' round "gpusort --type=u64 --device=cpu" "numpy sort alone / read+sort+write" speedup
for round in $(seq "$rounds"); do
	rm -f "$work/gpusort.out" "$work/numpy.out"
	gpusort_s=$(seconds "$build/gpusort" --type=u64 --device=cpu "$work/in.bin" -o "$work/gpusort.out")
	numpy=$("$python" "$here/numpy_sort.py" "$work/in.bin" "$work/numpy.out")
	numpy_sort=$(echo "$numpy" | awk '{ print $2 }')
	numpy_total=$(echo "$numpy" | awk '{ print $4 }')
	if ! cmp -s "$work/gpusort.out" "$work/numpy.out"; then
		echo "round $round: outputs differ" >&2
		exit 1
	fi
	speedup=$(echo "$numpy_total $gpusort_s" | awk '{ printf "%.2fx", $1 / $2 }')
	printf '%-6s %-34s %-34s %s\n' "$round" "${gpusort_s} s" "${numpy_sort} s / ${numpy_total} s" "$speedup"
done
echo "# outputs identical; speedup = numpy read+sort+write / gpusort (both read and write the files)"
