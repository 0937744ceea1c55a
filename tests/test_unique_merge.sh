#!/bin/sh
# SPDX-License-Identifier: MIT
# -u over spilled runs, merged in key ranges on several threads into a file: each range
# is written where it would start without -u and, once all are merged, moved down to
# follow the one before (src/pipeline/range_merge.c, compact_unique). The duplicates that
# cross runs are placed to fall in the first range (everything after it moves), the last
# (nothing moves; the file is cut), in every range, in none, and nearly everywhere (few
# distinct keys); on 1, 2, 3 and 5 threads, through the page cache and past it; 36 MB
# whose ranges move while later ones merge; each
# output equal to the oracle's and to -u's output through a pipe (the ranges handed over
# in order). A failed read or write while moving exits 2 naming the output, the old
# output untouched and no temp file left; short reads and writes are carried on; a run's
# read failing while the ranges go to a pipe exits 2 naming the run.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

mkdir "$WORK/tmp"
export TMPDIR="$WORK/tmp"
no_temp() { test -z "$(ls -A "$WORK/tmp")" && test -z "$(ls -A "$WORK" | grep '^\.gpusort')"; }
SIZE=24
KEYS="--type=u64 --record-size=$SIZE --key-offset=4"
moved() { sed -n 's/.*moved into place after the duplicates dropped: \([0-9.]*\) MiB.*/\1/p' "$WORK/stats"; }

# 40000 records of distinct keys (960 KB), runs of -S 64K
keygen $KEYS --count=40000 --dist=uniform --seed=71 -o "$WORK/distinct"
"$GPUSORT" $KEYS "$WORK/distinct" -o "$WORK/sorted"
record() { dd if="$WORK/sorted" bs=$SIZE skip="$1" count=1 2>/dev/null; }

# the cases: NAME, then how the input is made from the distinct records
make_case() {
	cp "$WORK/distinct" "$WORK/in"
	case $1 in
	none) ;;
	first) record 0 >> "$WORK/in"; record 1 >> "$WORK/in" ;;   # the smallest keys, again
	last) record 39999 >> "$WORK/in" ;;                        # the largest
	every) for i in 5 4001 9999 15000 20011 26000 31313 39000 39998; do record $i >> "$WORK/in"; done ;;
	few) keygen $KEYS --count=40000 --dist=few-unique --seed=72 -o "$WORK/in" ;;
	esac
}

for name in none first last every few; do
	make_case $name
	oracle -u $KEYS "$WORK/in" "$WORK/want"
	kept=$(($(wc -c < "$WORK/want") / SIZE))
	for threads in 1 2 3 5; do
		for direct in 0 1; do
			what="$name, --parallel=$threads, GPUSORT_OUTPUT_DIRECT=$direct"
			GPUSORT_OUTPUT_DIRECT=$direct "$GPUSORT" -u $KEYS -S 64K --parallel=$threads --stats "$WORK/in" \
				-o "$WORK/out" 2>"$WORK/stats"
			tap_result $? "$what: exits 0"
			check "$what: the oracle's $kept records" cmp "$WORK/out" "$WORK/want"
		done
		# what moved (the last run's stats): only where a range before the last dropped one
		# (few distinct keys make few ranges, as equal keys never straddle two: not asserted)
		if [ "$threads" -gt 1 ] && [ $name != few ]; then
			case $name in
			none|last) check "$name, --parallel=$threads: nothing moved" test -z "$(moved)" ;;
			*) check "$name, --parallel=$threads: ranges moved ($(moved) MiB)" test -n "$(moved)" ;;
			esac
		fi
	done
	"$GPUSORT" -u $KEYS -S 64K --parallel=3 < "$WORK/in" > "$WORK/piped"
	check "$name: -u to a pipe (ranges in order) gives the same" cmp "$WORK/piped" "$WORK/want"
	check "$name: no temp file left" no_temp
done

