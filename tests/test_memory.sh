#!/bin/sh
# SPDX-License-Identifier: MIT
# Memory budgets: with a small -S and an input several times larger, the external sort's
# peak resident memory stays within -S + 64 MiB over the program's own footprint (chunks, merge blocks, the input's
# read-ahead and the I/O buffers all follow the budget), the output is right, --stats
# reports the temp peak, and --progress prints nothing when stderr is not a terminal.
# -u too, whose ranges' lengths are known only once merged.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

mkdir "$WORK/tmp"
export TMPDIR="$WORK/tmp"
temp_empty() { test -z "$(ls -A "$WORK/tmp")"; }
TIME=/usr/bin/time
SLACK_KB=$((64 * 1024))

# peak_rss_kb FILE: the maximum resident set (KiB) that $TIME -f %M wrote to FILE.
peak_rss_kb() { tail -n 1 "$1"; }

# rss_within RSS_KB LIMIT_KB DESCRIPTION: the peak is within the limit; skipped under
# --enable-sanitizers, where ASan's shadow memory and quarantine count in the RSS
# (the sort's exit status and output are still checked).
rss_within() {
	if [ -n "${GPUSORT_SANITIZED:-}" ]; then
		skip_test "$3: ASan's own memory counts in the RSS (--enable-sanitizers)"
	else
		test "$1" -le "$2"
		tap_result $? "$3"
	fi
}

# 8M bare u64 keys (64 MiB) and 2M 32-byte records (64 MiB): four times -S 16M.
keygen --type=u64 --count=8388608 --seed=31 -o "$WORK/keys"
keygen --type=u32 --count=2097152 --seed=32 --record-size=32 --key-offset=8 -o "$WORK/rec"

if ! "$TIME" -f %M true >/dev/null 2>&1; then
	skip_test "no $TIME to measure the peak memory"
