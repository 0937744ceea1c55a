#!/bin/sh
# SPDX-License-Identifier: MIT
# Long option abbreviations as GNU sort takes them: every prefix of every GNU sort
# long option means to gpusort what it means to the system sort (same output, same
# message, same exit status), although gpusort's own options share many prefixes
# (--p: --parallel beside --progress; --com, --compress-p: --compress-program, whose
# PROG never runs on an input that fits in memory); and gpusort's own options still
# take every abbreviation GNU's do not claim.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

if ! sort --version 2>/dev/null | grep -q 'GNU coreutils'; then
	skip_test "the system sort is not GNU sort: no abbreviations to compare with"
	done_testing
fi

gnu_options="ignore-leading-blanks check compress-program debug dictionary-order ignore-case
files0-from general-numeric-sort ignore-nonprinting key merge month-sort numeric-sort
human-numeric-sort version-sort random-sort random-source sort output reverse stable batch-size
buffer-size field-separator temporary-directory unique zero-terminated parallel help version"

printf 'b 2\na 10\nc 1\na 10\n' >"$WORK/input"
printf '%s\0' "$WORK/input" "$WORK/input" >"$WORK/names"

# A value each option that takes one can use on the input above.
value_of() {
	case $1 in
	key) echo 2,2n ;; output) echo "$WORK/output" ;; buffer-size) echo 1M ;;
	field-separator) echo ' ' ;; temporary-directory) echo "$WORK" ;; parallel) echo 1 ;;
	files0-from) echo "$WORK/names" ;; sort) echo numeric ;; batch-size) echo 2 ;;
	check) echo quiet ;; *) echo x ;;
	esac
}

# candidates ABBREVIATION: the GNU options it names, $count of them (itself when it is
# one in full, else all it starts), the last in $names. No subshell: each case's
# processes are the two sorts and one awk.
candidates() {
	count=0 names=
	for candidate in $gnu_options; do
		[ "$candidate" = "$1" ] && { count=1 names=$candidate; return; }
	done
	for candidate in $gnu_options; do
		case $candidate in "$1"*) count=$((count + 1)) names=$candidate ;; esac
	done
}

# run TAG PROGRAM ARG...: the program's stdout and stderr in $WORK/TAG.out and .err,
# its exit status in $TAG_status, and whether it wrote the -o file in $TAG_file (moved
# to $WORK/TAG.file).
run() {
	tag=$1
	shift
	[ -e "$WORK/output" ] && rm -f "$WORK/output"
	"$@" <"$WORK/input" >"$WORK/$tag.out" 2>"$WORK/$tag.err"
	eval "${tag}_status=$?"
	if [ -e "$WORK/output" ]; then
		mv -f "$WORK/output" "$WORK/$tag.file"
		eval "${tag}_file=1"
	else
		eval "${tag}_file=0"
	fi
}

# alike: the two runs gave the same stdout, stderr (sort's name made gpusort's), -o
# file and exit status, byte for byte; if not, both are printed as TAP comments.
alike() {
	awk -v w="$WORK" -v es="$expected_status" -v gs="$got_status" -v ef="$expected_file" \
		-v gf="$got_file" '
	function slurp(name,   text) { text = ""; getline text <name; close(name); return text }
	function render(tag, file, status, gnu,   err) {
		err = slurp(w "/" tag ".err")
		if (gnu) {
			err = "\n" err
			gsub("\nsort:", "\ngpusort:", err)
			gsub("\047sort --help\047", "\047gpusort --help\047", err)
			err = substr(err, 2)
		}
		return slurp(w "/" tag ".out") err (file ? "-- output file:\n" slurp(w "/" tag ".file") : "") \
			"-- exit " status "\n"
	}
	function show(label, text,   lines, n, i) {
		n = split(text, lines, "\n")
		print "# " label ":"
		for (i = 1; i <= n && i <= 10; i++)
			print "#   " lines[i]
	}
	BEGIN {
		RS = "\001\002"  # never in the outputs: a file is one record, bytes as they are
		expected = render("expected", ef, es, 1)
		got = render("got", gf, gs, 0)
		if (expected == got)
			exit 0
		show("sort", expected)
		show("gpusort", got)
		exit 1
	}'
}

