#!/bin/sh
# SPDX-License-Identifier: MIT
# --batch-size=NMERGE: GNU sort's cap on how many runs (or -m inputs) one merge takes.
# Its bad values are refused in GNU's words (exit 2); with it, spilled sorts and -m of
# more inputs take more merge passes (--stats counts them) and put out exactly what
# the system sort does with the same options, and binary ones what they put out
# without it.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

gnu=false
sort --version 2>/dev/null | grep -q 'GNU coreutils' && gnu=true

# The merge passes --stats counted in the last run.
passes() { sed -n 's/.*merge passes \([0-9]*\).*/\1/p' "$WORK/stderr"; }
runs() { sed -n 's/.*runs \([0-9]*\),.*/\1/p' "$WORK/stderr"; }
# first_runs B T P: the runs a sort spilled (more than B) when it made T runs in all and
# P merge passes, merging B at a time as runs.c does (passes of B-run groups while more
# than B remain, then the last merge into the output); fails when no count fits. The
# count itself depends on the machine's threads, so the test asks only that one fits.
first_runs() {
	awk -v b="$1" -v t="$2" -v p="$3" 'BEGIN {
		for (r = b + 1; r <= t; r++) {
			n = r; total = r; passes = 1
			while (n > b) { n = int((n + b - 1) / b); total += n; passes++ }
			if (total == t && passes == p) { print r; exit 0 }
		}
		exit 1 }'
}
# capped B DESCRIPTION: the last --stats shows runs merged at most B at a time.
capped() {
	got_runs=$(runs) got_passes=$(passes)
	spilled=$(first_runs "$1" "${got_runs:-0}" "${got_passes:-0}")
	tap_result $? "$2: $got_runs runs ($spilled spilled) in $got_passes merge passes, $1 at a time"
}

# with_limit COMMAND...: runs it with the open-file limit $limit, when set.
with_limit() {
	if [ -n "$limit" ]; then
		sh -c "ulimit -n $limit && exec \"\$@\"" sh "$@"
	else
		"$@"
	fi
}

# refused_as_gnu VALUE: gpusort's message and exit status are sort's.
refused_as_gnu() {
	printf 'b\na\n' >"$WORK/two"
	with_limit sort "--batch-size=$1" "$WORK/two" >"$WORK/expected" 2>&1
	expected=$?
	sed -i "s/^sort:/gpusort:/" "$WORK/expected"
	with_limit "$GPUSORT" "--batch-size=$1" "$WORK/two" >"$WORK/got" 2>&1
	status=$?
	[ $status -eq $expected ] && cmp -s "$WORK/expected" "$WORK/got"
	tap_result $? "--batch-size='$1' ${limit:+(open files $limit) }as GNU sort takes it (exit $status, GNU $expected)"
	cmp -s "$WORK/expected" "$WORK/got" || diff "$WORK/expected" "$WORK/got" | sed 's/^/# /'
}

if $gnu; then
	limit=
	for value in 1 0 x 5k '' -3 ' -3' 0x5 '5 ' 99999999999999999999 4294967298 1000000000 2 +3 ' 4' 05; do
		refused_as_gnu "$value"
	done
	# the largest the open-file limit allows: that limit less stdin, stdout and stderr
	limit=10
	refused_as_gnu 8
	refused_as_gnu 7
	limit=
else
	skip_test "the system sort is not GNU sort: no messages to compare with"
fi

# Text that spills into 4 runs under -S 4M, merged in one pass by default.
awk 'BEGIN { srand(5); for (i = 0; i < 150000; i++) {
	w = ""; n = int(rand() * 12); for (j = 0; j < n; j++) w = w sprintf("%c", 97 + int(rand() * 8))
	printf "%d %s\n", int(rand() * 1000000), w } }' >"$WORK/text"

expect_status 0 "text spilled, no --batch-size" "$GPUSORT" --stats -S 4M "$WORK/text" -o "$WORK/default"
for batch in 2 3; do
	expect_status 0 "text spilled, --batch-size=$batch" \
		"$GPUSORT" --stats -S 4M --batch-size=$batch "$WORK/text" -o "$WORK/got"
	capped $batch "--batch-size=$batch"
	cmp -s "$WORK/default" "$WORK/got"
	tap_result $? "--batch-size=$batch: the same output as without"
done

