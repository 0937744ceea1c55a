#!/bin/sh
# SPDX-License-Identifier: MIT
# The external sort of binary records: inputs larger than -S become compressed runs in
# the -T directories and are merged (several passes when they exceed the fan-in); the
# output equals the in-memory sort and the oracle, and no temp file is left.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

mkdir "$WORK/tmp" "$WORK/tmp2"
export TMPDIR="$WORK/tmp"
temp_empty() { test -z "$(ls -A "$WORK/tmp")" && test -z "$(ls -A "$WORK/tmp2")"; }

# 1M bare u64 keys with 1 MiB of memory: 16 runs, fan-in below that: merge passes.
keygen --type=u64 --count=1000000 --dist=uniform --seed=11 -o "$WORK/keys"
"$GPUSORT" --type=u64 "$WORK/keys" -o "$WORK/mem"
"$GPUSORT" --type=u64 -S 1M --stats "$WORK/keys" -o "$WORK/ext" 2>"$WORK/stats"
tap_result $? "external sort of 1M u64 keys with -S 1M exits 0"
check "external output equals the in-memory output" cmp "$WORK/ext" "$WORK/mem"
check "external output is sorted and a permutation" sortcheck --type=u64 "$WORK/keys" "$WORK/ext"
runs=$(sed -n 's/.*runs \([0-9]*\),.*/\1/p' "$WORK/stats")
passes=$(sed -n 's/.*merge passes \([0-9]*\),.*/\1/p' "$WORK/stats")
test "${runs:-0}" -gt 1
tap_result $? "--stats counts several runs ($runs)"
test "${passes:-0}" -gt 1
tap_result $? "--stats counts more than one merge pass ($passes)"
check "no temp file left" temp_empty

# Records with payload: -r, -u, stability across runs, against the oracle.
keygen --type=i32 --count=200000 --dist=few-unique --seed=12 --record-size=20 --key-offset=4 -o "$WORK/rec"
for flags in "" "-r" "-u" "-r -u"; do
	# shellcheck disable=SC2086
	"$GPUSORT" --type=i32 --record-size=20 --key-offset=4 $flags -S 512K -T "$WORK/tmp" -T "$WORK/tmp2" "$WORK/rec" -o "$WORK/got"
	# shellcheck disable=SC2086
	oracle --type=i32 --record-size=20 --key-offset=4 $flags "$WORK/rec" "$WORK/want"
	check "external i32 records few-unique '$flags' equal the oracle" cmp "$WORK/got" "$WORK/want"
done
check "two -T directories: no temp file left" temp_empty

# Long bytes keys (prefix ties finished by memcmp) through runs.
keygen --type=bytes --key-size=16 --count=100000 --dist=few-unique --seed=13 --record-size=32 -o "$WORK/brec"
"$GPUSORT" --type=bytes --key-size=16 --record-size=32 -S 300K "$WORK/brec" -o "$WORK/got"
oracle --type=bytes --key-size=16 --record-size=32 "$WORK/brec" "$WORK/want"
check "external 16-byte keys equal the oracle" cmp "$WORK/got" "$WORK/want"

# A pipe as input (size unknown in advance).
cat "$WORK/keys" | "$GPUSORT" --type=u64 -S 1M > "$WORK/ext"
check "external sort from a pipe to stdout" cmp "$WORK/ext" "$WORK/mem"

# The parallel merge: at offsets into a file, in range order to stdout and under -u;
# the same bytes as one loser tree (--parallel=1) and the oracle.
keygen --type=u64 --count=300000 --dist=few-unique --seed=16 --record-size=16 -o "$WORK/fu"
for flags in "" "-u" "-r -u"; do
	# shellcheck disable=SC2086
	oracle --type=u64 --record-size=16 $flags "$WORK/fu" "$WORK/want"
	for parallel in 1 3; do
		# shellcheck disable=SC2086
		"$GPUSORT" --type=u64 --record-size=16 $flags -S 1M --parallel=$parallel "$WORK/fu" > "$WORK/got"
		check "external '$flags' --parallel=$parallel to stdout equals the oracle" cmp "$WORK/got" "$WORK/want"
		# shellcheck disable=SC2086
		"$GPUSORT" --type=u64 --record-size=16 $flags -S 1M --parallel=$parallel "$WORK/fu" -o "$WORK/got"
		check "external '$flags' --parallel=$parallel to a file equals the oracle" cmp "$WORK/got" "$WORK/want"
	done
done
check "parallel merges: no temp file left" temp_empty