# compare ARG...: gpusort with the ARGs does what sort does.
compare() {
	run expected sort "$@"
	run got "$GPUSORT" "$@"
	alike >"$WORK/alike"
	tap_result $? "'$*' as GNU sort takes it"
	while IFS= read -r line; do echo "$line"; done <"$WORK/alike"
}

# compare_lines ARG...: a random order (--random-sort) holds the lines sort's does, in
# another order, with sort's message and status.
compare_lines() {
	sort "$@" <"$WORK/input" 2>&1 | LC_ALL=C sort >"$WORK/expected"
	"$GPUSORT" "$@" <"$WORK/input" 2>&1 | sed "s/^gpusort:/sort:/" | LC_ALL=C sort >"$WORK/got"
	cmp -s "$WORK/expected" "$WORK/got"
	tap_result $? "'$*' as GNU sort takes it (its lines, in a random order)"
}

# own_first_line ARG FULL: --help and --version print gpusort's own text, not GNU's.
own_first_line() {
	"$GPUSORT" "$2" 2>&1 | head -1 >"$WORK/expected"
	"$GPUSORT" "$1" 2>&1 | head -1 >"$WORK/got"
	cmp -s "$WORK/expected" "$WORK/got"
	tap_result $? "'$1' is '$2'"
}

for option in $gnu_options; do
	prefix= rest=$option
	while [ -n "$rest" ]; do
		prefix=$prefix${rest%"${rest#?}"}
		rest=${rest#?}
		candidates "$prefix"
		if [ $count -gt 1 ]; then
			compare "--$prefix" # ambiguous to GNU: the same possibilities, GNU's only
			compare "--$prefix=x"
			continue
		fi
		case $names in
		help | version) own_first_line "--$prefix" "--$names" ;;
		random-sort) compare_lines "--$prefix"; compare "--$prefix=$(value_of "$names")" ;;
		*) compare "--$prefix"; compare "--$prefix=$(value_of "$names")" ;;
		esac
	done
done

# gpusort's own options under their shortest abbreviation that GNU does not claim.
same_as_full() {
	"$GPUSORT" $1 >"$WORK/expected" 2>/dev/null
	expected=$?
	"$GPUSORT" $2 >"$WORK/got" 2>/dev/null
	status=$?
	[ $status -eq $expected ] && cmp -s "$WORK/expected" "$WORK/got"
	tap_result $? "'$2' is gpusort's '$1' (exit $status)"
}
printf '\003\000\000\000\001\000\000\000\002\000\000\000' >"$WORK/records"
same_as_full "--stats $WORK/input" "--stat $WORK/input"
same_as_full "--progress $WORK/input" "--pr $WORK/input"
same_as_full "--no-verify $WORK/input" "--no $WORK/input"
same_as_full "--verbose $WORK/input" "--verb $WORK/input"
same_as_full "--device=cpu $WORK/input" "--dev=cpu $WORK/input"
same_as_full "--gpu-memory=1M $WORK/input" "--gp=1M $WORK/input"
same_as_full "--algorithm=quick $WORK/input" "--a=quick $WORK/input"
same_as_full "--type=u32 $WORK/records" "--ty=u32 $WORK/records"
same_as_full "--record-size=4 $WORK/records" "--rec=4 $WORK/records"
same_as_full "--key-size=2 $WORK/records" "--key-s=2 $WORK/records"
same_as_full "--record-size=4 --key-offset=2 $WORK/records" "--record-size=4 --key-o=2 $WORK/records"
# ... and a long option's argument that looks like an option is left to it.
compare --field-separator --p
compare -t --s
done_testing
