#!/bin/sh
# SPDX-License-Identifier: MIT
# --compress-program when the system has no process left for PROG (spawn fails with
# EAGAIN), as GNU sort handles it: PROG is tried 4 times, then that run is written
# without it and read back without PROG -d, and the sort succeeds; PROG -d is tried 9
# times, then the sort fails with "couldn't create process for 'PROG' -d: ..." (exit
# 2, old output untouched, no temp file, no PROG running). EAGAIN comes from the fault
# points compress_start/decompress_start (each try counts, spawn_wait cuts the waits),
# and, where the suite runs as root, from a real RLIMIT_NPROC as a user of the test's
# own (tests/uid_lib.sh).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/compress_lib.sh"
. "$TESTS_SRCDIR/uid_lib.sh"

# runs_stored FILE: how many runs --stats (in FILE) says were stored without PROG
runs_stored() {
	stored=$(sed -n 's/.*; \([0-9]*\) stored without it.*/\1/p' "$1")
	echo "${stored:-0}"
}
# runs_piped FILE: how many runs --stats (in FILE) says PROG wrote
runs_piped() {
	piped=$(sed -n 's/.*runs written through the compress program \([0-9]*\),.*/\1/p' "$1")
	echo "${piped:-0}"
}
# piped_and_plain FILE STORED: --stats says STORED runs went without PROG and some
# through it; PROG compressed once per piped run and -d ran once for each of those.
piped_and_plain() {
	set -- "$1" "$2" "$(runs_piped "$1")" "$(runs_stored "$1")" $(calls)
	echo "stored $4 (expected $2), piped $3, PROG calls $5, -d calls $6"
	[ "$4" -eq "$2" ] && [ "$3" -eq "$5" ] && [ "$6" -eq "$5" ]
}

# The inputs: $WORK/ties spills 6 runs under -S 3M; a third of it, ties.small, as
# many under -S 1M (enough for every pattern of refusals below); u64 keys, 6 runs
# under -S 512K (11 as 24-byte records).
"$TESTS_BUILDDIR/textgen" 120000 8 3 100 12 >"$WORK/ties"
"$TESTS_BUILDDIR/textgen" 40000 8 3 100 12 >"$WORK/ties.small"
LC_ALL=C sort "$WORK/ties.small" >"$WORK/expected.small"
keygen --type=u64 --count=150000 --seed=21 -o "$WORK/keys"
"$GPUSORT" --type=u64 -S 512K "$WORK/keys" -o "$WORK/keys.sorted"
check "binary u64 without PROG: sorted" sortcheck --type=u64 "$WORK/keys" "$WORK/keys.sorted"
"$GPUSORT" --record-size=24 --key-size=10 -u -S 512K --batch-size=2 "$WORK/keys" -o "$WORK/records.sorted"

# How many tries: the 2nd to 4th failing, PROG's 4th try for the second run starts it
# (every run piped); the 2nd to 5th failing, that run gives up and is stored. The
# first case waits GNU's real back-off once (0.25 + 0.5 + 1 s).
rm -f "$CALLS"
GPUSORT_FAULT=compress_start:EAGAIN:2-4 "$GPUSORT" -S 1M --parallel=1 --stats --compress-program="$PROG" \
	"$WORK/ties.small" -o "$WORK/got" 2>"$WORK/stats"
check "text, 3 tries refused: as the system sort" cmp "$WORK/expected.small" "$WORK/got"
check "text, 3 tries refused: the 4th starts PROG, no run stored" piped_and_plain "$WORK/stats" 0
rm -f "$CALLS"
GPUSORT_FAULT=compress_start:EAGAIN:2-5,spawn_wait:SHORT "$GPUSORT" -S 1M --parallel=1 --stats \
	--compress-program="$PROG" "$WORK/ties.small" -o "$WORK/got" 2>"$WORK/stats"
check "text, 4 tries refused: as the system sort" cmp "$WORK/expected.small" "$WORK/got"
check "text, 4 tries refused: that run stored, the others through PROG and PROG -d once each" \
	piped_and_plain "$WORK/stats" 1

