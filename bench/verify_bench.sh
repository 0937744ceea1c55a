#!/bin/bash
# SPDX-License-Identifier: MIT
# What the self-check costs (issue 11: at most 3% of end-to-end time): the same sorts
# with and without --no-verify, alternating, RUNS each (default 7): medians, and the
# fastest of each (on the 2-core VM the kernel's page clearing adds up to a second to a
# random few runs, which moves even a median; the fastest runs are the undisturbed
# ones), the least user+sys CPU seconds of each, and --stats' verify time. Inputs in the
# page cache, output to a file in the work directory.
#   2 GiB of u64 keys (2^28), 1 GB of 100-byte records (10-byte keys), 10M text lines;
#   SCALE=small (the 2-core machine): 2^26 keys, 2^22 records, 4M lines.
# usage: bench/verify_bench.sh BUILD_DIR [WORK_DIR] [DEVICE]   (DEVICE: 0 or cpu; default auto)
set -u
build=$(cd "${1:?usage: verify_bench.sh BUILD_DIR [WORK_DIR] [DEVICE]}" && pwd)
work=${2:-/tmp/gpusort-verify}
device=${3:-auto}
mkdir -p "$work"
export LC_ALL=C
if [ "${SCALE:-}" = small ]; then keys=$((1 << 26)) records=$((1 << 22)) lines=4000000
else keys=$((1 << 28)) records=10000000 lines=10000000; fi

# Each run starts with the last output deleted and written back (sync, not timed), so
# that the writeback of one run's output does not land in the next run's time.
# Prints the wall seconds and the user+sys CPU seconds of the command (bash's times, in
# this shell, not a subshell: its children's so far, to the millisecond), which the other
# work on a shared machine moves less than the wall time.
seconds() {
	local s e
	rm -f "$work/out"; sync
	times > "$work/times.before"
	s=$(date +%s.%N); "$@" >/dev/null 2>&1 || echo "FAILED: $*" >&2; e=$(date +%s.%N)
	times > "$work/times.after"
	awk -v s="$s" -v e="$e" 'FNR == 2 { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); c[FILENAME] += t[1] * 60 + t[2] } }
		END { printf "%.3f %.3f\n", e - s, c[ARGV[2]] - c[ARGV[1]] }' "$work/times.before" "$work/times.after"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
fastest() { sort -n | head -n 1; }
percent() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f%%", (a - b) / b * 100 }'; }

[ -f "$work/keys.bin" ] || "$build/tests/keygen" --type=u64 --count=$keys --seed=7 -o "$work/keys.bin"
[ -f "$work/records.bin" ] || "$build/tests/keygen" --type=bytes --count=$records --seed=8 --record-size=100 --key-size=10 -o "$work/records.bin"
[ -f "$work/lines.txt" ] || "$build/tests/textgen" $lines 9 > "$work/lines.txt"
cat "$work/keys.bin" "$work/records.bin" "$work/lines.txt" > /dev/null

printf '%-26s %7s %9s %7s | %7s %9s %7s | %7s %9s %7s | %s\n' "input (device $device)" verify no-verify cost \
	"fastest" no-verify cost "cpu" no-verify cost "--stats verify line"
for spec in "u64 keys|--type=u64|keys.bin" "100-byte records|--record-size=100 --key-size=10|records.bin" \
	"text lines||lines.txt"; do
	IFS='|' read -r name opts file <<<"$spec"
	on=() off=()
	for ((i = 0; i < ${RUNS:-7}; i++)); do
		# shellcheck disable=SC2086
		on+=("$(seconds "$build/gpusort" --device=$device $opts "$work/$file" -o "$work/out")")
		off+=("$(seconds "$build/gpusort" --device=$device --no-verify $opts "$work/$file" -o "$work/out")")
	done
	t_on=$(printf '%s\n' "${on[@]}" | cut -d' ' -f1 | median) t_off=$(printf '%s\n' "${off[@]}" | cut -d' ' -f1 | median)
	f_on=$(printf '%s\n' "${on[@]}" | cut -d' ' -f1 | fastest) f_off=$(printf '%s\n' "${off[@]}" | cut -d' ' -f1 | fastest)
	c_on=$(printf '%s\n' "${on[@]}" | cut -d' ' -f2 | fastest) c_off=$(printf '%s\n' "${off[@]}" | cut -d' ' -f2 | fastest)
	# shellcheck disable=SC2086
	line=$("$build/gpusort" --device=$device --stats $opts "$work/$file" -o "$work/out" 2>&1 | grep 'stats: verify' | sed 's/gpusort: stats: //')
	printf '%-26s %7s %9s %7s | %7s %9s %7s | %7s %9s %7s | %s\n' "$name" "$t_on" "$t_off" "$(percent "$t_on" "$t_off")" \
		"$f_on" "$f_off" "$(percent "$f_on" "$f_off")" "$c_on" "$c_off" "$(percent "$c_on" "$c_off")" "$line"
done
rm -f "$work/out" "$work/times.before" "$work/times.after"