else
	# What the program takes before any data: a few MiB on the CPU, the CUDA runtime's
	# context where a GPU is used. -S bounds what comes on top of it. A file of known
	# small size is sorted on the CPU; from a pipe, the size unknown, a GPU is opened.
	keygen --type=u64 --count=1 --seed=30 -o "$WORK/one"
	"$TIME" -f %M -o "$WORK/rss" "$GPUSORT" --type=u64 -S 16M "$WORK/one" -o "$WORK/out"
	base_kb=$(peak_rss_kb "$WORK/rss")
	"$GPUSORT" --type=u64 < "$WORK/one" | "$TIME" -f %M -o "$WORK/rss" "$GPUSORT" --type=u64 -S 16M > "$WORK/out"
	pipe_base_kb=$(peak_rss_kb "$WORK/rss")
	echo "# peak RSS sorting one key: $base_kb KiB from a file, $pipe_base_kb KiB from a pipe"
	PIPE_SLACK_KB=$((SLACK_KB + pipe_base_kb))
	SLACK_KB=$((SLACK_KB + base_kb))
	for budget in 16 32; do
		"$TIME" -f %M -o "$WORK/rss" "$GPUSORT" --type=u64 -S ${budget}M "$WORK/keys" -o "$WORK/out"
		tap_result $? "u64 keys, -S ${budget}M: exits 0"
		rss=$(peak_rss_kb "$WORK/rss")
		rss_within "$rss" $((budget * 1024 + SLACK_KB)) \
			"u64 keys, -S ${budget}M: peak RSS ${rss} KiB <= -S + 64 MiB + base"
		check "u64 keys, -S ${budget}M: sorted and a permutation" sortcheck --type=u64 "$WORK/keys" "$WORK/out"

		"$TIME" -f %M -o "$WORK/rss" "$GPUSORT" --type=u32 --record-size=32 --key-offset=8 \
			-S ${budget}M "$WORK/rec" -o "$WORK/out"
		tap_result $? "32-byte records, -S ${budget}M: exits 0"
		rss=$(peak_rss_kb "$WORK/rss")
		rss_within "$rss" $((budget * 1024 + SLACK_KB)) \
			"32-byte records, -S ${budget}M: peak RSS ${rss} KiB <= -S + 64 MiB + base"
		check "32-byte records, -S ${budget}M: sorted and a permutation" \
			sortcheck --type=u32 --record-size=32 --key-offset=8 "$WORK/rec" "$WORK/out"
	done
	# A pipe: the size is unknown, the output goes to stdout (the merge in order).
	cat "$WORK/keys" | "$TIME" -f %M -o "$WORK/rss" "$GPUSORT" --type=u64 -S 16M > "$WORK/out"
	tap_result $? "u64 keys from a pipe to stdout, -S 16M: exits 0"
	rss=$(peak_rss_kb "$WORK/rss")
	rss_within "$rss" $((16 * 1024 + PIPE_SLACK_KB)) \
		"pipe to stdout, -S 16M: peak RSS ${rss} KiB <= -S + 64 MiB + base"
	check "pipe to stdout: sorted and a permutation" sortcheck --type=u64 "$WORK/keys" "$WORK/out"

	# -u: the ranges' lengths depend on the duplicates dropped (each is moved into place
	# after the merge), within the same bound; the output is the in-memory sort's (-S
	# large enough for one chunk)
	"$TIME" -f %M -o "$WORK/rss" "$GPUSORT" -u --type=u32 --record-size=32 --key-offset=8 -S 16M "$WORK/rec" \
		-o "$WORK/out"
	tap_result $? "32-byte records, -u -S 16M: exits 0"
	rss=$(peak_rss_kb "$WORK/rss")
	rss_within "$rss" $((16 * 1024 + SLACK_KB)) "32-byte records, -u -S 16M: peak RSS ${rss} KiB <= -S + 64 MiB + base"
	"$GPUSORT" -u --type=u32 --record-size=32 --key-offset=8 -S 1G "$WORK/rec" -o "$WORK/want"
	check "32-byte records, -u -S 16M: the in-memory -u's output" cmp "$WORK/out" "$WORK/want"
	check "32-byte records, -u -S 16M: in strict order" \
		sortcheck -u --type=u32 --record-size=32 --key-offset=8 "$WORK/rec" "$WORK/out"

	# Text lines (a regular file, not mapped when it exceeds the budget), 4M lines
	# (about 108 MB, more than -S + 64 MiB, so mapping it would show) with -S 8M: runs,
	# merged; the same as LC_ALL=C sort.
	"$TESTS_BUILDDIR/textgen" 4000000 5 > "$WORK/lines"
	tab=$(printf '\t')
	"$TIME" -f %M -o "$WORK/rss" "$GPUSORT" -S 8M -t "$tab" -k2,2n "$WORK/lines" -o "$WORK/out"
	tap_result $? "text lines, -S 8M: exits 0"
	rss=$(peak_rss_kb "$WORK/rss")
	rss_within "$rss" $((8 * 1024 + SLACK_KB)) \
		"text lines, -S 8M: peak RSS ${rss} KiB <= -S + 64 MiB + base"
	sort -t "$tab" -k2,2n "$WORK/lines" > "$WORK/want"
	check "text lines, -S 8M: the same as LC_ALL=C sort" cmp "$WORK/out" "$WORK/want"
	"$TIME" -f %M -o "$WORK/rss" "$GPUSORT" -u -S 8M -t "$tab" -k2,2n "$WORK/lines" -o "$WORK/out"
	tap_result $? "text lines, -u -S 8M: exits 0"
	rss=$(peak_rss_kb "$WORK/rss")
	rss_within "$rss" $((8 * 1024 + SLACK_KB)) "text lines, -u -S 8M: peak RSS ${rss} KiB <= -S + 64 MiB + base"
	sort -u -t "$tab" -k2,2n "$WORK/lines" > "$WORK/want"
	check "text lines, -u -S 8M: the same as LC_ALL=C sort -u" cmp "$WORK/out" "$WORK/want"

	# Short lines, whose tables (a start, an item, its scratch copy) outweigh their
	# text: 16M lines of 5 or 6 bytes (86 MB, chunked under -S 128M). Chunks measured
	# by their text alone held 245 MiB here, and malloc's heaps kept the arrays that
	# every chunk made anew at sizes of their own (394 MiB on 300 MB of 9-byte lines).
	"$TESTS_BUILDDIR/textgen" 16000000 7 26 1000 1 > "$WORK/short"
	"$TIME" -f %M -o "$WORK/rss" "$GPUSORT" -S 128M "$WORK/short" -o "$WORK/out"
	tap_result $? "short lines, -S 128M: exits 0"
	rss=$(peak_rss_kb "$WORK/rss")
	rss_within "$rss" $((128 * 1024 + SLACK_KB)) \
		"short lines, -S 128M: peak RSS ${rss} KiB <= -S + 64 MiB + base"
	sort "$WORK/short" > "$WORK/want"
	check "short lines, -S 128M: the same as LC_ALL=C sort" cmp "$WORK/out" "$WORK/want"
	rm -f "$WORK/short" "$WORK/want"
