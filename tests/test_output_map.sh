#!/bin/sh
# SPDX-License-Identifier: MIT
# An in-memory sort's output written through a mapping (io/file_map.h) whose pages
# threads fault in during the sort: by default from 256 MiB beside the GPU, within the
# kernel's background-writeback room (so never in CI, nor at these sizes), for every
# size with GPUSORT_OUTPUT_MAP=1, never with =0, as --stats says. The same bytes
# either way for binary keys, records, text, -u (the allocated file cut to what was
# written) and several threads; the twin allocated only when mapped, never on a tmpfs;
# an output with two hard links gets the bytes through both; no room: GNU's message,
# exit 2, the old output kept and no temp file left.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

TMP=$WORK/tmp
mkdir -p "$TMP"

# same DESCRIPTION ARGS...: mapped (=1) and written (=0), the same output, exit 0.
same() {
	desc=$1
	shift
	GPUSORT_OUTPUT_MAP=0 "$GPUSORT" -T "$TMP" "$@" -o "$WORK/written" 2>"$WORK/written.err"
	written=$?
	GPUSORT_OUTPUT_MAP=1 "$GPUSORT" -T "$TMP" "$@" -o "$WORK/mapped" 2>"$WORK/mapped.err"
	mapped=$?
	[ $written -eq 0 ] && [ $mapped -eq 0 ] && cmp -s "$WORK/written" "$WORK/mapped" && [ -z "$(ls -A "$TMP")" ]
	tap_result $? "$desc: mapped and written alike (exit $mapped and $written, $(wc -c <"$WORK/mapped") bytes)"
	head -3 "$WORK/mapped.err" | sed 's/^/#   /'
}

keygen --type=u64 --count=300000 --dist=uniform --seed=1 -o "$WORK/u64"
keygen --type=u32 --count=300001 --dist=few-unique --seed=2 -o "$WORK/u32"
# records (20 MB) enough that the writes in order are done before the commit: it once
# cut the allocated twin where the writes at offsets ended, to nothing (from 10 MB up)
keygen --type=bytes --key-size=10 --record-size=100 --count=200000 --dist=few-unique --seed=3 -o "$WORK/records"
keygen --type=bytes --key-size=10 --record-size=100 --count=200000 --dist=uniform --seed=4 -o "$WORK/distinct"
"$TESTS_BUILDDIR/textgen" 50000 7 >"$WORK/text"
printf 'b\na\nc' >"$WORK/unterminated"

same "u64 keys" --type=u64 "$WORK/u64"
same "u64 keys, 4 threads" --type=u64 --parallel=4 "$WORK/u64"
same "u32 keys, -u (shorter than the input)" --type=u32 -u "$WORK/u32"
same "100-byte records" --record-size=100 --key-size=10 "$WORK/records"
same "100-byte records, -r -u" --record-size=100 --key-size=10 -r -u "$WORK/records"
same "100-byte records with distinct keys, -u (written in order)" --record-size=100 --key-size=10 -u "$WORK/distinct"
same "text" "$WORK/text"
same "text -k2n -u, 3 threads" -k2n -u --parallel=3 "$WORK/text"
same "text whose last line has no newline" "$WORK/unterminated"
[ "$(cat "$WORK/mapped")" = "$(printf 'a\nb\nc')" ]
tap_result $? "the unterminated last line ends with a newline, and nothing follows it"
# --stats says when the output went through a mapping, and how much of it
GPUSORT_OUTPUT_MAP=1 "$GPUSORT" --stats --type=u64 "$WORK/u64" -o "$WORK/mapped" 2>"$WORK/stats" &&
	grep -q '^gpusort: stats: output copied through a mapping of 2\.3 MiB$' "$WORK/stats"
tap_result $? "GPUSORT_OUTPUT_MAP=1: --stats says the 2.3 MiB output was copied through a mapping"
GPUSORT_OUTPUT_MAP=0 "$GPUSORT" --stats --type=u64 "$WORK/u64" -o "$WORK/written" 2>"$WORK/stats" &&
	grep -q '^gpusort: stats: records 300000,' "$WORK/stats" && ! grep -q 'through a mapping' "$WORK/stats"