# Runs stored from some run on (a process table that stays full), and all of them:
# text on one and two threads, and with merge passes; -d only for the piped runs.
for fault in 2+ 1+; do
	for options in "-S 1M --parallel=1" "-S 1M --parallel=2" "-S 3M --batch-size=2" "-S 1M -u -k2,2n"; do
		rm -f "$CALLS"
		input="$WORK/ties.small"
		case $options in "-S 3M"*) input="$WORK/ties" ;; esac
		LC_ALL=C sort $options "$input" >"$WORK/expected"
		GPUSORT_FAULT=compress_start:EAGAIN:$fault,spawn_wait:SHORT "$GPUSORT" $options --stats \
			--compress-program="$PROG" "$input" -o "$WORK/got" 2>"$WORK/stats"
		status=$?
		[ $status -eq 0 ] && cmp -s "$WORK/expected" "$WORK/got"
		tap_result $? "text, tries from the ${fault%+}th on refused, '$options': as the system sort (exit $status)"
		set -- $(calls)
		stored=$(runs_stored "$WORK/stats")
		if [ $fault = 1+ ]; then
			[ "$stored" -gt 1 ] && [ "$1" -eq 0 ] && [ "$2" -eq 0 ]
		else
			[ "$stored" -gt 1 ] && [ "$1" -eq 1 ] && [ "$2" -eq 1 ] && [ "$(runs_piped "$WORK/stats")" -eq 1 ]
		fi
		tap_result $? "text, '$options': $stored runs stored, PROG calls '$1', -d calls '$2'"
	done
done

# Binary: the same bytes as without PROG, bare keys and records with a payload under
# -u and merge passes; one run stored, some, all.
for fault in 2-5 3+ 1+; do
	rm -f "$CALLS"
	GPUSORT_FAULT=compress_start:EAGAIN:$fault,spawn_wait:SHORT "$GPUSORT" --type=u64 -S 512K --parallel=1 \
		--stats --compress-program="$PROG" "$WORK/keys" -o "$WORK/got" 2>"$WORK/stats"
	check "binary u64, tries $fault refused: the same bytes as without PROG" cmp "$WORK/keys.sorted" "$WORK/got"
	stored=$(runs_stored "$WORK/stats")
	# one run stored (2-5), or every run from the 3rd on (3+: two piped), or all
	case $fault in
	2-5) [ "$stored" -eq 1 ] ;;
	3+) [ "$stored" -gt 1 ] && [ "$(runs_piped "$WORK/stats")" -eq 2 ] ;;
	1+) [ "$stored" -gt 1 ] && [ "$(runs_piped "$WORK/stats")" -eq 0 ] ;;
	esac
	tap_result $? "binary u64, tries $fault refused: $stored runs stored, $(runs_piped "$WORK/stats") piped"
	check "binary u64, tries $fault refused: PROG and -d once per piped run" \
		piped_and_plain "$WORK/stats" "$stored"
	rm -f "$CALLS"
	GPUSORT_FAULT=compress_start:EAGAIN:$fault,spawn_wait:SHORT "$GPUSORT" --record-size=24 --key-size=10 -u \
		-S 512K --batch-size=2 --stats --compress-program="$PROG" "$WORK/keys" -o "$WORK/got" 2>"$WORK/stats"
	check "binary records -u --batch-size=2, tries $fault refused: the same bytes as without PROG" \
		cmp "$WORK/records.sorted" "$WORK/got"
	check "binary records, tries $fault refused: -d once per piped run" \
		piped_and_plain "$WORK/stats" "$(runs_stored "$WORK/stats")"
done

# -m: its passes past --batch-size write temp runs, stored where PROG cannot start.
for i in 1 2 3 4 5 6 7; do
	"$TESTS_BUILDDIR/textgen" 4000 $i 3 100 12 | LC_ALL=C sort >"$WORK/m$i"
done
for fault in 2+ 1+; do
	rm -f "$CALLS"
	LC_ALL=C sort -m --batch-size=2 "$WORK"/m? >"$WORK/expected"
	GPUSORT_FAULT=compress_start:EAGAIN:$fault,spawn_wait:SHORT "$GPUSORT" -m --batch-size=2 \
		--compress-program="$PROG" "$WORK"/m? >"$WORK/got"
	check "-m --batch-size=2, tries from the ${fault%+}th on refused: as the system sort" \
		cmp "$WORK/expected" "$WORK/got"
	set -- $(calls)
	[ "$1" -eq $((${fault%+} - 1)) ] && [ "$2" -eq "$1" ]
	tap_result $? "-m, tries from the ${fault%+}th on refused: PROG calls $1, -d calls $2 (the piped runs)"
