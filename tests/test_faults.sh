#!/bin/sh
# SPDX-License-Identifier: MIT
# Faults on the way: a full disk or an I/O error on a temp write or on the output write,
# a failing temp read, a corrupted run, a signal mid-sort. Each: exit 2 (or death by
# the signal), a message naming the file, the old output untouched, no temp file left.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

mkdir "$WORK/tmp"
export TMPDIR="$WORK/tmp"
keygen --type=u64 --count=400000 --seed=21 -o "$WORK/keys"
echo "old output" > "$WORK/out"
untouched() {
	test "$(cat "$WORK/out")" = "old output" && test -z "$(ls -A "$WORK/tmp")" &&
		test -z "$(ls -A "$WORK" | grep '^\.gpusort')"
}

for fault in temp_write:ENOSPC temp_write:ENOSPC:3 temp_write:EIO output_write:ENOSPC \
	output_write:EIO temp_read:EIO:5 temp_create:ENOSPC:2 output_open:EACCES output_rename:EIO; do
	GPUSORT_FAULT=$fault expect_status 2 "external sort with $fault" \
		"$GPUSORT" --type=u64 -S 512K "$WORK/keys" -o "$WORK/out"
	case $fault in
	temp_write:ENOSPC*|output_write:ENOSPC*) stderr_has "No space left on device" "$fault: the reason is given" ;;
	*) stderr_has ": " "$fault: a message is printed" ;;
	esac
	check "$fault: old output untouched, no temp file left" untouched
done
GPUSORT_FAULT=output_write:ENOSPC expect_status 2 "in-memory sort with output_write:ENOSPC" \
	"$GPUSORT" --type=u64 "$WORK/keys" -o "$WORK/out"
stderr_has "$WORK/out: No space left on device" "the output file is named with the reason"
check "in-memory ENOSPC: old output untouched" untouched
GPUSORT_FAULT=input_read:SHORT "$GPUSORT" --type=u64 "$WORK/keys" -o "$WORK/short"
tap_result $? "short reads are carried on"
"$GPUSORT" --type=u64 "$WORK/keys" -o "$WORK/full"
check "short reads give the same output" cmp "$WORK/short" "$WORK/full"

# 32 MiB and more: the input is read and the output written on several threads.
keygen --type=u64 --count=4500000 --seed=22 -o "$WORK/big"
"$GPUSORT" --type=u64 "$WORK/big" -o "$WORK/big.sorted"
check "a 36 MB input sorted in memory is in order" sortcheck --type=u64 "$WORK/big" "$WORK/big.sorted"
GPUSORT_FAULT=input_read:SHORT "$GPUSORT" --type=u64 "$WORK/big" -o "$WORK/big.short"
check "short parallel reads give the same output" cmp "$WORK/big.short" "$WORK/big.sorted"
rm -f "$WORK/big.short"
GPUSORT_FAULT=output_write:SHORT "$GPUSORT" --type=u64 "$WORK/big" -o "$WORK/big.short"
check "short parallel writes give the same output" cmp "$WORK/big.short" "$WORK/big.sorted"
rm -f "$WORK/big.short" "$WORK/big.sorted"
for fault in output_write:ENOSPC output_write:EIO:2 input_read:EIO:3; do
	GPUSORT_FAULT=$fault expect_status 2 "36 MB in memory with $fault" \
		"$GPUSORT" --type=u64 "$WORK/big" -o "$WORK/out"
	case $fault in
	output_write*) stderr_has "$WORK/out: " "$fault: the output is named" ;;
	input_read*) stderr_has "$WORK/big: " "$fault: the input is named" ;;
	esac
	check "$fault: old output untouched, no temp file left" untouched
done

# Text sorted in memory: each thread writes the lines it gathered at their offset.
"$TESTS_BUILDDIR/textgen" 300000 23 > "$WORK/lines"
sort "$WORK/lines" > "$WORK/lines.sorted"
GPUSORT_FAULT=output_write:SHORT "$GPUSORT" "$WORK/lines" -o "$WORK/lines.short"
check "text: short writes at offsets give the same output" cmp "$WORK/lines.short" "$WORK/lines.sorted"
for fault in output_write:ENOSPC output_write:EIO:3; do
	GPUSORT_FAULT=$fault expect_status 2 "text in memory with $fault" "$GPUSORT" "$WORK/lines" -o "$WORK/out"
	stderr_has "$WORK/out: " "text, $fault: the output is named"
	check "text, $fault: old output untouched, no temp file left" untouched
done
rm -f "$WORK/lines" "$WORK/lines.sorted" "$WORK/lines.short"

# Signals mid-sort: killed by the signal, nothing left behind.
for signal in INT TERM HUP; do
	kill_mid_sort $signal "$WORK/big" 0.5 "$GPUSORT" --type=u64 -S 1M -o "$WORK/out"
	check "SIG$signal: old output untouched, no temp file left" untouched
done
done_testing