tap_result $? "GPUSORT_OUTPUT_MAP=0: no mapping in --stats"
sort -u -k2n "$WORK/text" >"$WORK/expected" 2>/dev/null
GPUSORT_OUTPUT_MAP=1 "$GPUSORT" -k2n -u "$WORK/text" -o "$WORK/mapped" && cmp -s "$WORK/mapped" "$WORK/expected"
tap_result $? "text -k2n -u mapped: the system sort's bytes"

# Every way an in-memory sort puts its records out, mapped and written, at a size past
# the output's direct-write minimum (32 MiB) and the gather's block sizes (4-64 MiB), and
# checked against the input by sortcheck: bare keys (in place), records behind 64- and
# 128-bit items (a 32-bit, 64-bit, 80-bit or 64-bit-prefix key with the position), -u
# (kept records written in order), -r, text and -z.
# forms KIND SORTCHECK_ARGS -- GPUSORT_ARGS: KIND's file (made once) sorted both ways.
forms() {
	kind=$1 check=$2
	shift 3
	if [ ! -e "$WORK/form.$kind" ]; then
		case $kind in
		u64) keygen --type=u64 --count=5000000 --seed=5 -o "$WORK/form.$kind" ;;
		u32) keygen --type=u32 --count=10000000 --dist=few-unique --seed=6 -o "$WORK/form.$kind" ;;
		key32) keygen --type=u32 --record-size=8 --key-offset=4 --count=5000000 --seed=7 -o "$WORK/form.$kind" ;;
		key64) keygen --type=i64 --record-size=16 --count=2500000 --dist=normal --seed=8 -o "$WORK/form.$kind" ;;
		key80) keygen --type=bytes --key-size=10 --record-size=100 --count=400000 --seed=9 -o "$WORK/form.$kind" ;;
		prefix) keygen --type=bytes --key-size=20 --record-size=40 --count=1000000 --dist=few-unique --seed=10 -o "$WORK/form.$kind" ;;
		text) "$TESTS_BUILDDIR/textgen" 3000000 11 >"$WORK/form.$kind" ;;
		esac
	fi
	same "$kind ($(wc -c <"$WORK/form.$kind") bytes) $*" "$@" "$WORK/form.$kind"
	if [ "$check" = text ]; then
		LC_ALL=C sort "$@" "$WORK/form.$kind" | cmp -s - "$WORK/mapped"
	else
		"$TESTS_BUILDDIR/sortcheck" $check "$@" "$WORK/form.$kind" "$WORK/mapped" >/dev/null 2>&1
	fi
	tap_result $? "$kind $*: the mapped output is the input in order"
}
forms u64 "" -- --type=u64
forms u32 "" -- --type=u32 -u
forms key32 "" -- --type=u32 --record-size=8 --key-offset=4
forms key64 "" -- --type=i64 --record-size=16 -r
forms key80 "" -- --type=bytes --record-size=100 --key-size=10
forms key80 "" -- --type=bytes --record-size=100 --key-size=10 -u
forms prefix "" -- --type=bytes --record-size=40 --key-size=20 -u
forms text text -- -u
forms text text -- -k2n

# traced CALL NAME ARGS...: gpusort ARGS -o NAME with its CALL system calls traced into
# $WORK/trace (-y: descriptors named by their files); fails when strace cannot trace.
# (LeakSanitizer cannot run under a tracer: off there, under --enable-sanitizers.)
traced() {
	call=$1 name=$2
	shift 2
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -y -e trace="$call" -o "$WORK/trace" "$GPUSORT" "$@" -o "$name" >/dev/null 2>&1
}
# allocated NAME ARGS...: how often gpusort allocated a range of its output's twin
# (fallocate on a .gpusort-out file).
allocated() {
	traced fallocate "$@" && grep -c " fallocate([0-9]*<[^>]*\.gpusort-out\." "$WORK/trace"
}
# prefaults NAME ARGS...: the threads' MADV_POPULATE_WRITE calls on the output's
# mapping, as "CALLS BYTES".
prefaults() {
	traced madvise "$@" &&
		sed -n 's/.*madvise(0x[0-9a-f]*, \([0-9]*\), MADV_POPULATE_WRITE.*/\1/p' "$WORK/trace" |
		awk '{ calls++; bytes += $1 } END { print calls + 0, bytes + 0 }'
}
if ! strace -f -o /dev/null true 2>/dev/null; then
	skip_test "no strace that may trace here: cannot watch the output being allocated"
	skip_test "no strace that may trace here: cannot watch the output's pages being faulted in"
