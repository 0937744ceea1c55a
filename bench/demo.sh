#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo: generates 2^26 random u64 keys (512 MiB), sorts them with gpusort, checks
# the result (in order, a permutation of the input) and prints the time.
set -e
build=${1:-.}
dir=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-demo.XXXXXX")
trap 'rm -rf "$dir"' EXIT
count=${DEMO_COUNT:-67108864}
echo "demo: generating $count random u64 keys"
"$build/tests/keygen" --type=u64 --count="$count" --dist=uniform --seed=42 -o "$dir/keys.bin"
echo "demo: gpusort --type=u64 keys.bin -o sorted.bin --stats"
start=$(date +%s.%N)
"$build/gpusort" --type=u64 "$dir/keys.bin" -o "$dir/sorted.bin" --stats
end=$(date +%s.%N)
"$build/tests/sortcheck" --type=u64 "$dir/keys.bin" "$dir/sorted.bin"
awk -v s="$start" -v e="$end" -v n="$count" 'BEGIN { t = e - s; printf "demo: sorted %d keys (%.0f MiB) in %.2f s, %.1f Mkeys/s\n", n, n * 8 / 1048576, t, n / t / 1e6 }'
