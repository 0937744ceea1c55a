#!/bin/bash
# SPDX-License-Identifier: MIT
# How fast a single gpusort acts on SIGTERM (issue 44 part 3): a file of random u64 keys
# sorted to -o over an existing output, SIGTERM sent at a random moment of the run
# (reading, sorting on the CPU threads, spilling and merging under the smaller -S, writing),
# TRIES times for each of two budgets: the default -S (read, sort, write in memory) and
# -S SPILL (runs spilled and merged). Per try: when the signal came (seconds into the
# run), what was on disk then (runs in -T, the output's twin), the milliseconds until
# every temp file and the twin were gone ("acted", from the directories' times of change;
# the time to exit where there was nothing to remove), until the process was gone ("exited"),
# its exit status, and whether anything was left or the old output changed. Then the
# largest and the median of both times. Temp files go to a private -T and TMPDIR.
# usage: bench/signal_latency.sh BUILD_DIR [WORK_DIR] [KEYS] [TRIES] [SPILL]
set -u
build=$(cd "${1:?usage: signal_latency.sh BUILD_DIR [WORK_DIR] [KEYS] [TRIES] [SPILL]}" && pwd)
work=${2:-/tmp/gpusort-signals}
keys=${3:-200000000}
tries=${4:-8}
spill=${5:-400M}
mkdir -p "$work/tmp"
export LC_ALL=C TMPDIR=$work/tmp GPUSORT_MEMORY_DIR=
input=$work/keys-$keys.bin
[ -f "$input" ] || "$build/tests/keygen" --type=u64 --count="$keys" --dist=uniform --seed=11 -o "$input"
cat "$input" >/dev/null

now_ms() { echo $(($(date +%s%N) / 1000000)); }
# what a killed sort may leave: temp files in -T, the output's twin beside it
leftovers() { ls -A "$work/tmp"; ls -A "$work" | grep '^\.gpusort-out\.'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for budget in default "$spill"; do
	args=(--type=u64 -T "$work/tmp" "$input" -o "$work/out")
	[ "$budget" = default ] || args=(-S "$budget" "${args[@]}")
	rm -rf "${work:?}/tmp/"*
	s=$(now_ms)
	"$build/gpusort" "${args[@]}" || echo "FAILED: gpusort ${args[*]}" >&2
	full=$(($(now_ms) - s))
	echo "-S $budget: a whole run takes $full ms"
	: >"$work/acted" && : >"$work/exited"
	for try in $(seq "$tries"); do
		echo "old output" >"$work/out"
		# a moment between 5% and 95% of the run
		delay=$((full * (5 + RANDOM % 91) / 100))
		"$build/gpusort" "${args[@]}" 2>/dev/null &
		pid=$!
		sleep "$(awk -v d="$delay" 'BEGIN { printf "%.3f", d / 1000 }')"
		runs=$(ls "$work/tmp" | grep -c '^gpusort\.')
		twin=$(ls -A "$work" | grep '^\.gpusort-out\.' | head -n 1)
		twin_bytes=$([ -n "$twin" ] && stat -c %s "$work/$twin" 2>/dev/null || echo -)
		t0=$(date +%s.%N)
		kill -TERM $pid 2>/dev/null || { echo "try $try: at $delay ms: ended before the signal"; wait $pid; continue; }
		wait $pid
		status=$?
		t1=$(date +%s.%N)
		# the handler's unlinks are the last change to the two directories: their times
		# (the kernel's coarse clock, a few ms) tell when it acted, whatever this shell's
		# own scheduling on a busy machine
		changed=$(stat -c %.9Y "$work" "$work/tmp" | sort -n | tail -n 1)
		exited=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }')
		acted=$(awk -v a="$t0" -v b="$changed" -v e="$exited" 'BEGIN { d = (b - a) * 1000; printf "%d", (d > 0 ? d : e) }')
		left=$(leftovers | wc -l)
		kept=$([ "$(cat "$work/out")" = "old output" ] && echo kept || echo CHANGED)
		echo "try $try: at $delay ms (runs $runs, twin ${twin_bytes} bytes): acted $acted ms, exited $exited ms, status $status, left $left, old output $kept"
		echo "$acted" >>"$work/acted"
		echo "$exited" >>"$work/exited"
		rm -rf "${work:?}/tmp/"* "$work"/.gpusort-out.*
	done
	echo "-S $budget: acted within $(sort -n "$work/acted" | tail -n 1) ms (median $(median <"$work/acted")), exited within $(sort -n "$work/exited" | tail -n 1) ms (median $(median <"$work/exited"))"
done
rm -f "$work/out" "$work/acted" "$work/exited"
