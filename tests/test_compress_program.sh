#!/bin/sh
# SPDX-License-Identifier: MIT
# --compress-program=PROG: spilled runs written through PROG and read back through
# PROG -d, as GNU sort does. PROG here is a script that logs each call and runs gzip,
# zstd or cat. Text, binary and -m output equals the system sort's (or gpusort's own
# without PROG); every run written is read back once; a sort in memory never runs
# PROG; a PROG that cannot start, fails either way, or damages data fails the sort
# (exit 2, GNU's words where GNU has the case) with the old output untouched, no temp
# file left and no PROG still running; a signal mid-sort leaves nothing behind.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/compress_lib.sh"

gnu=false
sort --version 2>/dev/null | grep -q 'GNU coreutils' && gnu=true

# every run written was read back once, and there were at least $1 of them
each_run_read_once() {
	set -- "$1" $(calls)
	[ "$2" -ge "$1" ] && [ "$2" -eq "$3" ]
}
# sorted_through_prog STATUS EXPECTED LABEL: the sort exited 0 with $WORK/got as
# EXPECTED, and every run it wrote through PROG (at least 4) was read back once.
sorted_through_prog() {
	[ "$1" -eq 0 ] && cmp -s "$2" "$WORK/got"
	tap_result $? "$3: as the system sort (exit $1)"
	check "$3: $(calls) PROG calls, each run written and read once" each_run_read_once 4
}

# The inputs: $WORK/ties spills some 20 runs under -S 1M (more than 'ulimit -n 16'
# leaves descriptors for) and 6 under -S 3M; where 4 runs through PROG make the case,
# a third of it, $WORK/ties.small (6 runs under -S 1M), and of $WORK/text, text.small.
"$TESTS_BUILDDIR/textgen" 120000 7 >"$WORK/text"
"$TESTS_BUILDDIR/textgen" 40000 7 >"$WORK/text.small"
"$TESTS_BUILDDIR/textgen" 120000 8 3 100 12 >"$WORK/ties"
"$TESTS_BUILDDIR/textgen" 40000 8 3 100 12 >"$WORK/ties.small"
keygen --type=u64 --count=150000 --seed=21 -o "$WORK/keys"

# Text, spilled with a small -S: output as the system sort's, more merge passes with
# --batch-size (-S 3M alone merges its runs at once), every run through PROG and back.
for tool in gzip zstd cat; do
	for options in "-S 1M" "-S 3M --batch-size=2" "-S 1M -u" "-S 3M -u --batch-size=3 -k2,2n"; do
		if ! command -v $tool >/dev/null; then # the GPU machine's image has no zstd program
			skip_test "text, $tool, '$options': no $tool program on this machine"
			skip_test "text, $tool, '$options': PROG calls (no $tool program)"
			continue
		fi
		rm -f "$CALLS"
		input="$WORK/ties"
		case $options in "-S 1M"*) input="$WORK/ties.small" ;; esac
		LC_ALL=C sort $options "$input" >"$WORK/expected"
		TOOL=$tool "$GPUSORT" $options --compress-program="$PROG" "$input" >"$WORK/got"
		sorted_through_prog $? "$WORK/expected" "text, $tool, '$options'"
	done
done
LC_ALL=C sort "$WORK/ties" >"$WORK/expected.ties"
LC_ALL=C sort "$WORK/ties.small" >"$WORK/expected.small"
rm -f "$CALLS"
LC_ALL=C sort -r "$WORK/text.small" >"$WORK/expected"
"$GPUSORT" -S 1M -r --parallel=1 --compress-program="$PROG" "$WORK/text.small" -o "$WORK/got"
check "text -r on one thread: as the system sort" cmp "$WORK/expected" "$WORK/got"
check "text -r on one thread: each run read once" each_run_read_once 4
# Started with SIGCHLD ignored (the kernel would reap the children before gpusort could
# see how they ended), and beside a child the shell started before gpusort was exec'ed
# (not one of gpusort's: never waited for in place of one), as GNU's tests start sort.
rm -f "$CALLS"
(trap '' CHLD; exec "$GPUSORT" -S 1M --compress-program="$PROG" "$WORK/ties.small" -o "$WORK/got")
check "SIGCHLD ignored by the parent: the sorted text" cmp "$WORK/expected.small" "$WORK/got"
check "SIGCHLD ignored: each run read once" each_run_read_once 4
( (sleep 1; exec false) & exec "$GPUSORT" -S 1M --compress-program="$PROG" "$WORK/ties.small" -o "$WORK/got")
tap_result $? "a child started before gpusort: not taken for one of gpusort's"
check "a child started before gpusort: the sorted text" cmp "$WORK/expected.small" "$WORK/got"

