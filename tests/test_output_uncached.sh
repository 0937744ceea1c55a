#!/bin/sh
# SPDX-License-Identifier: MIT
# The merge's output written past the page cache (O_DIRECT, io/write_queue.h's direct
# mode), forced with GPUSORT_OUTPUT_DIRECT=1 at sizes a sort would otherwise write
# through the page cache: records of sizes that do not divide a page, bare keys and
# text lines, each spilled and merged on several threads, give the same bytes as with
# GPUSORT_OUTPUT_DIRECT=0 and as the oracle, with and without -u (whose output, of a
# length known only at the end, is cut to it); an existing output keeps its mode; a full
# disk or an I/O error on the way exits 2 naming the output, the old output untouched
# and no temp file left. Skipped where the work directory takes no O_DIRECT; where
# io_uring cannot start, nothing goes direct and only the outputs are compared.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

mkdir "$WORK/tmp"
export TMPDIR="$WORK/tmp"
if ! dd if=/dev/zero of="$WORK/probe" bs=4096 count=1 oflag=direct 2>/dev/null ||
	[ "$(stat -f -c %T "$WORK")" = tmpfs ]; then
	skip_test "$WORK takes no O_DIRECT writes (or is a tmpfs, never written past its cache)"
	done_testing
fi
rm -f "$WORK/probe"
# without io_uring (a container's seccomp, io_uring_disabled) every write waits for the
# device in turn, so the queues stay on the page cache: the outputs must still agree
ring=$("$TESTS_BUILDDIR/io_tool" ring) && ring=
no_temp() { test -z "$(ls -A "$WORK/tmp")" && test -z "$(ls -A "$WORK" | grep '^\.gpusort')"; }

# sort_both NAME ARGS...: the same sort with the output direct and through the page
# cache; both must exit 0 and agree, and the direct one must say it went direct.
sort_both() {
	name=$1
	shift
	GPUSORT_OUTPUT_DIRECT=1 "$GPUSORT" --stats "$@" -o "$WORK/direct" 2>"$WORK/stats"
	direct_status=$?
	GPUSORT_OUTPUT_DIRECT=0 "$GPUSORT" "$@" -o "$WORK/cached"
	[ $direct_status -eq 0 ] && [ $? -eq 0 ] && cmp -s "$WORK/direct" "$WORK/cached"
	tap_result $? "$name: the output written direct equals the one written through the page cache"
	if [ -z "$ring" ]; then
		grep -q "past the page cache (O_DIRECT): [1-9]" "$WORK/stats"
		tap_result $? "$name: --stats counts the bytes written direct ($(sed -n 's/.*(O_DIRECT): //p' "$WORK/stats"))"
	else
		skip_test "$name: nothing goes direct: $ring"
	fi
	check "$name: no temp file left" no_temp
}

# 100-byte records (a page holds 40.96 of them): runs merged in ranges on 3 threads.
keygen --type=bytes --key-size=10 --record-size=100 --count=60000 --dist=uniform --seed=31 -o "$WORK/rec"
sort_both "100-byte records" --type=bytes --key-size=10 --record-size=100 -S 1M --parallel=3 "$WORK/rec"
oracle --type=bytes --key-size=10 --record-size=100 "$WORK/rec" "$WORK/want"
check "100-byte records: equal to the oracle" cmp "$WORK/direct" "$WORK/want"

# odd record sizes and few distinct keys (ranges of equal keys collapse)
for size in 1 7 4095 4097; do
	keygen --type=bytes --key-size=1 --record-size=$size --count=$((3000000 / size)) --dist=few-unique --seed=$((32 + size)) \
		-o "$WORK/odd"
	sort_both "$size-byte records, few-unique" --type=bytes --key-size=1 --record-size=$size -S 256K --parallel=2 "$WORK/odd"
	oracle --type=bytes --key-size=1 --record-size=$size "$WORK/odd" "$WORK/want"
	check "$size-byte records: equal to the oracle" cmp "$WORK/direct" "$WORK/want"
