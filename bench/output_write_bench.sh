#!/bin/bash
# SPDX-License-Identifier: MIT
# The in-memory sort's write stage, A/B in one run (issue 16 item 3): a file of random u64
# keys in the page cache sorted by gpusort as it chooses (beside the GPU: the output
# mapped and its pages faulted in during the sort) and with GPUSORT_OUTPUT_MAP=0 (pwrite),
# cp of the same file in between; ROUNDS rounds, alternating, every output checked
# (sortcheck), the last two compared; `sync` before each timed run, so that no run pays
# for the write-back of the one before. Prints each run's wall time and --stats stages,
# then the medians.
# usage: bench/output_write_bench.sh BUILD_DIR [WORK_DIR] [KEYS] [ROUNDS] [GPUSORT_ARGS...]
set -u
build=$(cd "${1:?usage: output_write_bench.sh BUILD_DIR [WORK_DIR] [KEYS] [ROUNDS] [ARGS...]}" && pwd)
work=${2:-/tmp/gpusort-write}
keys=${3:-268435456}
rounds=${4:-5}
shift $(($# < 4 ? $# : 4))
mkdir -p "$work"
export LC_ALL=C
input=$work/keys-$keys.bin
[ -f "$input" ] || "$build/tests/keygen" --type=u64 --count="$keys" --dist=uniform --seed=7 -o "$input"
cat "$input" >/dev/null

wall() { # wall COMMAND...: seconds of one run
	local s e
	s=$(date +%s.%N)
	"$@" || echo "FAILED: $*" >&2
	e=$(date +%s.%N)
	awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", e - s }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
stage() { awk -v s="$1" '$3 == s { printf "%s", $4 }' "$work/stats"; }

: >"$work/cp.times"
: >"$work/default.times"
: >"$work/pwrite.times"
for round in $(seq "$rounds"); do
	rm -f "$work/copy"
	sync
	t=$(wall cp "$input" "$work/copy")
	echo "$t" >>"$work/cp.times"
	echo "round $round: cp $t s"
	rm -f "$work/copy"
	for way in default pwrite; do
		rm -f "$work/out.$way"
		sync
		map=$([ $way = pwrite ] && echo 0 || echo "${GPUSORT_OUTPUT_MAP:-}")
		t=$(GPUSORT_OUTPUT_MAP=$map wall "$build/gpusort" --type=u64 --stats "$@" "$input" -o "$work/out.$way" 2>"$work/stats")
		echo "$t" >>"$work/$way.times"
		opened=$(sed -n 's/.*opened in \([0-9.]*\) s.*/\1/p' "$work/stats")
		echo "round $round: gpusort $way $t s (GPU opened in ${opened:-none}; read $(stage read), prepare $(stage prepare), sort $(stage sort), write $(stage write))"
		"$build/tests/sortcheck" --type=u64 "$input" "$work/out.$way" >/dev/null || echo "OUTPUT WRONG: $way"
	done
	cmp -s "$work/out.default" "$work/out.pwrite" || echo "OUTPUTS DIFFER"
done
c=$(median <"$work/cp.times") d=$(median <"$work/default.times") p=$(median <"$work/pwrite.times")
echo "medians of $rounds: cp $c s; gpusort $d s ($(awk -v a="$d" -v b="$c" 'BEGIN { printf "%.2f", a / b }')x cp); GPUSORT_OUTPUT_MAP=0 $p s ($(awk -v a="$p" -v b="$c" 'BEGIN { printf "%.2f", a / b }')x cp)"
rm -f "$work"/out.* "$work/stats" "$work"/*.times
