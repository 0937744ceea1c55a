#!/bin/bash
# SPDX-License-Identifier: MIT
# Two builds of gpusort on the same inputs, end to end, for "no regression" checks:
# u64 keys, 100-byte records and text lines, each in memory and spilled under -S. The
# builds take turns in the order A B B A (the run after another pays for its output's
# page-cache release, so a fixed order favours the first); 2 x ROUNDS runs each (ROUNDS
# default 4): the medians, and the fastest of each (on the 2-core VM the kernel's page
# clearing adds up to a second to a random few runs; the fastest are the undisturbed).
#   SCALE=small (the 2-core machine): 2^26 keys, 2^22 records, 4M lines;
#   else 2^28 keys, 10^7 records, 10^7 lines.
# usage: bench/compare_builds.sh OLD_GPUSORT NEW_GPUSORT TOOLS_BUILD_DIR [WORK_DIR] [DEVICE]
set -u
old=${1:?usage: compare_builds.sh OLD NEW TOOLS_BUILD_DIR [WORK_DIR] [DEVICE]} new=${2:?} tools=${3:?}
work=${4:-/tmp/gpusort-compare} device=${5:-auto}
mkdir -p "$work"
export LC_ALL=C
if [ "${SCALE:-}" = small ]; then keys=$((1 << 26)) records=$((1 << 22)) lines=4000000 spill=64M
else keys=$((1 << 28)) records=10000000 lines=10000000 spill=512M; fi
[ -f "$work/keys.bin" ] || "$tools/tests/keygen" --type=u64 --count=$keys --seed=7 -o "$work/keys.bin"
[ -f "$work/records.bin" ] || "$tools/tests/keygen" --type=bytes --count=$records --seed=8 --record-size=100 --key-size=10 -o "$work/records.bin"
[ -f "$work/lines.txt" ] || "$tools/tests/textgen" $lines 9 > "$work/lines.txt"
cat "$work/keys.bin" "$work/records.bin" "$work/lines.txt" > /dev/null

seconds() {
	local s e
	rm -f "$work/out"; sync
	s=$(date +%s.%N); "$@" -o "$work/out" >/dev/null 2>&1 || echo "FAILED: $*" >&2; e=$(date +%s.%N)
	awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f\n", e - s }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (v[int((NR + 1) / 2)] + v[int(NR / 2) + 1]) / 2 }'; }
fastest() { sort -n | head -n 1; }
change() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f%%", (b - a) / a * 100 }'; }

printf '%-30s %7s %7s %7s | %7s %7s %7s\n' "case (device $device)" old new change "fastest" new change
for spec in "u64 keys|--type=u64|keys.bin" "u64 keys, -S $spill|--type=u64 -S $spill|keys.bin" \
	"100-byte records|--record-size=100 --key-size=10|records.bin" \
	"100-byte records, -S $spill|--record-size=100 --key-size=10 -S $spill|records.bin" \
	"text lines||lines.txt" "text lines, -S $spill|-S $spill|lines.txt"; do
	IFS='|' read -r name opts file <<<"$spec"
	a=() b=()
	for ((i = 0; i < ${ROUNDS:-4}; i++)); do
		# shellcheck disable=SC2086
		a+=("$(seconds "$old" --device=$device $opts "$work/$file")")
		# shellcheck disable=SC2086
		b+=("$(seconds "$new" --device=$device $opts "$work/$file")")
		# shellcheck disable=SC2086
		b+=("$(seconds "$new" --device=$device $opts "$work/$file")")
		# shellcheck disable=SC2086
		a+=("$(seconds "$old" --device=$device $opts "$work/$file")")
	done
	t_old=$(printf '%s\n' "${a[@]}" | median) t_new=$(printf '%s\n' "${b[@]}" | median)
	f_old=$(printf '%s\n' "${a[@]}" | fastest) f_new=$(printf '%s\n' "${b[@]}" | fastest)
	printf '%-30s %7.3f %7.3f %7s | %7.3f %7.3f %7s\n' "$name" "$t_old" "$t_new" "$(change "$t_old" "$t_new")" \
		"$f_old" "$f_new" "$(change "$f_old" "$f_new")"
done
rm -f "$work/out"