done

# -u: each range written where it would start without -u and moved down into place once
# all are merged, the output first extended to the input's length and cut at the end to
# what was kept
for case in 100:2:60000 4097:1:3000; do
	IFS=: read -r size key count <<-EOF
	$case
	EOF
	keygen --type=bytes --key-size=$key --record-size=$size --count=$count --dist=uniform --seed=$((40 + size)) -o "$WORK/dup"
	sort_both "-u over $size-byte records, $key-byte keys" -u --type=bytes --key-size=$key --record-size=$size -S 256K \
		--parallel=3 "$WORK/dup"
	oracle -u --type=bytes --key-size=$key --record-size=$size "$WORK/dup" "$WORK/want"
	check "-u over $size-byte records: equal to the oracle ($(($(wc -c < "$WORK/want") / size)) of $count kept)" \
		cmp "$WORK/direct" "$WORK/want"
done
keygen --type=bytes --key-size=10 --record-size=100 --count=60000 --dist=uniform --seed=47 -o "$WORK/rec"
sort_both "-u over distinct 100-byte records" -u --type=bytes --key-size=10 --record-size=100 -S 1M --parallel=3 "$WORK/rec"
oracle --type=bytes --key-size=10 --record-size=100 "$WORK/rec" "$WORK/want"
check "-u over distinct records: every record kept, in order" cmp "$WORK/direct" "$WORK/want"

# text lines of every length
"$TESTS_BUILDDIR/textgen" 200000 33 > "$WORK/lines"
sort_both "text lines" -S 1M --parallel=3 "$WORK/lines"
LC_ALL=C sort "$WORK/lines" > "$WORK/want"
check "text lines: equal to sort's" cmp "$WORK/direct" "$WORK/want"
sort_both "text lines, -u" -u -S 1M --parallel=3 "$WORK/lines"
LC_ALL=C sort -u "$WORK/lines" > "$WORK/want_u"
check "text lines, -u: equal to sort -u's" cmp "$WORK/direct" "$WORK/want_u"

# an existing output: replaced, its mode kept
printf 'old output\n' > "$WORK/out"
chmod 640 "$WORK/out"
GPUSORT_OUTPUT_DIRECT=1 "$GPUSORT" -S 1M "$WORK/lines" -o "$WORK/out"
cmp -s "$WORK/out" "$WORK/want" && [ "$(stat -c %a "$WORK/out")" = 640 ]
tap_result $? "an existing output is replaced whole and keeps its mode (640)"

# faults on the direct writes, with and without -u
for unique in "" -u; do
	for fault in output_write:ENOSPC output_write:EIO:3 output_write:ENOSPC:5+; do
		printf 'old output\n' > "$WORK/out"
		GPUSORT_OUTPUT_DIRECT=1 GPUSORT_FAULT=$fault expect_status 2 "direct output$unique with $fault" \
			"$GPUSORT" $unique -S 1M --parallel=3 "$WORK/lines" -o "$WORK/out"
		stderr_has "$WORK/out: " "$fault$unique: the output is named"
		check "$fault$unique: old output untouched" test "$(cat "$WORK/out")" = "old output"
		check "$fault$unique: no temp file left" no_temp
	done
done
GPUSORT_OUTPUT_DIRECT=1 GPUSORT_FAULT=output_write:SHORT "$GPUSORT" -S 1M --parallel=3 "$WORK/lines" -o "$WORK/short"
tap_result $? "short direct writes are carried on"
check "short direct writes: the same output" cmp "$WORK/short" "$WORK/want"
GPUSORT_OUTPUT_DIRECT=1 GPUSORT_FAULT=output_write:SHORT "$GPUSORT" -u -S 1M --parallel=3 "$WORK/lines" -o "$WORK/short"
tap_result $? "short direct writes, -u: carried on"
check "short direct writes, -u: the same output" cmp "$WORK/short" "$WORK/want_u"
done_testing