else
	set -- "$(GPUSORT_OUTPUT_MAP=1 allocated "$WORK/out" --type=u64 "$WORK/u64")" \
		"$(GPUSORT_OUTPUT_MAP=0 allocated "$WORK/out" --type=u64 "$WORK/u64")" \
		"$(allocated "$WORK/out" --type=u64 "$WORK/u64")"
	[ "$1" = 1 ] && [ "$2" = 0 ] && [ "$3" = 0 ]
	tap_result $? "allocated once with GPUSORT_OUTPUT_MAP=1 ($1), never with =0 ($2) or by default at this size ($3)"
	if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && [ -w /dev/shm ]; then
		shm=$(mktemp -d /dev/shm/gpusort-test.XXXXXX)
		count=$(GPUSORT_OUTPUT_MAP=1 allocated "$shm/out" --type=u64 "$WORK/u64")
		GPUSORT_OUTPUT_MAP=0 "$GPUSORT" --type=u64 "$WORK/u64" | cmp -s - "$shm/out"
		status=$?
		set -- $(GPUSORT_OUTPUT_MAP=1 prefaults "$shm/out" --type=u64 "$WORK/u64")
		GPUSORT_OUTPUT_MAP=0 "$GPUSORT" --type=u64 "$WORK/u64" | cmp -s - "$shm/out"
		status2=$?
		rm -rf "$shm"
		[ $status -eq 0 ] && [ $status2 -eq 0 ] && [ "$count" = 0 ] && [ "${1:-0}" -ge 4 ]
		tap_result $? "an output on a tmpfs is mapped without fallocate ($count), its pages faulted in ahead and before each copy (${1:-0} calls), the same bytes"
	else
		skip_test "/dev/shm is no tmpfs here"
	fi
	set -- "$(GPUSORT_OUTPUT_MAP=1 prefaults "$WORK/out" --type=u64 "$WORK/u64")" \
		"$(GPUSORT_OUTPUT_MAP=0 prefaults "$WORK/out" --type=u64 "$WORK/u64")" \
		"$(prefaults "$WORK/out" --type=u64 "$WORK/u64")"
	size=$(wc -c <"$WORK/u64")
	[ "${1% *}" = 4 ] && [ "${1#* }" -ge "$size" ] && [ "$2" = "0 0" ] && [ "$3" = "0 0" ]
	tap_result $? "pages faulted in by 4 threads covering the $size bytes with GPUSORT_OUTPUT_MAP=1 ($1), never with =0 ($2) or by default at this size ($3)"
fi

# A sort whose self-check fails after its output was mapped and faulted in: the
# internal error once, exit 2, the old output as it was, nothing left.
echo "old output" >"$WORK/out"
GPUSORT_OUTPUT_MAP=1 GPUSORT_FAULT=sort_swap:SHORT "$GPUSORT" -T "$TMP" --type=u64 "$WORK/u64" -o "$WORK/out" 2>"$WORK/stderr"
status=$?
[ $status -eq 2 ] && [ "$(grep -c . "$WORK/stderr")" -eq 1 ] && grep -q "^gpusort: internal error: " "$WORK/stderr" &&
	[ "$(cat "$WORK/out")" = "old output" ] && [ -z "$(ls -A "$TMP")" ] && [ -z "$(ls -a "$WORK" | grep gpusort-out)" ]