# --stats counts the runs PROG wrote.
rm -f "$CALLS"
"$GPUSORT" -S 1M --stats --compress-program="$PROG" "$WORK/ties.small" -o "$WORK/got" 2>"$WORK/stats"
written=$(sed -n 's/.*runs written through the compress program \([0-9]*\),.*/\1/p' "$WORK/stats")
set -- $(calls)
test -n "$written" && [ "$written" -eq "$1" ]
tap_result $? "--stats: runs written through PROG ($written) as many as its calls ($1)"

# A piped run holds no descriptor between its writing and its merge, and a merge's
# fan-in is held to the descriptors free (a pipe per run): a dozen are enough.
# With more threads than those descriptors serve, the merges run fewer at a time (on
# the 16-core H100 the threads' merges together ran out of them: exit 2).
for threads in "" --parallel=4 --parallel=16; do
	rm -f "$CALLS" "$WORK/got"
	(ulimit -n 16 && exec "$GPUSORT" -S 1M $threads --compress-program="$PROG" "$WORK/ties" -o "$WORK/got")
	sorted_through_prog $? "$WORK/expected.ties" "text under 'ulimit -n 16' ${threads:-(default threads)}"
done
check "no temp file left after the sorts" test -z "$(ls -A "$WORK/tmp")"
check "no PROG left running after the sorts" sh -c "! ps -eo args | grep -F '$PROG' | grep -qv grep"

# Binary: the same bytes as gpusort's own zstd runs, for bare keys and for records with
# a payload under -u and merge passes.
"$GPUSORT" --type=u64 -S 512K "$WORK/keys" -o "$WORK/keys.sorted"
check "binary u64: the built-in runs sort" sortcheck --type=u64 "$WORK/keys" "$WORK/keys.sorted"
for tool in gzip zstd; do
	if ! command -v $tool >/dev/null; then
		skip_test "binary u64, $tool: no $tool program on this machine"
		skip_test "binary u64, $tool: PROG calls (no $tool program)"
		continue
	fi
	rm -f "$CALLS"
	TOOL=$tool "$GPUSORT" --type=u64 -S 512K --compress-program="$PROG" "$WORK/keys" -o "$WORK/got"
	check "binary u64, $tool: the same bytes as without PROG" cmp "$WORK/keys.sorted" "$WORK/got"
	check "binary u64, $tool: $(calls) PROG calls, each run read once" each_run_read_once 4
done
"$GPUSORT" --record-size=24 --key-size=10 -u -S 512K --batch-size=2 "$WORK/keys" -o "$WORK/records.sorted"
rm -f "$CALLS"
"$GPUSORT" --record-size=24 --key-size=10 -u -S 512K --batch-size=2 --compress-program="$PROG" "$WORK/keys" \
	-o "$WORK/got"
check "binary 24-byte records, -u, --batch-size=2: the same bytes as without PROG" \
	cmp "$WORK/records.sorted" "$WORK/got"
check "binary records: $(calls) PROG calls, each run read once" each_run_read_once 4

# -m of more inputs than --batch-size: the temp runs of its passes go through PROG.
for i in 1 2 3 4 5 6 7; do
	"$TESTS_BUILDDIR/textgen" 4000 $i 3 100 12 | LC_ALL=C sort >"$WORK/m$i"
done
for options in "" "-u"; do
	rm -f "$CALLS"
	LC_ALL=C sort -m --batch-size=2 $options "$WORK"/m? >"$WORK/expected"
	"$GPUSORT" -m --batch-size=2 $options --compress-program="$PROG" "$WORK"/m? >"$WORK/got"
	check "-m $options of 7 inputs, --batch-size=2: as the system sort" cmp "$WORK/expected" "$WORK/got"
	check "-m $options: $(calls) PROG calls, each temp run read once" each_run_read_once 3
done

# In memory: no temp file, so PROG never runs; not even one that does not exist.
rm -f "$CALLS"
"$GPUSORT" --compress-program="$PROG" "$WORK/text" >"$WORK/got"
check "in memory: PROG never ran" test ! -e "$CALLS"
LC_ALL=C sort "$WORK/text" >"$WORK/expected"
check "in memory: the sorted text" cmp "$WORK/expected" "$WORK/got"
expect_status 0 "in memory with a PROG that does not exist" \
	"$GPUSORT" --compress-program="$WORK/no-such-program" "$WORK/text"
if $gnu; then
	sort --compress-program="$WORK/no-such-program" "$WORK/text" >"$WORK/expected" 2>&1
	check "... as GNU sort, which does not run it either" cmp "$WORK/expected" "$WORK/stdout"
