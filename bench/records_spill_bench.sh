#!/bin/sh
# SPDX-License-Identifier: MIT
# Out-of-core records, two builds timed in the same run: COUNT 100-byte gensort-style
# records (bench/gensort_records.c) sorted by a 10-byte key with -S BUDGET and -T DIR,
# by each build in turn, REPEATS times interleaved. Prints per run the wall time, %CPU,
# CPU seconds (user + system) and peak RSS (/usr/bin/time), the CPU use of the spill
# phase (sampled from /proc every 50 ms by bench/cpu_sample.c while runs appear in DIR:
# from the start until the last new run file), the --stats spill and merge seconds, the runs written and the temp ratio;
# then each build's best wall time, and one run of the new build with -u (its ranges
# moved into place after the merge where duplicates were dropped: the same memory bound).
# Each run starts after a sync and a pause of SETTLE seconds (default 15), so that
# neither build pays for the writeback of the input or of the other's output: on the dev
# VM, a sync returns while the layers below the guest still write, and a run started at
# once after a 5 GB output (c6f8751's) spilled at 176-182% CPU against 185% after the
# pause or after a run of its own build. Ends with the floor
# measured in the same run: zstd level 1 of the input on every core, and cp of it, and
# the CPU share zstd keeps busy on its own threads (the peer of the spill phase's CPU).
# Usage: [SETTLE=S] bench/records_spill_bench.sh OLD_GPUSORT NEW_GPUSORT [COUNT] [BUDGET] [DIR] [REPEATS]
#   COUNT 50000000 (5 GB), BUDGET 512M, DIR a fresh directory under $TMPDIR or /tmp,
#   REPEATS 1. The input, outputs and runs are removed at the end.
set -e
old=$1
new=$2
count=${3:-50000000}
budget=${4:-512M}
base=${5:-${TMPDIR:-/tmp}}
repeats=${6:-1}
settle=${SETTLE:-15}
[ -x "$old" ] && [ -x "$new" ] || { echo "usage: $0 OLD_GPUSORT NEW_GPUSORT [COUNT] [BUDGET] [DIR] [REPEATS]" >&2; exit 2; }
dir=$(mktemp -d "$base/gpusort-records-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/tmp"
here=$(dirname "$0")
cc -O2 -o "$dir/gensort_records" "$here/gensort_records.c"
cc -O2 -o "$dir/cpu_sample" "$here/cpu_sample.c"
"$dir/gensort_records" "$count" 7 > "$dir/input"
hz=$(getconf CLK_TCK)
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $count records, -S $budget, -T $dir/tmp, $settle s of quiet before each run"

# run NAME BINARY [OPTION...]: one sort, sampled; prints one row and keeps the wall time
# in $dir/NAME.walls
run() {
	name=$1
	binary=$2
	shift 2
	rm -f "$dir/out"
	sync
	sleep "$settle"
	/usr/bin/time -f "%e %P %U %S %M" -o "$dir/time" "$binary" "$@" --record-size=100 --key-size=10 -S "$budget" \
		-T "$dir/tmp" --stats "$dir/input" -o "$dir/out" 2> "$dir/stats" &
	timer=$!
	sleep 0.05
	pid=$(pgrep -P "$timer" | head -1)
	"$dir/cpu_sample" "$pid" "$dir/tmp" 50 > "$dir/samples"
	wait "$timer" || { echo "# $name failed:"; sed 's/^/#   /' "$dir/stats"; return 1; }
	spill_cpu=$(awk -v hz="$hz" '{ t[NR] = $1; c[NR] = $2; if ($3 > most) { most = $3; last = NR } }
		END { w = t[last] - t[1]; p = (w > 0) ? 100 * (c[last] - c[1]) / hz / w : 0; printf "%.0f%% over %.1f s", p, w }' \
		"$dir/samples")
	stage() { awk -v s="$1" '$2 == "stats:" && $3 == s { print $4 }' "$dir/stats"; }
	ratio=$(sed -n 's/.*compression ratio \([0-9.]*\).*/\1/p' "$dir/stats")
	written=$(sed -n 's/.*runs written \([^;]*\);.*/\1/p' "$dir/stats")
	read -r wall cpu user system rss < "$dir/time"
	echo "$wall" >> "$dir/$name.walls"
	printf '%-5s wall %6.1f s  CPU %5s (%.1f s)  RSS %d MiB  spill phase CPU %s  spill %s s  merge %s s  write %s s  temp ratio %s  %s\n' \
		"$name" "$wall" "$cpu" "$(echo "$user $system" | awk '{ print $1 + $2 }')" $((rss / 1024)) "$spill_cpu" \
		"$(stage spill)" "$(stage merge)" "$(stage write)" "$ratio" "${written:+runs: $written}"
}

for _ in $(seq "$repeats"); do
	run old "$old"
	run new "$new"
done
# -u: the ranges' lengths are known only once merged: the same memory bound holds
run new-u "$new" -u
best_old=$(sort -n "$dir/old.walls" | head -1)
best_new=$(sort -n "$dir/new.walls" | head -1)
echo "best wall: old $best_old s, new $best_new s, new/old $(echo "$best_new $best_old" | awk '{ printf "%.2f", $1 / $2 }')"

# The floor in the same run: a sort of runs that must be compressed (to zstd level 1's
# ratio at least) compresses every byte on the cores before its first output byte, and
# then writes the whole output, which cp of the input shows (after a sync, as each run
# above starts; the input is in the page cache). Without zstd, the floor is cp's alone.
seconds_of() {
	start=$(date +%s.%N)
	"$@"
	awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'
}
rm -f "$dir/out"
sync
sleep "$settle"
copy=$(seconds_of cp "$dir/input" "$dir/out")
rm -f "$dir/out"
compress=0
if command -v zstd >/dev/null; then
	compress=$(seconds_of sh -c 'zstd -q -1 -T"$(nproc)" -c "$1" >/dev/null' sh "$dir/input")
	# the CPU share zstd's own threads keep busy on the same bytes, beside the spill's
	/usr/bin/time -f "%P" -o "$dir/time" zstd -q -1 -T"$(nproc)" -c "$dir/input" >/dev/null
	echo "zstd -1 -T$(nproc) on the input, a second time: CPU $(cat "$dir/time")"
fi
echo "floor: zstd -1 on $(nproc) threads $compress s + cp of the input $copy s =" \
	"$(echo "$compress $copy" | awk '{ printf "%.2f", $1 + $2 }') s; 0.6 x old's best: $(echo "$best_old" | awk '{ printf "%.2f", 0.6 * $1 }') s"
