#!/bin/sh
# -T directories that cannot take a temp file, in GNU sort's words and at GNU's moment:
# "gpusort: cannot create temporary file in 'DIR': REASON", exit 2, only when a temp
# file is needed (an input that fits in memory sorts, whatever -T says). Text and
# binary alike; a missing directory, a non-directory, one the user cannot write, and
# a full one (injected: temp_create:ENOSPC). The old output is kept, no temp is left.
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
