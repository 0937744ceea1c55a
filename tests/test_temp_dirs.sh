#!/bin/sh
# SPDX-License-Identifier: MIT
# -T directories that cannot take a temp file, in GNU sort's words and at GNU's moment:
# "gpusort: cannot create temporary file in 'DIR': REASON", exit 2, only when a temp
# file is needed (an input that fits in memory sorts, whatever -T says). Text and
# binary alike; a missing directory, a non-directory, one the user cannot write, and
# a full one (injected: temp_create:ENOSPC; and for real, a tmpfs without room or
# inodes). The old output is kept, no temp is left. With several -T directories the
# runs and the merge passes' outputs go to each in turn.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

mkdir "$WORK/tmp" "$WORK/locked"
export TMPDIR="$WORK/tmp"
chmod 755 "$WORK"
chmod 555 "$WORK/locked"
: > "$WORK/file"
seq 1 200000 | sed 's/$/ line/' > "$WORK/text"
seq 1 10 > "$WORK/small.txt"
keygen --type=u64 --count=300000 --seed=3 -o "$WORK/keys"
keygen --type=u64 --count=100 --seed=4 -o "$WORK/small.bin"
LC_ALL=C sort "$WORK/small.txt" > "$WORK/small.txt.sorted"
"$GPUSORT" --type=u64 --device=cpu "$WORK/small.bin" -o "$WORK/small.bin.sorted"

# expect_message DESCRIPTION MESSAGE COMMAND...: exit 2 and stderr exactly MESSAGE.
expect_message() {
	desc=$1 message=$2
	shift 2
	"$@" >"$WORK/stdout" 2>"$WORK/stderr"
	status=$?
	printf '%s\n' "$message" > "$WORK/expected"
	[ $status -eq 2 ] && cmp -s "$WORK/expected" "$WORK/stderr"
	tap_result $? "$desc (exit $status)"
	cmp -s "$WORK/expected" "$WORK/stderr" || { echo "# stderr was:"; sed 's/^/#   /' "$WORK/stderr"; }
}

no_temp_left() { test -z "$(ls -A "$WORK/tmp")" && test -z "$(ls -A "$WORK/locked")"; }

# as_nobody COMMAND...: runs it without root's power to write anywhere, when we are root.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	can_lock=yes
elif [ "$(id -u)" -ne 0 ]; then
	as_nobody() { "$@"; }
	can_lock=yes
else
	can_lock=no
fi

missing="$WORK/missing"
for mode in text binary; do
	if [ $mode = text ]; then
		spilling="-S 100K $WORK/text" small="$WORK/small.txt"
	else
		spilling="--type=u64 -S 512K $WORK/keys" small="--type=u64 $WORK/small.bin"
	fi
	expect_message "$mode: a missing -T directory" \
		"gpusort: cannot create temporary file in '$missing': No such file or directory" \
		"$GPUSORT" -T "$missing" $spilling
	expect_message "$mode: a -T that is not a directory" \
		"gpusort: cannot create temporary file in '$WORK/file': Not a directory" \
		"$GPUSORT" -T "$WORK/file" $spilling
	expect_message "$mode: the directory as given, trailing slash and all" \
		"gpusort: cannot create temporary file in '$missing/': No such file or directory" \
		"$GPUSORT" -T "$missing/" $spilling
	expect_message "$mode: the second of two -T directories, when it is the one that fails" \
		"gpusort: cannot create temporary file in '$missing': No such file or directory" \
		"$GPUSORT" -T "$WORK/tmp" -T "$missing" $spilling
	if [ $can_lock = yes ]; then
		expect_message "$mode: a -T directory the user cannot write" \
			"gpusort: cannot create temporary file in '$WORK/locked': Permission denied" \
			as_nobody "$GPUSORT" -T "$WORK/locked" $spilling
	else
		skip_test "$mode: unwritable -T: root without setpriv"
	fi
	GPUSORT_FAULT=temp_create:ENOSPC expect_message "$mode: a full -T directory" \
		"gpusort: cannot create temporary file in '$WORK/tmp': No space left on device" \
		"$GPUSORT" -T "$WORK/tmp" $spilling
	GPUSORT_FAULT=temp_create:ENOSPC expect_message "$mode: a full \$TMPDIR without -T" \
		"gpusort: cannot create temporary file in '$WORK/tmp': No space left on device" \
		"$GPUSORT" $spilling
	check "$mode: no temp file left after the failures" no_temp_left

	# GNU sort needs no temp file for an input that fits in memory, and sorts it.
	for dir in "$missing" "$WORK/file" "$WORK/locked"; do
		"$GPUSORT" -T "$dir" $small -o "$WORK/got" 2>"$WORK/stderr" &&
			cmp -s "$WORK/got" "$WORK/small.$([ $mode = text ] && echo txt || echo bin).sorted" &&
			test ! -s "$WORK/stderr"
		tap_result $? "$mode: an input that fits in memory sorts with -T $dir"
	done
