#!/bin/sh
# SPDX-License-Identifier: MIT
# File names in messages are quoted as GNU sort quotes them (gnulib's quotef for a named
# file, quoteaf for a temp directory): left bare when a shell would read them as they
# are, else 'single quoted', "double quoted" when they hold a single quote and nothing
# else special, unprintable bytes as $'\n' or $'\303' groups, and GNU's quirks where a
# single quote comes before such a byte. Compared with the system sort, in C and (when
# installed) en_US.UTF-8, for an input that cannot be read, -c on a missing file,
# --files0-from with a missing list, and a -T directory that does not exist.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

ORACLE=${GPUSORT_ORACLE:-sort}
if ! "$ORACLE" --version 2>/dev/null | grep -q 'GNU coreutils'; then
	skip_test "the system sort is not GNU sort: nothing to compare the quoting with"
	done_testing
	exit 0
fi
cd "$WORK" || exit 99
seq 20000 >big

# names: one per line of a printf format (\n and bytes as escapes), chosen around every
# rule: safe punctuation, each shell special, leading and inner # ~, lone and paired
# braces, a colon, single and double quotes alone and with other specials, control
# characters alone, in runs and at either end, bytes that are not UTF-8, a printable
# and an unprintable (U+200B) multibyte character, and the empty name.
names='a:b
#x
x#
~
a~
{
{}
a{
@x
a%%b+,c]d_e-f.g/h
a\047b
a"b
a\n\nb
a\tb
\303\251
\377
a?b
\177
a\047b c
a\047b$c
a\047b!
a\047b\n
a\047b:c
\047
a\047b\\\\c
a\047b?
a\047b#
a\047b@
a\047b\303\251
a\047b{
a\047b~
a\047b=
~\047a
#\047a
{\047
\n
\na
\047\n
a\nb\047c
a b\nc
a\047b\047c
a\xffb
\342\200\213
a\001
plain/file.txt
dir with spaces/f
*
[x]
a;b
a|b
a&b
a(b)
a<b>c
a`b
a^b
a=b
a\\\\b'

printf '%s\n' "$names" >names
locales=C
if locale -a 2>/dev/null | grep -qix 'en_US.utf-*8'; then
	locales="C en_US.UTF-8"
else
	skip_test "en_US.UTF-8: not installed (tests/generate_locales.sh makes it)"
fi

# compare LABEL ARGS...: the first line of stderr and the status of both sorts, with
# the program's name taken off.
compare() {
	what=$1
	shift
	"$ORACLE" "$@" </dev/null >/dev/null 2>gnu.err
	gnu_status=$?
	"$GPUSORT" "$@" </dev/null >/dev/null 2>ours.err
	ours_status=$?
	gnu=$(head -n 1 gnu.err | sed 's/^[^:]*: //')
	ours=$(head -n 1 ours.err | sed 's/^[^:]*: //')
	[ "$gnu" = "$ours" ] && [ $gnu_status = $ours_status ]
	tap_result $? "$what"
	if [ "$gnu" != "$ours" ] || [ $gnu_status != $ours_status ]; then
		echo "#   the name's printf format: $format"
		echo "#   sort ($gnu_status): $gnu"
		echo "#   gpusort ($ours_status): $ours"
	fi
}

for locale_name in $locales; do
	LC_ALL=$locale_name
	export LC_ALL
	number=0
	while IFS= read -r format; do
		number=$((number + 1))
		name=$(printf "$format"; printf x)
		name=${name%x}
		label="name $number [$locale_name]"
		compare "$label: cannot read" -- "$name"
		compare "$label: -c, open failed" -c -- "$name"
		compare "$label: --files0-from, open failed" --files0-from="$name"
		case $format in */*) continue ;; esac
		compare "$label: -T, cannot create temporary file" -S 1k -T "/nonexistent/$name" big
	done <names
done
done_testing