tap_result $? "a failed self-check after the output was mapped: exit $status, $(cat "$WORK/stderr"); old output kept"

# An output with a second hard link: the bytes are copied into it at the commit, so
# both names show them.
echo old >"$WORK/linked"
ln "$WORK/linked" "$WORK/link2"
GPUSORT_OUTPUT_MAP=1 "$GPUSORT" --type=u64 "$WORK/u64" -o "$WORK/linked" &&
	GPUSORT_OUTPUT_MAP=0 "$GPUSORT" --type=u64 "$WORK/u64" -o "$WORK/plain" &&
	cmp -s "$WORK/linked" "$WORK/plain" && cmp -s "$WORK/link2" "$WORK/plain" &&
	[ "$(stat -c %h "$WORK/linked")" = 2 ]
tap_result $? "an output with two hard links: both show the sorted bytes"

# No room for the output when it is allocated (injected): one message, exit 2, the old
# output as it was, no twin and no temp file left.
for spec in "output_write:ENOSPC:1" "output_write:EIO:2"; do
	echo "old output" >"$WORK/out"
	GPUSORT_OUTPUT_MAP=1 GPUSORT_FAULT=$spec "$GPUSORT" -T "$TMP" --type=u64 "$WORK/u64" -o "$WORK/out" 2>"$WORK/stderr"
	status=$?
	[ $status -eq 2 ] && [ "$(grep -c . "$WORK/stderr")" -eq 2 ] && [ "$(tail -1 "$WORK/stderr")" = "gpusort: write error" ] &&
		grep -q "^gpusort: write failed: .*out: " "$WORK/stderr" && [ "$(cat "$WORK/out")" = "old output" ] &&
		[ -z "$(ls -A "$TMP")" ] && [ -z "$(ls -a "$WORK" | grep gpusort-out)" ]
	tap_result $? "$spec while mapped: exit $status, $(cat "$WORK/stderr"); old output kept, nothing left"
done

# A tmpfs without room for the output (1 MiB, mounted in a mount namespace of the
# test's own, as root): its file is mapped without an allocation, so the pages faulted
# in before each copy find no room: the write fails with GNU's message (not SIGBUS), exit
# 2, the old output kept, no twin left.
mkdir "$WORK/full"
if [ "$(id -u)" -eq 0 ] && unshare -m sh -c "mount -t tmpfs -o size=1m tmpfs '$WORK/full'" 2>/dev/null; then
	for args in "--type=u64" "--record-size=100 --key-size=10"; do
		case $args in --type*) input=$WORK/u64 ;; *) input=$WORK/records ;; esac
		unshare -m sh -c 'mount -t tmpfs -o size=1m tmpfs "$1/full" && echo "old output" >"$1/full/out" &&
			{ GPUSORT_OUTPUT_MAP=1 "$2" -T "$3" $4 "$5" -o "$1/full/out" 2>"$1/stderr"; echo $? >"$1/status"; } &&
			cat "$1/full/out" >"$1/kept" && ls -A "$1/full" >"$1/left"' sh "$WORK" "$GPUSORT" "$TMP" "$args" "$input"
		[ "$(cat "$WORK/status")" = 2 ] && [ "$(cat "$WORK/kept")" = "old output" ] &&
			[ "$(cat "$WORK/left")" = out ] && [ "$(grep -c . "$WORK/stderr")" -eq 2 ] &&
			[ "$(tail -1 "$WORK/stderr")" = "gpusort: write error" ] &&
			grep -q "^gpusort: write failed: .*/full/out: No space left on device" "$WORK/stderr" &&
			[ -z "$(ls -A "$TMP")" ]
		tap_result $? "$args into a full tmpfs, mapped: exit $(cat "$WORK/status"), $(cat "$WORK/stderr"); old output kept"
	done
else
	skip_test "cannot mount a small tmpfs here (needs root and unshare -m)"
	skip_test "cannot mount a small tmpfs here (needs root and unshare -m)"
fi

done_testing