# larger ranges, so that the main thread moves the first ones into place while the
# threads still merge the later ones: 1.5M distinct records and their smallest again;
# -u's output is the sort of the distinct records
keygen $KEYS --count=1500000 --dist=uniform --seed=74 -o "$WORK/big"
"$GPUSORT" $KEYS "$WORK/big" -o "$WORK/want"
cp "$WORK/big" "$WORK/in"
head -c $SIZE "$WORK/want" >> "$WORK/in"
for direct in 0 1; do
	GPUSORT_OUTPUT_DIRECT=$direct "$GPUSORT" -u $KEYS -S 2M --parallel=3 --stats "$WORK/in" -o "$WORK/out" 2>"$WORK/stats"
	tap_result $? "1.5M records, the smallest twice, GPUSORT_OUTPUT_DIRECT=$direct: exits 0"
	check "1.5M records, GPUSORT_OUTPUT_DIRECT=$direct: the distinct records' sort (moved $(moved) MiB)" \
		cmp "$WORK/out" "$WORK/want"
done
rm -f "$WORK/big"

# text lines: every line twice, the second copies in runs of their own
"$TESTS_BUILDDIR/textgen" 30000 73 > "$WORK/lines"
cat "$WORK/lines" "$WORK/lines" > "$WORK/twice"
LC_ALL=C sort -u "$WORK/lines" > "$WORK/want"
for direct in 0 1; do
	GPUSORT_OUTPUT_DIRECT=$direct "$GPUSORT" -u -S 64K --parallel=3 --stats "$WORK/twice" -o "$WORK/out" 2>"$WORK/stats"
	tap_result $? "text lines twice, GPUSORT_OUTPUT_DIRECT=$direct: exits 0"
	check "text lines twice, GPUSORT_OUTPUT_DIRECT=$direct: sort -u's output" cmp "$WORK/out" "$WORK/want"
done
check "text lines twice: ranges moved ($(moved) MiB)" test -n "$(moved)"

# faults while moving: the first read of the output's own bytes, the first write
# (each 8 MiB piece is read, then written), every one
make_case first
oracle -u $KEYS "$WORK/in" "$WORK/want"
for fault in output_move:EIO:1 output_move:ENOSPC:2 output_move:EIO:3+; do
	printf 'old output\n' > "$WORK/out"
	GPUSORT_OUTPUT_DIRECT=0 GPUSORT_FAULT=$fault expect_status 2 "-u with $fault" \
		"$GPUSORT" -u $KEYS -S 64K --parallel=3 "$WORK/in" -o "$WORK/out"
	stderr_has "$WORK/out: " "$fault: the output is named"
	check "$fault: old output untouched" test "$(cat "$WORK/out")" = "old output"
	check "$fault: no temp file left" no_temp
done
# a run's read failing while the ranges go to a pipe in order: exit 2, the run named,
# the writer not left waiting for a range that will never be done
for n in 1 7 30; do
	{
		GPUSORT_FAULT=temp_read:EIO:$n timeout 120 "$GPUSORT" -u $KEYS -S 64K --parallel=3 "$WORK/in" 2>"$WORK/stderr"
		echo $? > "$WORK/status"
	} | cat > /dev/null
	check "-u to a pipe with temp_read:EIO:$n: exit 2 ($(cat "$WORK/status"))" test "$(cat "$WORK/status")" = 2
	check "-u to a pipe with temp_read:EIO:$n: the run and the reason named" \
		grep -q "read failed: $WORK/tmp/.*: Input/output error" "$WORK/stderr"
done
check "no temp file left after the failed reads" no_temp
for fault in output_move:SHORT; do
	GPUSORT_OUTPUT_DIRECT=0 GPUSORT_FAULT=$fault "$GPUSORT" -u $KEYS -S 64K --parallel=3 "$WORK/in" -o "$WORK/out"
	tap_result $? "-u with $fault: carried on"
	check "-u with $fault: the oracle's output" cmp "$WORK/out" "$WORK/want"
done
done_testing
