#!/bin/sh
# SPDX-License-Identifier: MIT
# The spill and merge pipeline under threads: runs compressed on 1, 2 and 4 threads and
# merged in several passes whose groups run on threads keep equal keys in input order
# (the stable oracle), for records and for text lines; --stats counts every run written
# at a level or stored; a tmpfs temp directory (where stored runs are likely) gives the
# same output; no temp file is left.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

mkdir "$WORK/tmp"
export TMPDIR="$WORK/tmp"
temp_empty() { test -z "$(ls -A "$WORK/tmp")"; }

# Few distinct keys in 24-byte records (the rest of each record its position): any
# record out of its input order among equals shows.
keygen --type=u32 --count=300000 --dist=few-unique --seed=21 --record-size=24 --key-offset=8 -o "$WORK/rec"
oracle --type=u32 --record-size=24 --key-offset=8 "$WORK/rec" "$WORK/want"
for parallel in 1 2 4; do
	"$GPUSORT" --type=u32 --record-size=24 --key-offset=8 -S 1M --batch-size=3 --parallel=$parallel --stats \
		"$WORK/rec" -o "$WORK/got" 2>"$WORK/stats"
	check "--batch-size=3 --parallel=$parallel: passes on threads, stable, equal to the oracle" \
		cmp "$WORK/got" "$WORK/want"
	runs=$(sed -n 's/.*runs \([0-9]*\), merge passes \([0-9]*\).*/\1/p' "$WORK/stats")
	passes=$(sed -n 's/.*merge passes \([0-9]*\),.*/\1/p' "$WORK/stats")
	counted=$(sed -n 's/.*runs written \([^;]*\);.*/\1/p' "$WORK/stats" | tr ',' '\n' | awk '{ s += $NF } END { print s + 0 }')
	test "${passes:-0}" -gt 2 && test "${runs:-0}" -gt 3 && test "$counted" = "$runs"
	tap_result $? "--parallel=$parallel: $passes merge passes; the $runs runs all counted by level ($counted)"
done
check "records: no temp file left" temp_empty

# -r and -u through parallel passes.
for flags in "-r" "-u" "-r -u"; do
	# shellcheck disable=SC2086
	oracle --type=u32 --record-size=24 --key-offset=8 $flags "$WORK/rec" "$WORK/want"
	# shellcheck disable=SC2086
	"$GPUSORT" --type=u32 --record-size=24 --key-offset=8 $flags -S 1M --batch-size=2 --parallel=3 \
		"$WORK/rec" -o "$WORK/got"
	check "'$flags' --batch-size=2 --parallel=3 equals the oracle" cmp "$WORK/got" "$WORK/want"
done

# Text lines with equal keys: -s keeps their order, like the system sort's.
awk 'BEGIN { for (i = 0; i < 200000; i++) printf "%d key%03d line %d\n", i % 7, (i * 7919) % 600, i }' \
	> "$WORK/lines"
LC_ALL=C sort -s -k2,2 "$WORK/lines" > "$WORK/want"
LC_ALL=C "$GPUSORT" -s -k2,2 -S 1M --batch-size=2 --parallel=3 "$WORK/lines" -o "$WORK/got"
check "text -s -k2,2 --batch-size=2 --parallel=3 equals LC_ALL=C sort -s" cmp "$WORK/got" "$WORK/want"
check "text: no temp file left" temp_empty

# A tmpfs temp directory: whatever each run chose, the same output.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	shm=$(mktemp -d /dev/shm/gpusort-test.XXXXXX)
	keygen --type=u64 --count=2000000 --dist=uniform --seed=22 -o "$WORK/keys"
	"$GPUSORT" --type=u64 "$WORK/keys" -o "$WORK/mem"
	"$GPUSORT" --type=u64 -S 2M -T "$shm" --stats "$WORK/keys" -o "$WORK/got" 2>"$WORK/stats"
	check "u64 keys spilled to tmpfs equal the in-memory sort" cmp "$WORK/got" "$WORK/mem"
	grep -q "runs written" "$WORK/stats"
	tap_result $? "--stats says how the runs were written: $(sed -n 's/.*runs written \([^;]*\);.*/\1/p' "$WORK/stats")"
	check "tmpfs: no temp file left" test -z "$(ls -A "$shm")"
	rmdir "$shm"
else
	for _ in 1 2 3; do skip_test "no writable /dev/shm"; done
fi
done_testing