done

# Several -T directories: temp files go round-robin, one per directory in turn, the runs
# and the merge passes' outputs alike (a pass per two runs here), watched through strace;
# the sort's output is right and every directory is left empty.
mkdir "$WORK/A" "$WORK/B" "$WORK/C"
if strace -f -o /dev/null true 2>/dev/null; then
	for mode in text binary; do
		if [ $mode = text ]; then
			spilling="-S 100K $WORK/text" expected="$WORK/text.sorted"
			LC_ALL=C sort "$WORK/text" > "$expected"
		else
			spilling="--type=u64 -S 512K $WORK/keys" expected="$WORK/keys.sorted"
			"$GPUSORT" --type=u64 "$WORK/keys" -o "$expected"
		fi
		# LeakSanitizer cannot run under ptrace (--enable-sanitizers builds)
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			strace -f -qq -e trace=openat -o "$WORK/trace" "$GPUSORT" --stats --batch-size=2 \
			-T "$WORK/A" -T "$WORK/B" -T "$WORK/C" $spilling -o "$WORK/got" 2>"$WORK/stats"
		tap_result $? "$mode: three -T directories: exits 0"
		check "$mode: three -T directories: the output is right" cmp "$expected" "$WORK/got"
		# The directory of each temp file created, in order of creation; --stats counts
		# as runs the spilled ones and the passes' outputs.
		grep O_CREAT "$WORK/trace" | grep -v '= -1 ' |
			sed -n "s|.*\"$WORK/\([ABC]\)/gpusort\.[^\"]*\".*|\1|p" | tr -d '\n' > "$WORK/created"
		runs=$(sed -n 's/.*runs \([0-9]*\),.*/\1/p' "$WORK/stats")
		passes=$(sed -n 's/.*merge passes \([0-9]*\),.*/\1/p' "$WORK/stats")
		created=$(cat "$WORK/created")
		echo "# $mode: $runs runs ($passes merge passes) created in turn: $created"
		[ "${passes:-0}" -ge 3 ] && [ "${#created}" -eq "${runs:-0}" ]
		tap_result $? "$mode: every run and every merge pass's output was made in a -T directory (${#created} of $runs)"
		cycle=$(awk -v n="${#created}" 'BEGIN { for (i = 0; i < n; i++) printf "%s", substr("ABC", i % 3 + 1, 1) }')
		[ "${#created}" -ge 6 ] && [ "$created" = "$cycle" ]
		tap_result $? "$mode: one temp file per directory in turn, A B C A B C ..."
		check "$mode: three -T directories: all left empty" \
			test -z "$(ls -A "$WORK/A" "$WORK/B" "$WORK/C" | grep -v ':$' | grep .)"
	done
else
	skip_test "no strace that may trace here: cannot watch where temp files are made"
fi

