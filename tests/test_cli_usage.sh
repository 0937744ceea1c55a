#!/bin/sh
# SPDX-License-Identifier: MIT
# Usage errors in GNU sort's words: an option missing its argument, an unknown or
# ambiguous option, an argument given to an option that takes none, a bad word for
# --check or --sort; each followed by the "Try" line, exit status 2, nothing on stdout;
# and -c/-C mixed or with -o or two inputs, in GNU's words. --help within 79 columns,
# --version naming the licence.
# Where the system sort is GNU's, gpusort's stderr must be sort's with the name changed.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

HINT="Try 'gpusort --help' for more information."

# usage_is DESCRIPTION EXPECTED_FIRST_LINE ARGS...: exit 2, stdout empty, and stderr
# exactly the line and the hint.
usage_is() {
	desc=$1 line=$2
	shift 2
	"$GPUSORT" "$@" </dev/null >"$WORK/stdout" 2>"$WORK/stderr"
	status=$?
	printf '%s\n%s\n' "$line" "$HINT" >"$WORK/expected"
	[ $status -eq 2 ] && [ ! -s "$WORK/stdout" ] && cmp -s "$WORK/expected" "$WORK/stderr"
	tap_result $? "$desc (exit $status)"
	cmp -s "$WORK/expected" "$WORK/stderr" || { echo "# stderr was:"; sed 's/^/#   /' "$WORK/stderr"; }
}

# Every long option that takes an argument, called without one.
for option in sort key field-separator output buffer-size temporary-directory parallel \
	files0-from type record-size key-offset key-size device gpu-memory algorithm; do
	usage_is "--$option without its argument" \
		"gpusort: option '--$option' requires an argument" "--$option"
done
# Every short option that takes an argument.
for option in k o S t T; do
	usage_is "-$option without its argument" "gpusort: option requires an argument -- '$option'" "-$option"
done
usage_is "unknown short option" "gpusort: invalid option -- 'j'" -j
usage_is "unknown long option" "gpusort: unrecognized option '--foo'" --foo
usage_is "unknown long option with a value" "gpusort: unrecognized option '--foo=3'" --foo=3
usage_is "argument to --help" "gpusort: option '--help' doesn't allow an argument" --help=3
usage_is "argument to an abbreviated --reverse" "gpusort: option '--reverse' doesn't allow an argument" --rev=x
usage_is "argument to --stats" "gpusort: option '--stats' doesn't allow an argument" --stats=1
usage_is "ambiguous abbreviation" "gpusort: option '--s' is ambiguous; possibilities: '--sort' '--stable'" --s
usage_is "ambiguous among gpusort's own options" \
	"gpusort: option '--key-' is ambiguous; possibilities: '--key-offset' '--key-size' '--key-field'" --key-

"$GPUSORT" --check=x </dev/null >"$WORK/stdout" 2>"$WORK/stderr"
status=$?
printf '%s\n' "gpusort: invalid argument 'x' for '--check'" "Valid arguments are:" \
	"  - 'quiet', 'silent'" "  - 'diagnose-first'" "$HINT" >"$WORK/expected"
[ $status -eq 2 ] && cmp -s "$WORK/expected" "$WORK/stderr"
tap_result $? "bad --check word lists the valid ones (exit $status)"
"$GPUSORT" --sort=x </dev/null >"$WORK/stdout" 2>"$WORK/stderr"
status=$?
printf '%s\n' "gpusort: invalid argument 'x' for '--sort'" "Valid arguments are:" \
	"  - 'general-numeric'" "  - 'human-numeric'" "  - 'month'" "  - 'numeric'" "  - 'random'" "  - 'version'" \
	"$HINT" >"$WORK/expected"
[ $status -eq 2 ] && cmp -s "$WORK/expected" "$WORK/stderr"
tap_result $? "bad --sort word lists the valid ones (exit $status)"
"$GPUSORT" --check= </dev/null >"$WORK/stdout" 2>"$WORK/stderr"
status=$?
printf '%s\n' "gpusort: ambiguous argument '' for '--check'" "Valid arguments are:" \
	"  - 'quiet', 'silent'" "  - 'diagnose-first'" "$HINT" >"$WORK/expected"
[ $status -eq 2 ] && cmp -s "$WORK/expected" "$WORK/stderr"
tap_result $? "a --check word that starts several is ambiguous (exit $status)"

