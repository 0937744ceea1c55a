#!/bin/sh
# SPDX-License-Identifier: MIT
# Injected faults (GPUSORT_FAULT, see io/fault_inject.h) through tests/io_tool: ENOSPC and
# EIO on the output and on run-file writes and reads fail with status 2 and a message,
# leave the old output untouched and no temp file behind (run files written with the
# writer's defaults, stored, and on three threads); short reads and writes still give
# every byte, with and without io_uring.
tool=${TESTS_BUILDDIR:-tests}/io_tool
work=$(mktemp -d "${TMPDIR:-/tmp}/test_io_faults.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
mkdir "$work/tmp"
head -c 9000017 /dev/urandom > "$work/in"
printf 'old output\n' > "$work/old"
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }
echo "1..34"

for io in uring sync; do
	# sync: no io_uring (the fault point io_ring), beside each case's own faults
	ring=; [ $io = sync ] && ring=io_ring:ENOSYS,
	# output_write fails: status 2, message, old file as it was, no twin left.
	for fault in output_write:ENOSPC:2 output_write:EIO output_rename:EIO; do
		cp "$work/old" "$work/out"
		GPUSORT_FAULT=$ring$fault "$tool" copy "$work/in" "$work/out" 2> "$work/err"
		status=$?
		case $fault in *ENOSPC*) why='No space left on device';; *) why='Input/output error';; esac
		check "$io $fault: status 2, message, old output untouched, no twin" \
		      '[ $status = 2 ] && grep -q "$why" "$work/err" && cmp -s "$work/old" "$work/out" && ! ls -A "$work" | grep -q gpusort-out'
	done
	# run-file writes and reads fail: status 2, the temp dir is empty; with the writer's
	# defaults, stored blocks, and three compressor threads two blocks deep.
	for mode in "" stored threads; do
		for fault in temp_write:ENOSPC temp_write:EIO:3 temp_read:EIO:2; do
			GPUSORT_FAULT=$ring$fault "$tool" spill "$work/tmp" "$work/in" $mode > "$work/spilled" 2> "$work/err"
			check "$io $fault ${mode:-default}: status 2, message, no temp file left" \
			      '[ $? = 2 ] && [ -s "$work/err" ] && [ -z "$(ls -A "$work/tmp")" ]'
		done
		GPUSORT_FAULT=${ring}temp_write:SHORT,temp_read:SHORT "$tool" spill "$work/tmp" "$work/in" $mode > "$work/spilled"
		check "$io short run-file reads and writes ${mode:-default}: spill is exact" \
		      '[ $? = 0 ] && cmp -s "$work/in" "$work/spilled" && [ -z "$(ls -A "$work/tmp")" ]'
	done
	# Short transfers everywhere: every byte still arrives.
	GPUSORT_FAULT=${ring}input_read:SHORT,output_write:SHORT "$tool" copy "$work/in" "$work/out"
	check "$io short reads and writes: copy is exact" '[ $? = 0 ] && cmp -s "$work/in" "$work/out"'
	# Input read fails: status 2, old output untouched.
	cp "$work/old" "$work/out"
	GPUSORT_FAULT=${ring}input_read:EIO:2 "$tool" copy "$work/in" "$work/out" 2> "$work/err"
	check "$io input_read:EIO:2: status 2, old output untouched" \
	      '[ $? = 2 ] && cmp -s "$work/old" "$work/out" && ! ls -A "$work" | grep -q gpusort-out'
done