# Really full directories (a small tmpfs, mounted in a mount namespace of the test's own,
# so nothing outlives it), where root may do so: one that fills up while a run is being
# written reports the run file and the reason; one without a free inode reports, as GNU
# sort does, that no temp file can be made there. Exit 2, the old output kept, the
# directory left empty; with another -T that works beside it, the same.
# in_small_tmpfs OPTIONS COMMAND...: runs COMMAND with $WORK/full a fresh tmpfs mounted
# with OPTIONS; its status in $WORK/status, what is left in the tmpfs in $WORK/left.
in_small_tmpfs() {
	mount_options=$1
	shift
	unshare -m sh -c 'mount -t tmpfs -o "$1" tmpfs "$2/full" || exit 99
		dir=$2
		shift 2
		"$@" >"$dir/stdout" 2>"$dir/stderr"
		echo $? > "$dir/status"
		ls -A "$dir/full" > "$dir/left"' sh "$mount_options" "$WORK" "$@"
}
mkdir "$WORK/full"
if [ "$(id -u)" -eq 0 ] && unshare -m sh -c "mount -t tmpfs -o size=64k tmpfs '$WORK/full'" 2>/dev/null; then
	seq 1 400000 | sed 's/$/ line of text/' > "$WORK/big.txt"
	for mode in text binary; do
		if [ $mode = text ]; then
			spilling="-S 1M $WORK/big.txt"
		else
			spilling="--type=u64 -S 512K $WORK/keys"
		fi
		for dirs in "-T $WORK/full" "-T $WORK/tmp -T $WORK/full"; do
			echo old > "$WORK/old"
			in_small_tmpfs size=256k "$GPUSORT" $dirs $spilling -o "$WORK/old"
			[ "$(cat "$WORK/status")" = 2 ] &&
				grep -qx "gpusort: write failed: $WORK/full/gpusort\.[A-Za-z0-9]\{6\}: No space left on device" "$WORK/stderr"
			tap_result $? "$mode: $dirs filling up: the run file and the reason, exit $(cat "$WORK/status")"
			grep -qx "gpusort: write failed: $WORK/full/gpusort\.[A-Za-z0-9]\{6\}: No space left on device" "$WORK/stderr" ||
				sed 's/^/#   /' "$WORK/stderr"
			check "$mode: $dirs filling up: nothing left, the old output kept" \
				sh -c "test ! -s '$WORK/left' && test -z \"\$(ls -A '$WORK/tmp')\" && test \"\$(cat '$WORK/old')\" = old"
		done
		in_small_tmpfs size=1m,nr_inodes=1 "$GPUSORT" -T "$WORK/full" $spilling -o "$WORK/old"
		printf '%s\n' "gpusort: cannot create temporary file in '$WORK/full': No space left on device" > "$WORK/expected"
		[ "$(cat "$WORK/status")" = 2 ] && cmp -s "$WORK/expected" "$WORK/stderr"
		tap_result $? "$mode: a -T directory without a free inode: GNU's message, exit $(cat "$WORK/status")"
		check "$mode: a -T directory without a free inode: the old output kept" test "$(cat "$WORK/old")" = old
	done
	if sort --version 2>/dev/null | grep -q 'GNU coreutils'; then
		in_small_tmpfs size=1m,nr_inodes=1 sort -T "$WORK/full" -S 100K "$WORK/text"
		sed 's/^sort:/gpusort:/' "$WORK/stderr" > "$WORK/expected"
		in_small_tmpfs size=1m,nr_inodes=1 "$GPUSORT" -T "$WORK/full" -S 100K "$WORK/text"
		cmp -s "$WORK/expected" "$WORK/stderr"
		tap_result $? "as GNU sort: a -T directory without a free inode"
	else
		skip_test "the system sort is not GNU sort: nothing to compare with"
	fi
else
	skip_test "really full -T directories: no tmpfs can be mounted here (needs root and unshare -m)"
fi

# Names quoted as GNU's quoteaf quotes them.
expect_message "a directory name with a single quote" \
	"gpusort: cannot create temporary file in \"$WORK/it's\": No such file or directory" \
	"$GPUSORT" -T "$WORK/it's" -S 100K "$WORK/text"
expect_message "a directory name with a single quote and a dollar" \
	"gpusort: cannot create temporary file in '$WORK/it'\\''s \$x': No such file or directory" \
	"$GPUSORT" -T "$WORK/it's \$x" -S 100K "$WORK/text"
tab=$(printf '\t')
expect_message "a directory name with a tab" \
	"gpusort: cannot create temporary file in '$WORK/a'\$'\\t''b': No such file or directory" \
	"$GPUSORT" -T "$WORK/a${tab}b" -S 100K "$WORK/text"

# GNU sort itself, same inputs: the same message and status.
if sort --version 2>/dev/null | grep -q 'GNU coreutils'; then
	for dir in "$missing" "$WORK/file" "$WORK/it's" "$WORK/a${tab}b"; do
		for args in "-S 100K $WORK/text" "$WORK/small.txt"; do
			sort -T "$dir" $args >/dev/null 2>"$WORK/expected"
			expected_status=$?
			sed -i 's/^sort:/gpusort:/' "$WORK/expected"
			"$GPUSORT" -T "$dir" $args >/dev/null 2>"$WORK/got"
			status=$?
			[ $status -eq $expected_status ] && cmp -s "$WORK/expected" "$WORK/got"
			tap_result $? "as GNU sort: -T '$dir' $args (exit $status, GNU $expected_status)"
		done
	done
else
	skip_test "the system sort is not GNU sort: nothing to compare with"
fi
done_testing