# -m merges sorted inputs without sorting.
keygen --type=u64 --count=30000 --seed=14 --record-size=16 -o "$WORK/a"
keygen --type=u64 --count=20001 --seed=15 --record-size=16 -o "$WORK/b"
"$GPUSORT" --type=u64 --record-size=16 "$WORK/a" -o "$WORK/a.sorted"
"$GPUSORT" --type=u64 --record-size=16 "$WORK/b" -o "$WORK/b.sorted"
cat "$WORK/a.sorted" "$WORK/b.sorted" > "$WORK/ab"
oracle --type=u64 --record-size=16 "$WORK/ab" "$WORK/want"
"$GPUSORT" -m --type=u64 --record-size=16 "$WORK/a.sorted" "$WORK/b.sorted" -o "$WORK/got"
check "-m merges two sorted inputs" cmp "$WORK/got" "$WORK/want"
oracle --type=u64 --record-size=16 -u "$WORK/ab" "$WORK/want"
"$GPUSORT" -m -u --type=u64 --record-size=16 "$WORK/a.sorted" "$WORK/b.sorted" -o "$WORK/got"
check "-m -u keeps the first of equal keys" cmp "$WORK/got" "$WORK/want"
# Temp files and the page cache (io/cache_budget.h): runs within the budget are left to
# it, the rest written behind to the device (sync_file_range); GPUSORT_TEMP_CACHE sets
# the budget. The output is the same either way; --stats says how much was left.
keygen --type=u64 --count=4000000 --seed=16 -o "$WORK/big"
"$GPUSORT" --type=u64 "$WORK/big" -o "$WORK/want"
# cached_run BUDGET: an external sort of $WORK/big with that budget; prints the MiB left
# to the page cache and the temp MiB, as --stats says them.
cached_run() {
	GPUSORT_TEMP_CACHE=$1 "$GPUSORT" --type=u64 -S 4M --stats -T "$WORK/tmp" "$WORK/big" -o "$WORK/got" \
		2>"$WORK/stats"
	status=$?
	cmp -s "$WORK/got" "$WORK/want" && [ $status -eq 0 ] && temp_empty || echo "bad output"
	echo "$(sed -n 's/.* \([0-9.]*\) MiB left to the page cache.*/\1/p' "$WORK/stats") $(sed -n 's/.*, temp \([0-9.]*\) MiB.*/\1/p' "$WORK/stats")"
}
set -- $(cached_run 0)
[ "$1" = 0.0 ] && [ -n "$2" ]
tap_result $? "GPUSORT_TEMP_CACHE=0: every run written behind ($1 MiB left of $2), the output equal"
set -- $(cached_run 1G)
[ -n "$1" ] && [ "$1" = "$2" ]
tap_result $? "GPUSORT_TEMP_CACHE=1G: every run left to the page cache ($1 MiB of $2), the output equal"
set -- $(cached_run 3M)
awk -v c="${1:-x}" -v t="${2:-0}" 'BEGIN { exit !(c + 0 >= 3 && c + 0 <= 5 && t > c + 4) }'
tap_result $? "GPUSORT_TEMP_CACHE=3M: about 3 MiB left (one block more at most), the rest written behind ($1 MiB of $2)"
# sync_file_range counted by strace: none when the runs fit the budget
if strace -f -o /dev/null true 2>/dev/null; then
	for budget in 0 1G; do
		GPUSORT_TEMP_CACHE=$budget strace -f -qq -e trace=sync_file_range -o "$WORK/trace" "$GPUSORT" --type=u64 -S 4M \
			-T "$WORK/tmp" "$WORK/big" -o "$WORK/got"
		echo "$(grep -c sync_file_range "$WORK/trace")" > "$WORK/syncs.$budget"
	done
	[ "$(cat "$WORK/syncs.0")" -gt 0 ] && [ "$(cat "$WORK/syncs.1G")" -eq 0 ]
	tap_result $? "runs written behind call sync_file_range ($(cat "$WORK/syncs.0") times), runs left to the page cache never"
else
	skip_test "no strace that may trace here: cannot count sync_file_range"
fi
# tmpfs has no device behind it: the budget is 0 there, and writing behind costs nothing
if [ -d /dev/shm ] && [ -w /dev/shm ] && [ "$(stat -f -c %T /dev/shm)" = tmpfs ]; then
	shm=$(mktemp -d /dev/shm/gpusort-test.XXXXXX)
	"$GPUSORT" --type=u64 -S 4M --stats -T "$shm" "$WORK/big" -o "$WORK/got" 2>"$WORK/stats"
	left=$(sed -n 's/.* \([0-9.]*\) MiB left to the page cache.*/\1/p' "$WORK/stats")
	cmp -s "$WORK/got" "$WORK/want" && [ "$left" = 0.0 ] && [ -z "$(ls -A "$shm")" ]
	tap_result $? "temp files on tmpfs: none left to the page cache's budget ($left MiB), the output equal"
	rm -rf "$shm"
else
	skip_test "no writable tmpfs at /dev/shm"
fi
done_testing
