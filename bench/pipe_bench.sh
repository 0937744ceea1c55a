#!/bin/bash
# SPDX-License-Identifier: MIT
# Binary input of unknown size against the same input from its file (issue 44): 8 bytes
# (--type=u32) and 1 GiB of random u64 keys (--type=u64), each sorted ROUNDS times
# (default 5) by every build given, from the file and through `cat FILE |`, interleaved.
# Each run starts with the last output removed and written back (sync, not timed); the
# input is in the page cache. Prints every run's wall seconds, and of gpusort alone
# (/usr/bin/time) the least CPU seconds (user + system) and peak RSS, then per build and
# input the fastest and the median of each and the pipe's over the file's (targets:
# 8 bytes within 2x, 1 GiB within 1.3x). On a machine that other work keeps busy the
# pipe's two processes take a larger share of the cores than the file's one: its wall
# times then flatter it, its CPU seconds less so.
# usage: bench/pipe_bench.sh GPUSORT... (env: ROUNDS, WORK (default /tmp/gpusort-pipe),
#   MIB: the large input's size, default 1024)
set -u
[ $# -ge 1 ] || { echo "usage: $0 GPUSORT..." >&2; exit 2; }
work=${WORK:-/tmp/gpusort-pipe}
rounds=${ROUNDS:-5}
mib=${MIB:-1024}
mkdir -p "$work"
printf 'abcdefgh' > "$work/eight.bin"
[ "$(stat -c %s "$work/keys.bin" 2>/dev/null)" = $((mib << 20)) ] ||
	head -c $((mib << 20)) /dev/urandom > "$work/keys.bin"
cat "$work/keys.bin" > /dev/null
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $rounds rounds"

# one BUILD HOW TYPE INPUT: one sort (HOW: file or pipe); prints "WALL RSS_KIB CPU", the
# wall seconds of the whole command (the pipe's: cat's too) to the millisecond
one() {
	local start end
	rm -f "$work/out"
	sync
	start=$(date +%s.%N)
	if [ "$2" = file ]; then
		/usr/bin/time -f '%M %U %S' -o "$work/time" "$1" --type="$3" "$4" -o "$work/out" 2>/dev/null
	else
		cat "$4" | /usr/bin/time -f '%M %U %S' -o "$work/time" "$1" --type="$3" -o "$work/out" 2>/dev/null
	fi || echo "FAILED: $1 $2 $4" >&2
	end=$(date +%s.%N)
	awk -v s="$start" -v e="$end" '{ printf "%.3f %s %.2f\n", e - s, $1, $2 + $3 }' <(tail -n 1 "$work/time")
}
fastest() { sort -n | head -n 1; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for build in "$@"; do
	for spec in "8 bytes|u32|eight.bin" "$mib MiB of u64|u64|keys.bin"; do
		IFS='|' read -r name type input <<< "$spec"
		: > "$work/file.runs"
		: > "$work/pipe.runs"
		for ((i = 0; i < rounds; i++)); do
			one "$build" file "$type" "$work/$input" >> "$work/file.runs"
			one "$build" pipe "$type" "$work/$input" >> "$work/pipe.runs"
		done
		for how in file pipe; do
			printf '%s, %s, %-4s: wall %s s; CPU %s s; peak RSS %s KiB\n' "$build" "$name" "$how" \
				"$(cut -d' ' -f1 "$work/$how.runs" | paste -sd' ')" "$(cut -d' ' -f3 "$work/$how.runs" | fastest)" \
				"$(cut -d' ' -f2 "$work/$how.runs" | fastest)"
		done
		ff=$(cut -d' ' -f1 "$work/file.runs" | fastest) pf=$(cut -d' ' -f1 "$work/pipe.runs" | fastest)
		fm=$(cut -d' ' -f1 "$work/file.runs" | median) pm=$(cut -d' ' -f1 "$work/pipe.runs" | median)
		fc=$(cut -d' ' -f3 "$work/file.runs" | fastest) pc=$(cut -d' ' -f3 "$work/pipe.runs" | fastest)
		awk -v b="$build" -v n="$name" -v ff="$ff" -v pf="$pf" -v fm="$fm" -v pm="$pm" -v fc="$fc" -v pc="$pc" '
			function ratio(p, f) { return p / (f > 0 ? f : 0.01) }
			BEGIN { printf "%s, %s: fastest file %.3f s, pipe %.3f s (x%.2f); median file %.3f s, pipe %.3f s (x%.2f); least CPU file %.2f s, pipe %.2f s (x%.2f)\n",
				b, n, ff, pf, ratio(pf, ff), fm, pm, ratio(pm, fm), fc, pc, ratio(pc, fc) }'
	done
done
rm -f "$work/out"
