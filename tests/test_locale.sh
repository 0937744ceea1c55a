#!/bin/sh
# SPDX-License-Identifier: MIT
# The user's locale: gpusort against the system `sort` in en_US.UTF-8, de_DE.UTF-8 and
# fr_FR.UTF-8 (comma decimal point) over tests/locale_inputs.py's lines, one TAP case
# per locale, input and options (collation; -n -h -g numbers with the locale's decimal
# point and thousands separator; -M month names): stdout and exit status must be
# identical. Then which
# variable selects the order (LC_ALL over LC_COLLATE over LANG), and that C stays byte
# order. A locale that is not installed skips its cases, saying so.
: "${GPUSORT:?GPUSORT must name the built gpusort}"
srcdir=${TESTS_SRCDIR:-$(dirname "$0")}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-locale.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
python3 "$srcdir/locale_inputs.py" "$tmp" || { echo "Bail out! cannot generate inputs"; exit 99; }
cd "$tmp" || exit 99
unset LANGUAGE LC_ALL LC_COLLATE LC_CTYPE LC_NUMERIC LC_TIME LC_MESSAGES
tab=$(printf '\t')

# installed LOCALE: `locale -a` spells en_US.UTF-8 as en_US.utf8.
installed() {
	want=$(printf '%s' "$1" | tr 'A-Z' 'a-z' | tr -d '-')
	locale -a 2>/dev/null | tr 'A-Z' 'a-z' | tr -d '-' | grep -qx "$want"
}

count=0 failed=0
result() { # STATUS DESCRIPTION
	count=$((count + 1))
	if [ "$1" -eq 0 ]; then echo "ok $count - $2"; else echo "not ok $count - $2"; failed=1; fi
}
skip() { count=$((count + 1)); echo "ok $count # SKIP $1"; }

# differ LOCALE INPUT OPTIONS...: gpusort and sort on INPUT in LOCALE, same bytes and status.
differ() {
	loc=$1 input=$2
	shift 2
	LC_ALL=$loc sort "$@" "$input" > want 2> want.err; want_status=$?
	LC_ALL=$loc "$GPUSORT" "$@" "$input" > got 2> got.err; got_status=$?
	[ "$want_status" -eq "$got_status" ] && cmp -s want got
	status=$?
	result $status "$loc $input $*"
	if [ $status -ne 0 ]; then
		echo "# exit: sort $want_status, gpusort $got_status"
		diff want got | head -10 | sed 's/^/# /'
		sed 's/^/# gpusort: /' got.err | head -3
	fi
}

# input | options (shell words; TAB is a tab)
cat > cases <<'CASES'
mixed|
mixed|-f
mixed|-d
mixed|-i
mixed|-u
mixed|-fu
mixed|-r
mixed|-s -k1,1
mixed|-k2,2
mixed|-k2,2f -k1,1r
mixed|-b -k2
mixed|-bd -k2,2
mixed|-t - -k2,2
mixed|-t TAB -k2
mixed|-k1.2,1.4
mixed|-z
ties|
ties|-u
ties|-f
ties|-fu
ties|-du
ties|-iu
ties|-s -f
ties|-s -k1,1f
ties|-u -k1,1f
ties|-r -u
longties|
longties|-s -k1,1
longties|-u -k1,1
longties|-r -t TAB -k1,1 -k2,2
midties|
midties|-r
midties|-u
midties|-s -k1,1
midties|-k2,2
midties|-k1,1r -k2,2
midties|-b -k2
midties|-t - -k1,1
spill|-S 1M
spill|-S 1M -u
spill|-S 1M -f -k2
numbers|-n
numbers|-nr
numbers|-nu
numbers|-ns
numbers|-k1,1n -k2,2
numbers|-h
numbers|-hu
numbers|-hr
numbers|-g
numbers|-gu
numbers|-fn
numbers|-b -k1,1g
months|-M
months|-Mr
months|-Mu
months|-Ms
months|-fM
months|-bM -k1,1
months|-M -k1.2
CASES

for loc in en_US.UTF-8 de_DE.UTF-8 fr_FR.UTF-8; do
	if ! installed "$loc"; then
		skip "locale $loc is not installed (localedef -i ${loc%%.*} -f UTF-8 $loc)"
		continue
	fi
	while IFS='|' read -r input options; do
		# shellcheck disable=SC2086  # options are shell words
		set -- $options
		for word; do shift; [ "$word" = TAB ] && word=$tab; set -- "$@" "$word"; done
		differ "$loc" "$input" "$@"
	done < cases
	# -m: inputs sorted by the system sort in the same locale, merged by both
	split -n l/3 mixed part. &&
	for part in part.aa part.ab part.ac; do LC_ALL=$loc sort "$part" > "$part.s"; done
	LC_ALL=$loc sort -m part.aa.s part.ab.s part.ac.s > want
	LC_ALL=$loc "$GPUSORT" -m part.aa.s part.ab.s part.ac.s > got
	cmp -s want got; result $? "$loc -m of three sorted parts"
	# -c: sorted in the locale is in order; byte order is not
	LC_ALL=$loc sort mixed > sorted
	LC_ALL=$loc "$GPUSORT" -c sorted; result $? "$loc -c of sort's output: in order"
	LC_ALL=C sort mixed > bytes
	LC_ALL=$loc "$GPUSORT" -c bytes 2>/dev/null; [ $? -eq 1 ]; result $? "$loc -c of byte order: disorder"
done

# The variables that choose: LC_ALL over LC_COLLATE over LANG, as for sort; C is bytes.
if installed en_US.UTF-8; then
	LC_ALL=C sort mixed > bytes
	LC_ALL=en_US.UTF-8 sort mixed > collated
	! cmp -s bytes collated; result $? "the inputs tell collation from byte order"
	LC_ALL=C "$GPUSORT" mixed > got; cmp -s bytes got; result $? "LC_ALL=C: byte order"
	LC_ALL=POSIX "$GPUSORT" mixed > got; cmp -s bytes got; result $? "LC_ALL=POSIX: byte order"
	LANG=en_US.UTF-8 "$GPUSORT" mixed > got; cmp -s collated got; result $? "LANG=en_US.UTF-8 collates"
	LANG=en_US.UTF-8 LC_COLLATE=C "$GPUSORT" mixed > got; cmp -s bytes got
	result $? "LC_COLLATE=C over LANG: byte order"
	LANG=C LC_COLLATE=en_US.UTF-8 "$GPUSORT" mixed > got; cmp -s collated got
	result $? "LC_COLLATE=en_US.UTF-8 over LANG=C collates"
	LC_ALL=C LC_COLLATE=en_US.UTF-8 "$GPUSORT" mixed > got; cmp -s bytes got
	result $? "LC_ALL=C over LC_COLLATE: byte order"
else
	skip "locale en_US.UTF-8 is not installed"
fi
# C.UTF-8 takes the byte path (glibc's collation there is strcmp): also on bytes that
# are not UTF-8, NULs and empty lines, whole lines and keys
printf 'b\n\377x\n\200\na\0b\na\n\n\303\251\nB\n\376\na\0a\n\0\n' > bytes.in
cat mixed >> bytes.in
for options in "" -u -r "-k2,2" "-f" "-d"; do
	# shellcheck disable=SC2086
	LC_ALL=C.UTF-8 sort $options bytes.in > want; LC_ALL=C.UTF-8 "$GPUSORT" $options bytes.in > got
	cmp -s want got; result $? "C.UTF-8 as sort: $options"
done
echo "1..$count"
exit $failed
