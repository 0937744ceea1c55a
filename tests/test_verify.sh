#!/bin/sh
# SPDX-License-Identifier: MIT
# The self-check every sort makes (binary and text): on correct sorts --stats reports it matched;
# a bug planted after the engine (GPUSORT_FAULT=sort_swap / sort_duplicate, see
# io/fault_inject.h) is caught in memory, spilled, under -u, -r and -z, for bare keys,
# records and long byte keys: exit 2, "internal error", the old output untouched and no
# temp file left; --no-verify lets the same bug through (so it is the check that
# catches it). Text's bytes are checked from their read on: lines carried from one chunk
# into the next from the wrong place (GPUSORT_FAULT=text_carry, the bug of ef648ce) are
# caught by the words taken as read and as scanned.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

mkdir "$WORK/tmp"
export TMPDIR="$WORK/tmp"
keygen --type=u32 --count=200001 -o "$WORK/u32"
keygen --type=i64 --count=100003 --record-size=24 --key-offset=8 -o "$WORK/rec"
keygen --type=u64 --count=50001 --record-size=100 --key-size=12 -o "$WORK/long"
"$TESTS_BUILDDIR/textgen" 60001 11 > "$WORK/text"
"$TESTS_BUILDDIR/textgen" 60001 12 4 3 8 > "$WORK/ties"
tr '\n' '\0' < "$WORK/text" > "$WORK/text0"

untouched() {
	test "$(cat "$WORK/out")" = "old output" && test -z "$(ls -A "$WORK/tmp")"
}

# name | options (the input last)
while IFS='|' read -r name args; do
	echo "old output" > "$WORK/out"
	expect_status 0 "$name: a correct sort passes its check" "$GPUSORT" --stats $args -o "$WORK/out"
	stderr_has "records in and out matched, output in order" "$name: --stats reports the check"
	for bug in sort_swap sort_duplicate; do
		echo "old output" > "$WORK/out"
		GPUSORT_FAULT=$bug:SHORT expect_status 2 "$name: $bug is caught" "$GPUSORT" $args -o "$WORK/out"
		stderr_has "gpusort: internal error: " "$name: $bug is reported as an internal error"
		check "$name: $bug leaves the old output and no temp file" untouched
	done
	GPUSORT_FAULT=sort_swap:SHORT expect_status 0 "$name: --no-verify lets the planted bug through" \
		"$GPUSORT" --no-verify $args -o "$WORK/out"
done <<LIST
u32 in memory|-k $WORK/u32
u32 in memory -u -r|-u -r -k $WORK/u32
u32 spilled|-S 256K -k $WORK/u32
u32 spilled -u, one thread|-S 256K -u --parallel=1 -k $WORK/u32
i64 records|--type=i64 --record-size=24 --key-offset=8 $WORK/rec
i64 records spilled -r|--type=i64 --record-size=24 --key-offset=8 -r -S 512K $WORK/rec
i64 records -u|--type=i64 --record-size=24 --key-offset=8 -u $WORK/rec
12-byte keys|--type=bytes --record-size=100 --key-size=12 $WORK/long
12-byte keys spilled -u|--type=bytes --record-size=100 --key-size=12 -u -S 1M $WORK/long
10-byte keys -r|--type=bytes --record-size=100 --key-size=10 -r $WORK/long
text lines|$WORK/text
text lines with ties -n -u|-n -u $WORK/ties
text lines -r|-r $WORK/text
text lines -z|-z $WORK/text0
short text lines with ties|$WORK/ties
text lines spilled|-S 100K $WORK/text
text lines with ties spilled -k2 -u, one thread|-k2 -u -S 100K --parallel=1 $WORK/ties
LIST

awk 'BEGIN { srand(3); while (n++ < 200000) printf "%c\n", 97 + int(rand() * 10) }' > "$WORK/short"
# name | options (the input last): sorts of several chunks
while IFS='|' read -r name args; do
	"$GPUSORT" $args -o "$WORK/right"
	echo "old output" > "$WORK/out"
	GPUSORT_FAULT=text_carry:SHORT expect_status 2 "$name: a misplaced carry is caught" "$GPUSORT" $args -o "$WORK/out"
	stderr_has "gpusort: internal error: the lines sorted differ from the bytes read" \
		"$name: a misplaced carry is reported as the bytes read changed"
	check "$name: a misplaced carry leaves the old output and no temp file" untouched
	GPUSORT_FAULT=text_carry:SHORT expect_status 0 "$name: --no-verify lets a misplaced carry through" \
		"$GPUSORT" --no-verify $args -o "$WORK/out"
	check "$name: and the output it lets through is wrong" test "$(cksum < "$WORK/out")" != "$(cksum < "$WORK/right")"
done <<LIST
text lines spilled|-S 100K $WORK/text
text lines with ties spilled -k1,1 -u, one thread|-k1,1 -u -S 100K --parallel=1 $WORK/ties
text lines -z spilled -r|-z -r -S 100K $WORK/text0
one-letter lines, chunks in turns in one buffer|-S 2M $WORK/short
LIST

expect_status 0 "--no-verify: --stats says the check is off" "$GPUSORT" --no-verify --stats -k "$WORK/u32" -o "$WORK/out"
stderr_has "verify off" "--stats shows verify off"

done_testing