if $gnu; then
	for options in "-S 2M --batch-size=2" "-S 2M --batch-size=3 -n" "-S 2M --batch-size=2 -k2,2 -k1,1n" \
		"-S 2M --batch-size=2 -u -k2,2" "-S 2M --batch-size=4 -r" "-S 100K --batch-size=2 -s -k2,2" \
		"--batch-size=2 -S 100K -n -u"; do
		sort $options "$WORK/text" >"$WORK/expected"
		"$GPUSORT" $options "$WORK/text" >"$WORK/got"
		cmp -s "$WORK/expected" "$WORK/got"
		tap_result $? "'$options' puts out what sort does"
	done
else
	skip_test "the system sort is not GNU sort: no output to compare with"
fi

# Binary records (8 runs under -S 4M): the same bytes with the cap as without, in
# more passes.
keygen --type=u64 --count=300000 --seed=21 --record-size=24 -o "$WORK/records"
expect_status 0 "binary spilled, no --batch-size" \
	"$GPUSORT" --stats -S 4M --type=u64 --record-size=24 "$WORK/records" -o "$WORK/default"
expect_status 0 "binary spilled, --batch-size=2" \
	"$GPUSORT" --stats -S 4M --batch-size=2 --type=u64 --record-size=24 "$WORK/records" -o "$WORK/got"
capped 2 "binary --batch-size=2"
cmp -s "$WORK/default" "$WORK/got"
tap_result $? "binary --batch-size=2: the same records as without"
check "binary --batch-size=2: sorted, a permutation of the input" \
	sortcheck --type=u64 --record-size=24 "$WORK/records" "$WORK/got"

# -m with more inputs than NMERGE: merged in passes through temp files, as GNU sort.
inputs=
for i in 1 2 3 4 5 6 7; do
	awk -v seed=$i 'BEGIN { srand(seed); for (i = 0; i < 3000; i++)
		printf "%d %c\n", int(rand() * 500), 97 + int(rand() * 5) }' | sort >"$WORK/sorted$i"
	inputs="$inputs $WORK/sorted$i"
	[ $i -eq 2 ] && : >"$WORK/empty" && inputs="$inputs $WORK/empty"
done
expect_status 0 "-m of 8 inputs, no --batch-size" "$GPUSORT" --stats -m $inputs -o "$WORK/default"
default_passes=$(passes)
expect_status 0 "-m of 8 inputs, --batch-size=2" "$GPUSORT" --stats -m --batch-size=2 $inputs -o "$WORK/got"
got_passes=$(passes)
[ "$got_passes" -gt "$default_passes" ]
tap_result $? "-m --batch-size=2: more merge passes ($got_passes) than without ($default_passes)"
if $gnu; then
	for options in "--batch-size=2" "--batch-size=3" "--batch-size=7" "--batch-size=8" "--batch-size=2 -u" \
		"--batch-size=3 -k2,2 -k1,1n" "--batch-size=2 -s -k2,2" "--batch-size=4 -u -k2,2"; do
		sort -m $options $inputs >"$WORK/expected"
		"$GPUSORT" -m $options $inputs >"$WORK/got"
		cmp -s "$WORK/expected" "$WORK/got"
		tap_result $? "'-m $options' of 8 inputs puts out what sort does"
	done
else
	skip_test "the system sort is not GNU sort: no output to compare with"
fi
expect_status 2 "-m --batch-size=2 with a missing input" "$GPUSORT" -m --batch-size=2 $inputs "$WORK/missing"
printf 'gpusort: cannot read: %s: No such file or directory\n' "$WORK/missing" >"$WORK/expected"
cmp -s "$WORK/expected" "$WORK/stderr"
tap_result $? "the missing input is named, once"

# Binary -m: the same records with the cap as without.
inputs=
for i in 1 2 3 4 5; do
	keygen --type=u64 --count=20000 --seed=3$i --record-size=16 -o "$WORK/unsorted$i"
	"$GPUSORT" --type=u64 --record-size=16 "$WORK/unsorted$i" -o "$WORK/records$i"
	inputs="$inputs $WORK/records$i"
done
expect_status 0 "binary -m of 5 inputs" "$GPUSORT" -m --type=u64 --record-size=16 $inputs -o "$WORK/default"
expect_status 0 "binary -m of 5 inputs, --batch-size=2" \
	"$GPUSORT" -m --batch-size=2 --type=u64 --record-size=16 $inputs -o "$WORK/got"
cmp -s "$WORK/default" "$WORK/got"
tap_result $? "binary -m --batch-size=2: the same records as without"
done_testing
