#!/bin/sh
# External vs in-memory binary sort on the same file in the same run: a file of random
# u64 keys sorted once with the default budget (in memory) and once with -S = input/8
# (eight runs or more, spilled compressed and merged), each checked with
# tests/sortcheck; prints seconds, MB/s, peak RSS, the temp peak and the ratio.
# Usage: bench/external_bench.sh [GPUSORT] [KEYGEN_DIR] [COUNT] [REPEATS]
#   GPUSORT     the binary (default ./gpusort); KEYGEN_DIR holds keygen and sortcheck
#   COUNT       u64 keys (default 268435456: 2 GiB); REPEATS runs of each (best kept)
set -e
gpusort=${1:-./gpusort}
tools=${2:-./tests}
count=${3:-268435456}
repeats=${4:-2}
dir=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-external-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/tmp"
input=$dir/input
"$tools/keygen" --type=u64 --count="$count" --seed=1 -o "$input"
bytes=$(wc -c < "$input")
budget=$((bytes / 8 / 1048576))M  # a bare number would mean KiB, as in GNU sort
cat "$input" > /dev/null  # both runs start from the page cache

# run NAME ARGS...: the best of $repeats wall times; prints one table row.
run() {
	name=$1
	shift
	best=
	for _ in $(seq "$repeats"); do
		/usr/bin/time -f "%e %M" -o "$dir/time" "$gpusort" --type=u64 --stats -T "$dir/tmp" "$@" \
			"$input" -o "$dir/out" 2> "$dir/stats"
		read -r seconds rss < "$dir/time"
		if [ -z "$best" ] || awk -v a="$seconds" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$seconds
			best_rss=$rss
			temp_peak=$(sed -n 's/.*temp peak \([0-9.]*\) MiB.*/\1/p' "$dir/stats")
			runs=$(sed -n 's/.*runs \([0-9]*\),.*/\1/p' "$dir/stats")
		fi
		"$tools/sortcheck" --type=u64 "$input" "$dir/out" > /dev/null
		test -z "$(ls -A "$dir/tmp")"
	done
	awk -v n="$name" -v s="$best" -v b="$bytes" -v r="$best_rss" -v t="${temp_peak:-0}" -v u="${runs:-0}" \
		'BEGIN { printf "| %s | %.2f | %.0f | %.0f | %s | %s |\n", n, s, b / s / 1e6, r / 1024, u, t }'
	echo "$best" > "$dir/seconds.$name"
}

echo "input: $count u64 keys ($bytes bytes), $(nproc) cores, -S $budget for the external run"
echo "| run | seconds | MB/s | peak RSS MiB | runs | temp peak MiB |"
echo "|---|---|---|---|---|---|"
run in-memory
run external -S "$budget"
awk -v m="$(cat "$dir/seconds.in-memory")" -v e="$(cat "$dir/seconds.external")" \
	'BEGIN { printf "external throughput = %.0f%% of in-memory\n", 100 * m / e }'