fi
expect_status 2 "two different PROGs" "$GPUSORT" --compress-program=gzip --compress-program=xz "$WORK/text"
stderr_has "gpusort: multiple compress programs specified" "two PROGs: GNU's words"
expect_status 0 "the same PROG twice" "$GPUSORT" --compress-program=gzip --compress-program=gzip "$WORK/text"

# gnu_message CASE ENV...: the system sort's stderr for the case (its name made
# gpusort's), in $WORK/gnu.err, with PROG's path as it gives it. On 4000 lines: under
# -S 1k GNU starts PROG for every few lines, all of them before a failing PROG -d.
"$TESTS_BUILDDIR/textgen" 4000 7 >"$WORK/text.gnu"
gnu_message() {
	env "$@" sort -S 1k --parallel=1 --compress-program="$PROG" "$WORK/text.gnu" >/dev/null 2>"$WORK/gnu.err"
	sed -i 's/^sort:/gpusort:/' "$WORK/gnu.err"
}

# PROGs that fail: exit 2, GNU's words, the old output kept, nothing left behind.
fresh_output
expect_status 2 "a PROG that does not exist" \
	"$GPUSORT" -S 1M --compress-program="$WORK/no-such-program" "$WORK/text.small" -o "$WORK/out"
stderr_has "gpusort: couldn't execute compress program: No such file or directory" \
	"no PROG: GNU's words, with the reason"
check "no PROG: old output untouched, nothing left" untouched
if $gnu; then
	# GNU's child says it (strerror is not async-signal-safe there: "errno 2")
	sort -S 1k --compress-program="$WORK/no-such-program" "$WORK/text.small" >/dev/null 2>"$WORK/gnu.err"
	check "no PROG: GNU sort says the same words" grep -qF "couldn't execute compress program" "$WORK/gnu.err"
fi
fresh_output
GPUSORT_FAULT=decompress_start:EACCES expect_status 2 "PROG -d that cannot be started" \
	"$GPUSORT" -S 1M --compress-program="$PROG" "$WORK/text.small" -o "$WORK/out"
stderr_has "gpusort: couldn't execute compress program (with -d): Permission denied" \
	"PROG -d not started: GNU's words"
check "PROG -d not started: old output untouched, nothing left, no PROG running" untouched

for side in compress decompress; do
	fresh_output
	FAIL=$side expect_status 2 "a PROG that exits 1 when it does $side" \
		"$GPUSORT" -S 1M --parallel=1 --compress-program="$PROG" "$WORK/text.small" -o "$WORK/out"
	printf "gpusort: '%s' [-d] terminated abnormally\n" "$PROG" >"$WORK/expected"
	check "$side fails: GNU's words, once" cmp "$WORK/expected" "$WORK/stderr"
	check "$side fails: old output untouched, nothing left, no PROG running" untouched
	if $gnu; then
		gnu_message FAIL=$side
		check "$side fails: the message GNU sort gives" cmp "$WORK/gnu.err" "$WORK/stderr"
	fi
	fresh_output
	FAIL=$side expect_status 2 "$side fails, merge passes on two threads" \
		"$GPUSORT" -S 1M --parallel=2 --batch-size=2 --compress-program="$PROG" "$WORK/text.small" -o "$WORK/out"
	stderr_has "[-d] terminated abnormally" "$side fails on two threads: GNU's words"
	check "$side fails on two threads: old output untouched, nothing left, no PROG running" untouched
done

# A PROG -d that gives back other bytes than went in: found by the blocks' checksums,
# never put out (GNU sort has no such check, and writes what PROG gave back).
for threads in 1 2; do
	fresh_output
	CORRUPT=1 expect_status 2 "a PROG -d that damages the data, $threads thread(s)" \
		"$GPUSORT" -S 1M --parallel=$threads --compress-program="$PROG" "$WORK/text.small" -o "$WORK/out"
	stderr_has "corrupted data (checksum mismatch)" "damaged data: reported as corrupted"
	check "damaged data: old output untouched, nothing left, no PROG running" untouched
done
fresh_output
CORRUPT=1 expect_status 2 "damaged data under -m's passes" \
	"$GPUSORT" -m --batch-size=2 --compress-program="$PROG" "$WORK"/m? -o "$WORK/out"
check "damaged -m runs: old output untouched, nothing left" untouched

# Signals mid-sort: killed by the signal, nothing left behind, no PROG still running
# once gpusort is gone (its PROGs see their input end, or their reader gone).
for signal in INT TERM; do
	fresh_output
	kill_mid_sort $signal "$WORK/keys" 1 SLOW=1 "$GPUSORT" --type=u64 -S 512K --compress-program="$PROG" \
		-o "$WORK/out"
	for i in 1 2 3 4 5 6 7 8 9 10; do running || break; sleep 0.3; done
	check "SIG$signal: old output untouched, no temp file left, no PROG running" untouched
done
done_testing