done
rm -f "$CALLS"
GPUSORT_FAULT=compress_start:EAGAIN,decompress_start:EAGAIN "$GPUSORT" -m --compress-program="$PROG" \
	"$WORK"/m? >"$WORK/got"
LC_ALL=C sort -m "$WORK"/m? >"$WORK/expected"
check "-m within --batch-size: no temp run, PROG never tried" cmp "$WORK/expected" "$WORK/got"
check "-m within --batch-size: PROG never ran" test ! -e "$CALLS"

# PROG -d: 8 tries refused, the 9th starts it; 9 refused: GNU's words, exit 2, the old
# output kept, nothing left behind. One thread, so that the tries are one run's.
expected_message() {
	printf "gpusort: couldn't create process for '%s' -d: Resource temporarily unavailable\n" "$PROG" \
		>"$WORK/expected"
}
expected_message
rm -f "$CALLS"
GPUSORT_FAULT=decompress_start:EAGAIN:2-9,spawn_wait:SHORT "$GPUSORT" -S 1M --parallel=1 \
	--compress-program="$PROG" "$WORK/ties.small" -o "$WORK/got"
check "PROG -d, 8 tries refused: the 9th starts it, as the system sort" cmp "$WORK/expected.small" "$WORK/got"
for mode in text binary records; do
	case $mode in
	text) set -- -S 1M "$WORK/ties.small" ;;
	binary) set -- --type=u64 -S 512K "$WORK/keys" ;;
	records) set -- --record-size=24 --key-size=10 -u -S 512K --batch-size=2 "$WORK/keys" ;;
	esac
	fresh_output
	GPUSORT_FAULT=decompress_start:EAGAIN:2-10,spawn_wait:SHORT expect_status 2 \
		"$mode, PROG -d refused 9 tries" "$GPUSORT" --parallel=1 --compress-program="$PROG" "$@" -o "$WORK/out"
	check "$mode, PROG -d not started: GNU's words, once" cmp "$WORK/expected" "$WORK/stderr"
	check "$mode, PROG -d not started: old output untouched, no temp file, no PROG running" untouched
	fresh_output
	GPUSORT_FAULT=decompress_start:EAGAIN,spawn_wait:SHORT expect_status 2 \
		"$mode, PROG -d never started, two threads" \
		"$GPUSORT" --parallel=2 --batch-size=2 --compress-program="$PROG" "$@" -o "$WORK/out"
	# both threads' merges fail alike: one message all the same, as GNU's one thread says it
	check "$mode, PROG -d never started on two threads: GNU's words, once" cmp "$WORK/expected" "$WORK/stderr"
	check "$mode, two threads: old output untouched, no temp file, no PROG running" untouched
done
# Runs stored because PROG could not start need no -d: those sorts succeed.
rm -f "$CALLS"
GPUSORT_FAULT=compress_start:EAGAIN,decompress_start:EAGAIN,spawn_wait:SHORT "$GPUSORT" -S 1M \
	--compress-program="$PROG" "$WORK/ties.small" -o "$WORK/got"
check "every run stored: no PROG -d needed, the sorted text" cmp "$WORK/expected.small" "$WORK/got"

# Other failures to start are not retried: a PROG that does not exist fails at once.
fresh_output
expect_status 2 "a PROG that does not exist" \
	"$GPUSORT" -S 1M --compress-program="$WORK/no-such-program" "$WORK/ties.small" -o "$WORK/out"
stderr_has "gpusort: couldn't execute compress program: No such file or directory" \
	"no PROG: GNU's words, not taken for a want of processes"
check "no PROG: old output untouched, nothing left" untouched

# A real RLIMIT_NPROC: as a uid no other process runs as (the limit counts all of the
# real user's processes and threads: those of another user of that name would count
# too), on one and two threads, under limits from what timeout and gpusort alone take to
# plenty. gpusort's threads go on with fewer where they cannot start, so every limit ends
# in the sorted output, or, where the merge's PROG -d children pass the limit, in exit 2
# with GNU's words, the old output kept and no temp file left. At a limit of 2 (timeout
# and gpusort) no process is left for PROG: its runs are stored and the sort succeeds.
# The waits are cut (spawn_wait).
if [ "$(id -u)" != 0 ]; then
	skip_test "a real RLIMIT_NPROC needs root to run as another user (RLIMIT_NPROC does not bind root)"