# Words abbreviate as GNU's argmatch takes them: the start of one word, or of several
# of one meaning (quiet, silent); the same output and status as sort's.
printf '10\n9\nb\na\nMar\nJan\n1.5e3\n2K\n' >"$WORK/words"
printf 'a\nb\n' >"$WORK/sorted"
if sort --version 2>/dev/null | grep -q 'GNU coreutils'; then
	for args in --sort=g --sort=h --sort=m --sort=n --sort=nu --sort=v --sort=ver; do
		sort $args "$WORK/words" >"$WORK/expected" 2>&1
		"$GPUSORT" $args "$WORK/words" >"$WORK/got" 2>&1
		cmp -s "$WORK/expected" "$WORK/got"
		tap_result $? "$args sorts as sort $args"
	done
	for args in --check=q --check=s --check=d --check=di --check=sil; do
		for input in "$WORK/words" "$WORK/sorted"; do
			sort $args "$input" >"$WORK/expected" 2>&1
			expected=$?
			"$GPUSORT" $args "$input" 2>&1 | sed 's/^gpusort:/sort:/' >"$WORK/got"
			"$GPUSORT" $args "$input" >/dev/null 2>&1
			got=$?
			[ $got -eq $expected ] && cmp -s "$WORK/expected" "$WORK/got"
			tap_result $? "$args on $(basename "$input") as sort's (exit $got, sort $expected)"
		done
	done
else
	skip_test "the system sort is not GNU sort: no abbreviated words to compare"
fi

# The same mistakes against GNU sort itself, for the options both have.
if sort --version 2>/dev/null | grep -q 'GNU coreutils'; then
	for args in --parallel --output --key --buffer-size --temporary-directory --field-separator \
		--files0-from --sort -k -o -S -t -T -j --foo --foo=3 --help=3 --rev=x --check=x; do
		sort $args </dev/null 2>&1 | sed "s/^sort:/gpusort:/; s/'sort --help'/'gpusort --help'/" >"$WORK/expected"
		"$GPUSORT" $args </dev/null >"$WORK/got" 2>&1
		cmp -s "$WORK/expected" "$WORK/got"
		tap_result $? "'$args' is worded as GNU sort words it"
		cmp -s "$WORK/expected" "$WORK/got" || diff "$WORK/expected" "$WORK/got" | sed 's/^/# /'
	done
	# -c and -C may not be mixed, in any spelling, nor take an output or a second input:
	# the message (without the --help pointer) and exit 2 as GNU's, on input in order.
	printf 'a\nb\n' >"$WORK/sorted"
	while read -r args; do
		sort $args <"$WORK/sorted" >"$WORK/expected" 2>&1
		expected=$?
		sed -i "s/^sort:/gpusort:/" "$WORK/expected"
		"$GPUSORT" $args <"$WORK/sorted" >"$WORK/got" 2>&1
		status=$?
		[ $status -eq $expected ] && cmp -s "$WORK/expected" "$WORK/got"
		tap_result $? "'$args' as GNU sort (exit $status, GNU $expected)"
		cmp -s "$WORK/expected" "$WORK/got" || diff "$WORK/expected" "$WORK/got" | sed 's/^/# /'
	done <<-EOF
	-cC
	-Cc
	-c -C
	-C -c
	-C --check
	--check=quiet -c
	--check=silent --check=diagnose-first
	-c --check=quiet
	-s -c -u -C
	-cC --foo
	-c --check
	-C --check=silent
	-c -o $WORK/out
	-C -o $WORK/out
	-Cu -o $WORK/out
	-c $WORK/sorted $WORK/sorted
	-C $WORK/sorted $WORK/sorted
	EOF
else
	skip_test "the system sort is not GNU sort: no wording to compare with"
fi

# --help fits 79 columns as GNU sort's does; --version states the licence (LICENSE).
"$GPUSORT" --help >"$WORK/help" 2>&1
status=$?
LC_ALL=C awk 'length > 79 { printf "#   %d: %s\n", length, $0 }' "$WORK/help" >"$WORK/wide"
[ $status -eq 0 ] && [ -s "$WORK/help" ] && [ ! -s "$WORK/wide" ]
tap_result $? "--help has no line over 79 columns (exit $status, $(wc -l <"$WORK/wide") wider)"
cat "$WORK/wide"
"$GPUSORT" --version >"$WORK/version" 2>&1
status=$?
[ $status -eq 0 ] && grep -qx 'License MIT: <https://opensource.org/licenses/MIT>.' "$WORK/version" &&
	head -1 "$TESTS_SRCDIR/../LICENSE" | grep -q '^MIT License$'
tap_result $? "--version names the MIT licence that LICENSE holds (exit $status)"
done_testing
