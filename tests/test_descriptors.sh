#!/bin/sh
# SPDX-License-Identifier: MIT
# Open-file limits (issue 44): a spilled run holds no descriptor between merges, and
# each merge takes as many runs as the descriptors free allow, in more passes where
# they are few. Spilled sorts of hundreds of runs (text and u64 records, with
# --batch-size=2, -u, --compress-program) and -m of 40 inputs run under `ulimit -n`
# 8 to 1024 and put out what the system sort (or the binary oracle) does, with no temp
# file left; where GNU sort itself fails for want of descriptors, gpusort fails as it
# does (exit 2, its words).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

gnu=false
sort --version 2>/dev/null | grep -q 'GNU coreutils' && gnu=true
mkdir "$WORK/tmp"


runs() { sed -n 's/.*runs \([0-9]*\),.*/\1/p' "$WORK/stderr"; }
no_temp_left() { test -z "$(ls -A "$WORK/tmp")"; }

# sorts_as N EXPECTED DESCRIPTION GPUSORT_ARGS...: under limit N, exit 0, the output
# byte for byte EXPECTED, and -T left empty.
sorts_as() {
	n=$1 expected=$2 desc=$3
	shift 3
	limited "$n" "$GPUSORT" -T "$WORK/tmp" "$@" -o "$WORK/got" >"$WORK/stdout" 2>"$WORK/stderr"
	status=$?
	[ $status -eq 0 ] && cmp -s "$expected" "$WORK/got" && no_temp_left
	tap_result $? "$desc, ulimit -n $n: exit $status, output as expected, no temp file left"
	[ $status -eq 0 ] || sed 's/^/# /' "$WORK/stderr" | head -3
	rm -f "$WORK/got" "$WORK/tmp"/*
}

# The words of a failure, temp files' random names and the program's name set aside.
normalized() {
	sed -e 's/^sort: /gpusort: /' -e "s|$WORK/tmp/sort[A-Za-z0-9]\{6\}|TEMP|g" \
	    -e "s|$WORK/tmp/gpusort\.[A-Za-z0-9]\{6\}|TEMP|g" "$1"
}

# fails_as_gnu N DESCRIPTION ARGS...: where the system sort fails under limit N (exit 2
# for want of descriptors), gpusort fails too: exit 2, one message saying so, the
# output untouched, no temp file left. EXACT=1: in GNU's very words. SORTED=FILE:
# gpusort may instead sort (exit 0, FILE's bytes, no temp file left), where what it
# holds depends on whether PROG got its pipes while runs were made.
fails_as_gnu() {
	n=$1 desc=$2
	shift 2
	if ! $gnu; then
		skip_test "$desc: the system sort is not GNU sort"
		return
	fi
	echo old >"$WORK/got"
	limited "$n" sort -T "$WORK/tmp" "$@" -o "$WORK/got" 2>"$WORK/gnu.err"
	gnu_status=$?
	rm -f "$WORK/tmp"/*
	echo old >"$WORK/got"
	limited "$n" "$GPUSORT" -T "$WORK/tmp" "$@" -o "$WORK/got" 2>"$WORK/stderr"
	status=$?
	normalized "$WORK/gnu.err" >"$WORK/gnu.words"
	normalized "$WORK/stderr" >"$WORK/words"
	if [ "${EXACT:-0}" = 1 ]; then
		cmp -s "$WORK/gnu.words" "$WORK/words"
	else
		[ "$(wc -l <"$WORK/words")" -eq 1 ] && grep -q '^gpusort: .*: Too many open files$' "$WORK/words"
	fi
	words=$?
	if [ $status -eq 0 ] && [ -n "${SORTED:-}" ]; then
		[ $gnu_status -eq 2 ] && cmp -s "$SORTED" "$WORK/got" && no_temp_left
		tap_result $? "$desc, ulimit -n $n: sorted (exit 0) where GNU sort fails (exit $gnu_status)"
		rm -f "$WORK/tmp"/*
		return
	fi
	[ $gnu_status -eq 2 ] && [ $status -eq 2 ] && [ $words -eq 0 ] && [ "$(cat "$WORK/got")" = old ] &&
		no_temp_left
	tap_result $? "$desc, ulimit -n $n: exit $status as GNU sort's $gnu_status, for want of descriptors"
	[ $words -eq 0 ] || { sed 's/^/# gnu: /' "$WORK/gnu.err"; sed 's/^/# got: /' "$WORK/stderr"; } | head -4
	rm -f "$WORK/tmp"/*
}

# Text: about 8.4 MB that -S 64K spills into about a hundred runs.
awk 'BEGIN { srand(44); for (i = 0; i < 480000; i++) {
	w = ""; n = 3 + int(rand() * 28); for (j = 0; j < n; j++) w = w sprintf("%c", 97 + int(rand() * 26))
	print w } }' >"$WORK/text"
sort "$WORK/text" >"$WORK/text.sorted"
sort -u "$WORK/text" >"$WORK/text.unique"

expect_status 0 "text under -S 64K, no limit" "$GPUSORT" --stats -T "$WORK/tmp" -S 64K "$WORK/text" -o "$WORK/got"
text_runs=$(runs)
[ "${text_runs:-0}" -ge 100 ]
tap_result $? "text under -S 64K: $text_runs runs spilled and merged (100 or more)"

for n in 8 16 64 1024; do
	sorts_as $n "$WORK/text.sorted" "text, $text_runs runs" -S 64K "$WORK/text"
done
for n in 8 16; do
	sorts_as $n "$WORK/text.sorted" "text, --batch-size=2" -S 64K --batch-size=2 "$WORK/text"
done
sorts_as 8 "$WORK/text.unique" "text, -u" -S 64K -u "$WORK/text"
sorts_as 8 "$WORK/text.unique" "text, -u --parallel=1 (one merge into the output)" -S 64K -u --parallel=1 "$WORK/text"
# --compress-program: a PROG per run and per merge's run, on a fifth of the text (a few
# dozen runs). gzip rather than cat: GNU sort runs PROG -d, which cat refuses. Without
# --batch-size GNU sort fails here itself ('gzip' [-d] terminated abnormally); gpusort
# does not.
head -n 40000 "$WORK/text" >"$WORK/fifth"
sort "$WORK/fifth" >"$WORK/fifth.sorted"
sort -u "$WORK/fifth" >"$WORK/fifth.unique"
sorts_as 8 "$WORK/fifth.sorted" "text, --compress-program=gzip" -S 64K --compress-program=gzip "$WORK/fifth"
sorts_as 8 "$WORK/fifth.unique" "text, --compress-program=gzip --batch-size=2 -u" \
	-S 64K --compress-program=gzip --batch-size=2 -u "$WORK/fifth"

# Where GNU sort gives up: 5 descriptors (neither can merge two runs beside its
# output; gpusort's input keeps one more, so it fails making its first run, where GNU
# sort fails opening a run), and 6 with PROG (in GNU's words, a run that could not be
# opened; or sorted, where too few runs went through PROG to need more descriptors).
fails_as_gnu 5 "text" -S 64K "$WORK/text"
EXACT=1 SORTED="$WORK/fifth.sorted" fails_as_gnu 6 "text, --compress-program=gzip" -S 64K \
	--compress-program=gzip "$WORK/fifth"

# Binary: 300000 records of 64 bytes, a u64 key first (a few thousand keys, each of
# many records: the merges must keep them in order), which -S 64K spills into more runs
# than 64 descriptors could hold at once.
keygen --type=u64 --count=300000 --record-size=64 --dist=poisson --seed=44 -o "$WORK/keys"
oracle --type=u64 --record-size=64 "$WORK/keys" "$WORK/keys.sorted"
oracle --type=u64 --record-size=64 -u "$WORK/keys" "$WORK/keys.unique"
expect_status 0 "u64 under -S 64K, no limit" "$GPUSORT" --stats -T "$WORK/tmp" -S 64K --type=u64 --record-size=64 \
	"$WORK/keys" -o "$WORK/got"
key_runs=$(runs)
[ "${key_runs:-0}" -ge 64 ]
tap_result $? "u64 under -S 64K: $key_runs runs spilled and merged (64 or more)"
for n in 8 16 64 1024; do
	sorts_as $n "$WORK/keys.sorted" "u64, $key_runs runs" -S 64K --type=u64 --record-size=64 "$WORK/keys"
done
sorts_as 8 "$WORK/keys.sorted" "u64, --batch-size=2" -S 64K --batch-size=2 --type=u64 --record-size=64 "$WORK/keys"
sorts_as 8 "$WORK/keys.unique" "u64, -u" -S 64K -u --type=u64 --record-size=64 "$WORK/keys"
head -c 640000 "$WORK/keys" >"$WORK/keys.fifth"
oracle --type=u64 --record-size=64 -u "$WORK/keys.fifth" "$WORK/keys.fifth.unique"
sorts_as 8 "$WORK/keys.fifth.unique" "u64, --compress-program=gzip -u" -S 64K --compress-program=gzip -u \
	--type=u64 --record-size=64 "$WORK/keys.fifth"

# -m of 40 sorted inputs, more than the descriptors: as GNU sort, merged as many at a
# time as they allow, through temp files.
mkdir "$WORK/in" "$WORK/keys.in"
split -n l/40 -d -a 2 "$WORK/text" "$WORK/in/"
for f in "$WORK/in"/*; do sort -o "$f" "$f"; done
for n in 8 16; do
	sorts_as $n "$WORK/text.sorted" "-m of 40 text inputs" -m "$WORK/in"/*
done
sorts_as 8 "$WORK/text.sorted" "-m of 40 text inputs, --batch-size=2" -m --batch-size=2 "$WORK/in"/*
sorts_as 8 "$WORK/text.sorted" "-m of 40 text inputs, --compress-program=gzip" -m --compress-program=gzip \
	"$WORK/in"/*
EXACT=1 fails_as_gnu 5 "-m of 40 text inputs" -m "$WORK/in"/*
# every 40th record of the sorted keys to each: sorted inputs that interleave
python3 -c 'import sys
data = open(sys.argv[1], "rb").read()
records = [data[i:i + 64] for i in range(0, len(data), 64)]
for k in range(40):
    open("%s/%02d" % (sys.argv[2], k), "wb").write(b"".join(records[k::40]))' "$WORK/keys.sorted" "$WORK/keys.in"
# equal keys come out in input order: the inputs one after another, sorted stably
cat "$WORK/keys.in"/* >"$WORK/keys.in.all"
oracle --type=u64 --record-size=64 "$WORK/keys.in.all" "$WORK/keys.merged"
for n in 8 16; do
	sorts_as $n "$WORK/keys.merged" "-m of 40 u64 inputs" -m --type=u64 --record-size=64 "$WORK/keys.in"/*
done
done_testing