elif ! command -v setpriv >/dev/null || ! command -v prlimit >/dev/null; then
	skip_test "a real RLIMIT_NPROC needs setpriv and prlimit"
elif [ -n "${GPUSORT_SANITIZED:-}" ]; then
	skip_test "a real RLIMIT_NPROC under --enable-sanitizers: LeakSanitizer's exit check needs a thread of its own, which the limit refuses"
elif ! fresh_uid; then
	skip_test "a real RLIMIT_NPROC: no uid without processes found to run as"
else
	user_dir="$WORK/user"
	mkdir -m 777 "$user_dir" "$user_dir/tmp"
	chmod 755 "$WORK" "$WORK/bin"
	chmod 644 "$WORK/ties.small"
	: >"$CALLS"
	chmod 666 "$CALLS"
	outcomes="" messages_ok=true gnu_seen=false stored_seen=false sorted_seen=false
	for threads in 1 2; do
		for limit in 2 3 4 5 6 7 8 10 12 16 24 64; do
			rm -f "$user_dir/out"
			as_fresh_uid sh -c 'echo "old output" >"$1"' sh "$user_dir/out"
			as_fresh_uid env TMPDIR="$user_dir/tmp" GPUSORT_FAULT=spawn_wait:SHORT timeout 120 \
				prlimit --nproc=$limit "$GPUSORT" -S 1M --parallel=$threads --stats \
				--compress-program="$PROG" "$WORK/ties.small" -o "$user_dir/out" 2>"$WORK/nproc.err"
			status=$?
			grep -v '^gpusort: stats:' "$WORK/nproc.err" >"$WORK/nproc.message"
			outcome=$threads/$limit
			if [ $status -eq 0 ] && cmp -s "$WORK/expected.small" "$user_dir/out" \
				&& ! [ -s "$WORK/nproc.message" ]; then
				stored=$(runs_stored "$WORK/nproc.err")
				if [ "$stored" -gt 0 ]; then
					outcome="$outcome:sorted,$stored-stored"
					[ "$limit" -eq 2 ] && stored_seen=true
				else
					outcome="$outcome:sorted"
				fi
				sorted_seen=true
			elif [ $status -eq 2 ] && [ "$(cat "$user_dir/out")" = "old output" ] \
				&& cmp -s "$WORK/expected" "$WORK/nproc.message"; then
				outcome="$outcome:-d-refused"
				gnu_seen=true
			else
				outcome="$outcome:status-$status"
				messages_ok=false
				sed 's/^/# /' "$WORK/nproc.message" | head -3
			fi
			if [ -n "$(ls -A "$user_dir/tmp")" ]; then
				messages_ok=false
				outcome="$outcome(temp-left)"
				rm -f "$user_dir/tmp"/*
			fi
			outcomes="$outcomes $outcome"
		done
	done
	echo "# RLIMIT_NPROC outcomes (threads/limit):$outcomes"
	$messages_ok
	tap_result $? "RLIMIT_NPROC as a user of its own: each limit sorted, or exit 2 in GNU's words for PROG -d, old output kept, no temp file"
	$sorted_seen
	tap_result $? "RLIMIT_NPROC: a limit large enough sorts"
	$stored_seen
	tap_result $? "RLIMIT_NPROC: a limit with no process left for PROG (2: timeout and gpusort) stores runs without it, and sorts"
	# Which limits stop PROG -d depends on how many runs the merge takes at once: checked
	# where a limit hit it, and the fault cases above check it on every machine.
	if $gnu_seen; then
		tap_result 0 "RLIMIT_NPROC: the merge's PROG -d past the limit fails in GNU's words"
	else
		skip_test "RLIMIT_NPROC: no limit tried here stopped only PROG -d (outcomes above)"
	fi
	check "RLIMIT_NPROC: no PROG left running" sh -c "! ps -eo args | grep -F '$PROG' | grep -qv grep"
fi
done_testing