fi
check "no temp file left" temp_empty

# Threads under a small -S: without --parallel, one per core but no more than -S gives
# 2 MiB each (two at least), so neither the memory nor the merge passes grow with the
# cores (32 cores took 57 MiB and six merge passes on 32M keys under -S 16M before);
# --parallel is taken as asked.
cores=$(nproc)
want=$((cores < 8 ? cores : 8))
threads_of() { sed -n 's/.*engine cpu (\([0-9]*\) threads*).*/\1/p' "$1"; }
"$GPUSORT" --type=u64 --device=cpu -S 16M --stats "$WORK/keys" -o "$WORK/out" 2>"$WORK/stats"
tap_result $? "-S 16M on $cores cores: exits 0"
check "-S 16M on $cores cores: sorted and a permutation" sortcheck --type=u64 "$WORK/keys" "$WORK/out"
check "-S 16M on $cores cores: $want threads sort ($(threads_of "$WORK/stats"))" test "$(threads_of "$WORK/stats")" = "$want"
"$GPUSORT" --type=u64 --device=cpu -S 1M --stats "$WORK/keys" -o "$WORK/out" 2>"$WORK/stats"
want=$((cores < 2 ? cores : 2))
check "-S 1M on $cores cores: $want threads sort ($(threads_of "$WORK/stats"))" test "$(threads_of "$WORK/stats")" = "$want"
"$GPUSORT" --type=u64 --device=cpu --parallel=12 -S 16M --stats "$WORK/keys" -o "$WORK/out" 2>"$WORK/stats"
check "--parallel=12 -S 16M: the 12 threads asked ($(threads_of "$WORK/stats"))" test "$(threads_of "$WORK/stats")" = 12
check "--parallel=12 -S 16M: sorted and a permutation" sortcheck --type=u64 "$WORK/keys" "$WORK/out"
check "no temp file left after the thread cases" temp_empty

# --stats reports the temp peak: on disk at once, at most what was written in all.
"$GPUSORT" --type=u64 -S 16M --stats "$WORK/keys" -o "$WORK/out" 2>"$WORK/stats"
peak=$(sed -n 's/.*temp peak \([0-9.]*\) MiB.*/\1/p' "$WORK/stats")
written=$(sed -n 's/.* temp \([0-9.]*\) MiB (.*/\1/p' "$WORK/stats")
test -n "$peak" && awk -v p="$peak" -v w="$written" 'BEGIN { exit !(p > 0 && p <= w) }'
tap_result $? "--stats prints the temp peak (${peak:-none} MiB of ${written:-none} MiB written)"

# --progress: stderr is a file here, not a terminal: nothing is printed, same output.
"$GPUSORT" --type=u64 -S 16M "$WORK/keys" -o "$WORK/plain"
"$GPUSORT" --type=u64 -S 16M --progress "$WORK/keys" -o "$WORK/out" 2>"$WORK/progress"
tap_result $? "--progress without a terminal exits 0"
check "--progress without a terminal prints nothing" test ! -s "$WORK/progress"
check "--progress does not change the output" cmp "$WORK/out" "$WORK/plain"
check "no temp file left after --progress" temp_empty
done_testing
