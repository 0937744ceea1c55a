#!/bin/sh
# SPDX-License-Identifier: MIT
# The cases of GNU coreutils' own sort tests (tests/sort/sort.pl, sort-merge.pl,
# sort-files0-from.pl and the sort-*.sh scripts), restated as a table, plus cases for
# what those leave out, each run through gpusort and through the system sort (GNU
# coreutils, the oracle) in the C locale and in en_US.UTF-8. A case passes when standard
# output, standard error (the program's name aside), the exit status and every file the
# case leaves behind are the same, and gpusort leaves no temp file. Expected outputs are
# never written down here: the system sort says what they are.
# Left out: --compress-program (test_compress_program.sh has it), cases whose output -R's salt
# decides and --debug (test_random_sort.sh and test_debug.sh have them), and the tests
# that only check GNU's internals (valgrind, thread and buffer tricks).
# By hand: GNU_CASES_ONLY='NAME ...' runs only those cases; GPUSORT_ORACLE names
# another GNU sort to compare with.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

ORACLE=${GPUSORT_ORACLE:-sort}
"$ORACLE" --version 2>/dev/null | grep -q 'GNU coreutils' || {
	echo "1..0 # SKIP the system sort is not GNU sort"
	exit 0
}

# --- inputs too long for a table cell -------------------------------------------
# Input generators are called by name from the table ("!NAME ARGS"), in the case's
# directory and in the locale being tested.

# The table's cells are split at '|': what needs a pipe is a function here.

# shuffled CMD...: CMD's lines in a fixed random order (the input's order must not
# help either sort)
shuffled() {
	"$@" | awk 'BEGIN { srand(7) } { printf "%.9f\t%s\n", rand(), $0 }' | LC_ALL=C sort -k1,1 | cut -f2-
}

# blanks_to_nul CMD...: CMD's output with every blank made a NUL
blanks_to_nul() { "$@" | tr ' ' '\000'; }

# repeat COUNT LINE; line_of LENGTH CHARACTER
repeat() { i=0; while [ $i -lt "$1" ]; do printf '%s\n' "$2"; i=$((i + 1)); done; }
line_of() { printf "%0${1}d\n" 0 | tr 0 "$2"; }

# For setups: exit 77 (the case is skipped) without the locale.
require_locale() { locale -a 2>/dev/null | grep -qix "$1.utf-*8" || exit 77; }

# Cases about permissions, which root has all of: as root both programs run as nobody
# (setpriv; without it the case is skipped), in a directory anyone may write.
as_user_setup() {
	[ "$(id -u)" = 0 ] || return 0
	command -v setpriv >/dev/null 2>&1 || exit 77
	chmod 777 . && chmod 755 .. ../..
}
as_user() { [ "$(id -u)" != 0 ] || runner="setpriv --reuid=65534 --regid=65534 --clear-groups"; }

# version strings of package files and of dotted numbers with leading zeros
version_names() {
	cat <<'EOF'
gcc-c++-10.fc9.tar.gz
gcc-c++-10.8.12-0.7rc2.fc9.tar.bz2
glibc-2-0.1.beta1.fc10.rpm
glibc-common-5-0.2.beta2.fc9.ebuild
glibc-common-5-0.2b.deb
glibc-common-11b.ebuild
glibc-common-11-0.6rc2.ebuild
libstdc++-0.5.8.11-0.7rc2.fc10.tar.gz
libstdc++-4a.fc8.tar.gz
libstdc++-4.10.4.20040204svn.rpm
libstdc++-devel-3.fc8.ebuild
libstdc++-devel-3a.fc9.tar.gz
libstdc++-devel-8.fc8.deb
libstdc++-devel-8.6.2-0.4b.fc8
nss_ldap-1-0.2b.fc9.tar.bz2
nss_ldap-1-0.6rc2.fc8.tar.gz
nss_ldap-1.0-0.1a.tar.gz
nss_ldap-10beta1.fc8.tar.gz
nss_ldap-10.11.8.6.20040204cvs.fc10.ebuild
EOF
	for major in 0 1 10 2 20 3 30 4 40 5 50 6 60 7 70 8 80 9 90 04; do
		echo "string start 5.$major.0 end of str"
	done
}

# the limits of float, double and long double, both signs, and zero
float_limits() {
	for value in 1.189731e+4932 1.797693e+308 3.402823e+38 1.175494e-38 2.225074e-308 \
		3.362103e-4932; do
		echo "$value"
		echo "-$value"
	done
	echo 0
}

# numbers at the edges of a 64-bit integer, of /200 and /320 of it, and between
discriminator_numbers() {
	python3 -c '
m = 2**64 - 1
for w in (m // 200, m // 320):
    for s in ("", "-"):
        print(f"{s}{w}\n{s}{w}.5\n{s}{w}.51\n{s}{w}0\n{s}{w}0.0\n{s}{w}0.1")
for s in ("", "-"):
    print(f"{s}{m}\n{s}{m + 1}")
for i in range(-1000, 1001, 7):
    print(f"{i / 100:.3f}")
'
}

# pairs COUNT: "i,i%7" lines (keys with many duplicates)
pairs() { seq "$1" | awk '{ print $1 "," $1 % 7 }'; }

# lines long enough to overrun a short key prefix, differing only at their end
long_prefix_lines() { seq -f "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa%5.0f" "$1"; }

# the locale's month names, numbered in calendar order
month_names() { locale "$1" | tr ';' '\n' | nl; }

# --- the cases -----------------------------------------------------------------
# name|options|input|setup|prelude
#   options  shell words, evaluated in the case's directory (globs and quotes work)
#   input    printf format of the input; "!CMD" for the output of CMD; empty for none.
#            The case runs twice: input on a pipe, and as an operand file 'input'
#            after the options; "<" first: only on standard input.
#   setup    shell commands that make the case's files; exit 77 skips the case
#   prelude  shell commands in the program's own subshell (ulimit, exports); $side
#            says whose run it is (gnu or ours); $runner, if set, runs the program
cases() {
	cat <<'CASES'
# sort.pl: -n with a fraction but no integer part, and garbage after the number
n1|-n|.01\n0\n
n2|-n|.02\n.01\n
n3|-n|.02\n.00\n
n4|-n|.02\n.000\n
n5|-n|.021\n.029\n
n6|-n|.02\n.0*\n
n7|-n|.02\n.*\n
n8a|-s -n -k1,1|.0a\n.0b\n
n8b|-s -n -k1,1|.0b\n.0a\n
n9a|-s -n -k1,1|.000a\n.000b\n
n9b|-s -n -k1,1|.000b\n.000a\n
n10a|-s -n -k1,1|.00a\n.000b\n
n10b|-s -n -k1,1|.00b\n.000a\n
n11a|-s -n -k1,1|.01a\n.010\n
n11b|-s -n -k1,1|.010\n.01a\n
# -h: every SI suffix, both signs; a suffix beats the number; decimals; mixed keys
h1|-h|1Q\n1R\n1Y\n1Z\n1E\n1P\n1T\n1G\n1M\n1K\n02\n1\nY\n-1k\n-1M\n-1G\n-1T\n-1P\n-1E\n-1Z\n-1Y\n-1Q\n-1R\n
h2|-h|1M\n-2G\n-3K
h3|-k 2,2h -k 1,1|a 1G\nb 1023M\n
h4|-h|1.E\n2.M\n
h5|-h|1..2E\n2..2M\n
h6|-h|1GiB\n1030MiB\n
h7|-hn|
h8|-n -k2,2h|1 1E\n2 2M\n
h9|-h -k1,1 -k2,2|1M 1Mi\n1M 1Mi\n
h10|-h -k1,1 -k2,2|1M 2M\n2M 1Mi\n
# -c and -C, alone and with -u and keys
01a||C\nA\nB\n
02a|-c|A\nB\nC\n
02b|-c|A\nC\nB\n
02c|-c -k1,1|a\na b\n
02d|-C|A\nB\nC\n
02e|-C|A\nC\nB\n
02m|-cu|A\nA\n
02n|-cu|A\nB\n
02o|-cu|A\nB\nB\n
02p|-cu|B\nA\nB\n
02q|-c -k 1,1fR|ABC\nABc\nAbC\nAbc\naBC\naBc\nabC\nabc\n
02r|-c -k 1,1fV|ABC\nABc\nAbC\nAbc\naBC\naBc\nabC\nabc\n
02s|-c -k 1,1dfR|.ABC\n.ABc.\nA.bC\nA.bc.\naB.C\naB.c.\nabC.\nabc..\n
# -k: fields, several keys, and the errors of a bad KEYDEF
03a|-k1|B\nA\n
03b|-k1,1|B\nA\n
03c|-k1 -k2|A b\nA a\n
03d|-k0|
03e|-k1.0|
03f|-k1.1,-k0|
03g|-k1.1,1.0|
03h|-k1.1,1|
03i|-k1,1|
04a|-nc|2\n11\n
04b|-n|11\n2\n
04c|-k1n|11\n2\n
04d|-k1|11\n2\n
04e|-k2|ignored B\nz-ig A\n
05a|-k1,2|A B\nA A\n
05b|-k1,2|A B A\nA A Z\n
05c|-k1 -k2|A B A\nA A Z\n
05d|-k2,2|A B A\nA A Z\n
05e|-k2,2|A B Z\nA A A\n
06a|-k 1,2|A B\nA A\n
06b|-k 1,2|A B A\nA A Z\n
06c|-k 1 -k 2|A B A\nA A Z\n
06d|-k 2,2|A B A\nA A Z\n
06e|-k 2,2|A B Z\nA A A\n
07a|-k 2,3|9 a b\n7 a a\n
07b|-k 2,3|a a b\nz a a\n
07c|-k 2,3|y k b\nz k a\n
07d|+1 -3|y k b\nz k a\n
07e|-k 2,3.0|a a b\nz a a\n
07f|-n -k1.3,1.1|a 2\nb 1\n
07g|-n -k2.2,1.2|aa 2\nbb 1\n
07h|-k1.3nb,1.3|  a 2\n  b 1\n
07i|-s +0 -1|a c\na b\n
07j|-s +0 -1.0|a c\na b\n
07k|-s +0 -1.1|a c\na b\n
07l|-s +0 -1.2|a c\na b\n
07m|-s +0 -1.1b|a c\na b\n
08a|-k 2.,3|
08b|-k 2,|
# -g against -n on exponents
09a|-g|1e2\n2e1\n
09b|-n|1e2\n2e1\n
09c|-n|2e1\n1e2\n
09d|-k2g|a 1e2\nb 2e1\n
# character positions with -t, without -t (the blank belongs to the field), with -b
10a|-t : -k 2.2,2.2|:ba\n:ab\n
10b|-t : +1.1 -1.2|:ba\n:ab\n
10c|-t : -k 2.2,2.2|:ab\n:ba\n
10d|-t : +1.1 -1.2|:ab\n:ba\n
10a0|-k 2.3,2.3|z ba\nz ab\n
10a1|-k 1.2,1.2|ba\nab\n
10a2|-b -k 2.2,2.2|z ba\nz ab\n
10e|-k 1.2,1.2|ab\nba\n
10f|-t : -k 1.3,1.3|:ab\n:ba\n
10g|-k 1.4,1.4|a ab\nb ba\n
# b on a key's end, with -t
11a|-t: -k1,1b -k2,2|a\t:a\na :b\n
11b|-t: -k1,1b -k2,2|a :b\na\t:a\n
11c|-t: -k2,2b -k3,3|z:a\t:a\na :b\n
11d|-t: -k2,2b -k3,3|z:a :b\na\t:a\n
# -n on '-' alone and on letters; the obsolete +POS with an ordering letter
12a|-n -t: +1|a:1\nb:-\n
12b|-n -t: +1|b:-\na:1\n
12c|-n -t: +1|a:1\nb:X\n
12d|-n -t: +1|b:X\na:1\n
13a|+0.1n|axx\nb-1\n
13b|+0.1n|b-1\naxx\n
# -d, -f and -i with -u
14a|-d -u|mal\nmal-\nmala\n
14b|-f -d -u|mal\nmal-\nmala\n
15a|-i -u|a\na\001\n
15b|-i -u|a\n\001a\n
15c|-i -u|a\001\na\n
15d|-i -u|\001a\na\n
15e|-i -u|a\n\001\001\001\001\001a\001\001\001\001\n
# -u with tiny buffers and one thread
unique-1|--p=1 -S32b -u|!repeat 11 7; echo 1
unique-key-10|-u -k2,2 --p=1 -S32b|!repeat 10 'a 7'; echo 'b 1'
unique-key-11|-u -k2,2 --p=1 -S32b|!repeat 11 'a 7'; echo 'b 1'
unique-free-mem-read|-u --p=1 -S32b|!echo a; line_of 900 b
# -f on bytes above 127
16a|-f|\303\251minence\n\303\274berhaupt\n's-Gravenhage\na\303\253roclub\nAag\naagtappels\n
17|-c|xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n
# -n does not imply -b; b on a key's start or end; a global -b and a key's own options
18a|-k1.1,1.2n| 901\n100\n
18b|-b -k1.1,1.2n| 901\n100\n
18c|-k1.1,1.2nb| 901\n100\n
18d|-k1.1b,1.2n| 901\n100\n
18e|-nb -k1.1,1.2| 901\n100\n
18f|-k1,1b|a  y\na z\n
18g|-k1b,1|a  y\na z\n
19a|+0 +1nr|b 2\nb 1\nb 3\n
19b|-k1,1 -k2nr|b 2\nb 1\nb 3\n
20a||_________U__free\n_________U__malloc\n_________U__abort\n_________U__memcpy\n_________U__memset\n_________U_dyld_stub_binding_helper\n_________U__malloc\n_________U___iob\n_________U__abort\n_________U__fprintf\n
# -f puts 'a' with 'A', before '_'
21a||A\na\n_\n
21b|-f|A\na\n_\n
21c|-f|a\nA\n_\n
21d|-f|_\na\nA\n
21e|-f|a\n_\nA\n
21f|-fs|A\na\n_\n
21g|-fu|a\n_\n
22a|-k 2,2fd -k 1,1r|3 b\n4 B\n
22b|-k 2,2d  -k 1,1r|3 b\n4 b\n
23|-s -k1,1 -t/|a b/x\na-b-c/x\n
# files that are not there, outputs that cannot be made
no-file1|no-file|
o-no-file1|-o no-file no-file|
create-empty|-o no/such/file /dev/null|
neg-nls|-n|-1\n-9\n
nul-nls||\000b\n\000a\n
use-nl||\n\t\n
o2|-o x -o y|
o3|-o x -o x|
o4|-o x -o ./x|
# options that exclude each other
incompat1|-in|
incompat2|-nR|
incompat3|-dfgiMnR|
incompat3-no-R|-dfgiMn|
incompat7|--sort=random -n|
incompat4|-c -o /dev/null|
incompat5|-C -o /dev/null|
incompat6|-cC|
incompat-gh|-k1,1g -k2,2h|
incompat-Mn|--sort=month -n|
nul-tab|-k2,2 -t '\0'|a\000z\001\nb\000y\002\n
bigfield1|-k 18446744073709551616|2\n1\n
bigfield2|-k 999999999999999999999999999999|2\n1\n
obs-inval|+1x||:|export _POSIX2_VERSION=199209
realloc-buf|-S1|!line_of 4000 a
realloc-buf-2|-S1|aaaaa\n
sort-numeric|--sort=numeric|.01\n0\n
sort-gennum|--sort=general-numeric|1e2\n2e1\n
# -m whose output is one of its inputs
output-is-input|-m -o f f||printf 'a\n' > f
output-is-input-2|-m -o f f g h||printf 'a\n' > f; printf 'b\n' > g; printf 'c\n' > h
output-is-input-3|-m -o f g h f||printf 'a\n' > g; printf 'b\n' > h; printf 'c\n' > f
# -z
zero-1|-z|2\0001\000
zero-2|-z -k2,2|1\n2\0002\n1\000
zero-3|-zb -k2,2|1\n\n2\0002\n1\000
invalid-parallel-1|--parallel -1|
invalid-parallel-2|--parallel a|
invalid-parallel-0|--parallel=0|
# sort-merge.pl: -m of empty files; --batch-size's checks and temp files
m1|-m e1 e2 e3 foo||: > e1; : > e2; : > e3; printf 'foo\n' > foo
nmerge-0|-m --batch-size=0 e1 e2 e3 foo||: > e1; : > e2; : > e3; printf 'foo\n' > foo
nmerge-1|-m --batch-size=1 e1 e2 e3 foo||: > e1; : > e2; : > e3; printf 'foo\n' > foo
nmerge-neg|-m --batch-size=-1 e1 e2 e3 foo||: > e1; : > e2; : > e3; printf 'foo\n' > foo
nmerge-nan|-m --batch-size=a e1 e2 e3 foo||: > e1; : > e2; : > e3; printf 'foo\n' > foo
nmerge-big|-m --batch-size=18446744073709551616 e1 e2 e3 foo||: > e1; : > e2; : > e3; printf 'foo\n' > foo
nmerge-suffix|-m --batch-size=5x e1 e2 e3 foo||: > e1; : > e2; : > e3; printf 'foo\n' > foo
nmerge-yes|-m --batch-size=4 -Tdoes/not/exist e1 e2 e3 foo||: > e1; : > e2; : > e3; printf 'foo\n' > foo
nmerge-no|-m --batch-size=2 -Tdoes/not/exist e1 e2 e3 foo||: > e1; : > e2; : > e3; printf 'foo\n' > foo
batch-size|--batch-size=16 -Tdoes/not/exist|!repeat 1024 aaa
# sort-files0-from.pl
f-extra-arg|--files0-from=- no-such|<a
f-missing|--files0-from=missing|
f-minus-in-stdin|--files0-from=-|<-
f-empty|--files0-from=empty||: > empty
f-empty-nonreg|--files0-from=/dev/null|
f-nul-1|--files0-from=-|<\000
f-nul-2|--files0-from=-|<\000\000
f-1|--files0-from=-|<g|printf a > g
f-1a|--files0-from=-|<g\000|printf a > g
f-2|--files0-from=-|<g\000g|printf a > g
f-2a|--files0-from=-|<g\000g\000|printf a > g
f-zero-len|--files0-from=-|<\000g\000|: > g
f-list-file|--files0-from=list -r||printf 'b\na\n' > g; printf 'c\n' > h; printf 'g\000h\000' > list
f-missing-listed|--files0-from=list||printf 'a\n' > g; printf 'g\000nope\000' > list
# sort-month.sh: the locale's month abbreviations (and full names) in random order
month-abbreviations|-k2,2M|!shuffled month_names abmon
month-names|-k2,2M|!shuffled month_names mon
# sort-version.sh: -V on package names and dotted numbers; NUL inside a line
version|--stable --sort=version|!version_names
version-nul|--stable --sort=version|!blanks_to_nul version_names
# sort-continue.sh and sort-merge-fdlimit.sh: -m when few descriptors are left
continue-1|-n -m t.*||for i in $(seq 31); do echo $i > t.$i; done|exec 3<&- 4<&- 5<&- 6<&-; ulimit -n 7
continue-2|-n -m t.* -|<32\n|for i in $(seq 31); do echo $i > t.$i; done|exec 3<&- 4<&- 5<&- 6<&-; ulimit -n 7
fdlimit-16|-m --batch-size=16 in/*||mkdir in; for i in $(seq 17); do echo $i > in/$i; done|ulimit -n 19
fdlimit-out|-n -m --batch-size=7 -o out out in/1 in/2 in/3 in/4 in/5 out||mkdir in; for i in $(seq 5); do echo $i > in/$i; done; echo 6 > out|exec 3<&- 4<&- 5<&- 6<&- 7</dev/null 8<&7 9<&7; ulimit -n 10
# sort-exit-early.sh: an output that cannot be written, an input that cannot be read
exit-early-output|-o input||as_user_setup; touch input; chmod a-w input|as_user
exit-early-input|-o typo - output||as_user_setup; touch output; chmod a-r output|as_user
# sort-float.sh: -g at the limits of the float types; equal values under -u
float-limits|-sg|!shuffled float_limits
float-equal|-gu|10\n1e1\n
# sort-NaN-infloop.sh
nan-merge|-g -m F F||echo nan > F
nan-many|-g|!repeat 60000 nan
# ... and at the size that made GNU sort before 9.2 loop for ever (bug 55212): there the
# oracle sorts without -g (equal lines: any sort gives the same output)
nan-many-128095|-g|!repeat 128095 nan||if [ "$side" = gnu ]; then options=; fi
# sort-discrim.sh: long common prefixes; numbers at a 64-bit integer's edges
discrim-text||!shuffled long_prefix_lines 10000
discrim-n|-n|!shuffled discriminator_numbers
discrim-h|-h|!shuffled discriminator_numbers
# sort-unique.sh, sort-unique-segv.sh, sort-u-FMR.sh
unique|-u|1\n2\n1\n3\n
unique-segv|--parallel=2 -u -S 10b|\n\n\n\n\n\n\nz\nzzzzzz\nzzzzzzz\nzzzzzzz\nzzzzzzz\nzzzzzzzzz\nzzzzzzzzzzz\nzzzzzzzzzzzz\n
u-FMR|--p=1 -S32b -u|!echo 0; printf '%0900d\n' 1
# sort-h-thousands-sep.sh: -h where the thousands separator is a blank (sv_SE), and
# the same lines in the locales under test
h-sep-1|-h -k 1|1       1k      1 M     4 003   1M\n2k      2M      2 k     4 002   2\n3M      3       3 G     4 001   3k\n
h-sep-2|-h -k 2|1       1k      1 M     4 003   1M\n2k      2M      2 k     4 002   2\n3M      3       3 G     4 001   3k\n
h-sep-3|-h -k 3|1       1k      1 M     4 003   1M\n2k      2M      2 k     4 002   2\n3M      3       3 G     4 001   3k\n
h-sep-5|-h -k 5|1       1k      1 M     4 003   1M\n2k      2M      2 k     4 002   2\n3M      3       3 G     4 001   3k\n
h-sep-sv-3|-h -k 3|1       1k      1 M     4 003   1M\n2k      2M      2 k     4 002   2\n3M      3       3 G     4 001   3k\n|require_locale sv_SE|export LC_ALL=sv_SE.UTF-8
h-sep-sv-5|-h -k 5|1       1k      1 M     4 003   1M\n2k      2M      2 k     4 002   2\n3M      3       3 G     4 001   3k\n|require_locale sv_SE|export LC_ALL=sv_SE.UTF-8
h-sep-sv-n|-n|1\342\200\257000\n999\n1 000\n2,5\n1000\n|require_locale sv_SE|export LC_ALL=sv_SE.UTF-8
# sort-locale.sh: collation that is not bytewise (blanks and punctuation weigh less,
# case second, an accent before the next letter, NFC and NFD forms alike)
locale-blank||a_a\na b\n
locale-case||aaa\nBBB\n
locale-fr-accent||aa\303\251\naaf\n|require_locale fr_FR|export LC_ALL=fr_FR.UTF-8
locale-fr-nfd||a\303\251Y\nae\314\201Z\n|require_locale fr_FR|export LC_ALL=fr_FR.UTF-8
# sort-field-limit.sh, without its R: GNU sort before 9.8 reads out of bounds there
# (the case's bug), so its -R order is not to be trusted
field-limit-1|+0.18446744073709551615|aa\nbb\n||export _POSIX2_VERSION=200809
field-limit-2|+1 -1.18446744073709551615|aa\nbb\n||export _POSIX2_VERSION=200809
# --- beyond GNU's files: what issue 13 asks to cover
# per-key ordering letters
key-d|-k2,2d -k1,1|1 a.b\n2 ab\n3 a-c\n4 a\n
key-f-i|-k1,1f -k2,2i|b \001x\nB y\na x\nA \002w\n
key-M|-k2,2M -k1,1n|1 feb\n2 JAN\n3 xyz\n4  Dec\n5 mar\n6 January\n
key-V|-k2,2V|a 1.10\nb 1.2\nc 1.2a\nd 1.02\ne 1.2~rc1\n
key-g|-k2,2g|a 1e3\nb 0x10\nc -inf\nd nan\ne 1E-3\nf inf\ng -0\nh 5\n
key-h|-k2,2h -k1,1|a 1K\nb 1k\nc 1.5K\nd -1G\ne 1023\nf 0.5M\n
key-nr|-k1,1nr -k2,2|2 b\n10 a\n2 a\n-1 c\n
key-bnr-end|-k1.2b,1.3bnr|x 12\nx 9\ny  3\n
key-r-global|-r -k1,1 -k2,2n|a 2\na 10\nb 1\n
key-stable-r|-s -r -k1,1|b 1\na 1\nb 2\na 2\n
# -t: NUL, a multibyte character (refused, as GNU does), twice
tab-nul-z|-z -t '\0' -k2,2|x\000b\nx\000a\n
tab-multibyte|-t "$(printf '\303\251')"|
tab-twice-same|-t : -t : -k2|a:2\nb:1\n
tab-twice-different|-t : -t ';'|
tab-empty|-t ''|
tab-two-chars|-t ab|
tab-backslash-t|-t '\t'|
tab-field-empty|-t , -k2,2 -k1,1|c,,1\nb,a\na,\n
# -u with keys, -s
unique-key|-u -k2,2|a x\nb x\nc y\nd x\n
unique-key-n|-u -k1,1n|01 a\n1 b\n2 c\n02 d\n
unique-f|-u -f|a\nA\nb\nB\n
unique-r|-ur|a\nb\na\n
stable-key|-s -k1,1|b 2\na 9\nb 1\na 3\n
stable-n|-s -n|1 z\n01 y\n1 x\n
# -c and -C: the first disorder and its line number, on a file and on stdin
check-key|-c -k2,2|x a\ny b\nz a\n
check-n|-c -n|1\n10\n9\n
check-r|-c -r|c\nb\nd\n
check-u-equal|-c -u -k1,1|a 1\na 2\n
check-quiet|--check=quiet|b\na\n
check-silent-u|-C -u|a\na\n
check-two-files|-c a b||printf 'a\n' > a; printf 'b\n' > b
check-empty||
check-no-newline|-c|a\nc\nb
# -m: sorted inputs, keys, -u across files, stdin among files
merge-two|-m a b||printf '1\n3\n5\n' > a; printf '2\n4\n6\n' > b
merge-keys|-m -k2,2n a b||printf 'x 1\ny 3\n' > a; printf 'z 2\nw 4\n' > b
merge-unique|-mu a b||printf 'a\nb\n' > a; printf 'b\nc\n' > b
merge-stdin|-m a - b|<2\n5\n|printf '1\n4\n' > a; printf '3\n6\n' > b
merge-reverse|-mr a b||printf 'c\na\n' > a; printf 'd\nb\n' > b
merge-unsorted|-m a b||printf '3\n1\n' > a; printf '2\n' > b
merge-zero|-mz a b||printf 'b\000d\000' > a; printf 'a\000c\000' > b
# a buffer far below the input: runs in temp files, then merged
spill-n|-S 1K -n|!shuffled seq 5000
spill-unique-key|-S 2K -u -k2,2 -t ,|!shuffled pairs 3000
stable-unique|-s -u -k1,1|b 1\na 2\nb 3\na 4\n
# -o: a new file, an input, and an existing file
output-new|-o out|b\na\n
output-is-operand|-o f f||printf 'b\na\n' > f
output-existing|-o out|b\na\n|printf 'old old old\n' > out
# -z with keys and -u
zero-key|-z -k2,2n|a 10\000b 9\000c 1\000
zero-unique|-zu|b\000a\000b\000
zero-newline-inside|-z|b\nx\000a\ny\000
# the obsolete +POS1 -POS2 (GNU sort 9.1 takes it unless _POSIX2_VERSION is
# 200112..200808, and -POS2 only right after +POS1)
obsolete-1|+1 -2|b 2 x\na 1 y\nc 1 z\n
obsolete-char|+0.1 -0.3|xbc\nyab\nzaa\n
obsolete-letters|+1n -2 +0r|b 2\na 10\nc 2\n
obsolete-after-file|b +1|<|printf 'x 2\ny 1\n' > b
obsolete-2001|+1||printf 'a\n' > +1|export _POSIX2_VERSION=200112
obsolete-posixly|b +1||printf 'x 2\ny 1\n' > b; printf 'p\n' > +1|export POSIXLY_CORRECT=1
obsolete-dashdash|-- +1||printf 'p\n' > +1
obsolete-bad-end|+1 -2x|
# -S, --parallel, -T are accepted
buffer-sizes|-S 1M --buffer-size=10% -S 100b|b\na\n
buffer-suffix-bad|-S 1Q|
buffer-bad|-S x|
parallel|--parallel=3|b\na\nc\n
temp-dirs|-T . -T /tmp --temporary-directory=.|b\na\n
# words of --sort and --check: bad, abbreviated
sort-word-bad|--sort=foo|
sort-word-short|--sort=h|2K\n1M\n
check-word-bad|--check=x|
check-word-short|--check=d|b\na\n
# KEYDEF errors (exit 2)
key-letter|-k a|
key-stray|-k 1x|
key-bad-end|-k 1,a|
key-dot-end|-k 1.|
key-two-dots|-k 1.2.3|
key-empty|-k ''|
key-end-zero|-k 1,0|
key-minus|-k -1|
key-blank-plus|-k ' +2'|b 1\na 2\n
# -n: zero's signs, a leading '+', thousands separators, the decimal point
n-zeros|-n|0\n-0\n+0\n-0.0\n.0\n-\n0.\n
n-plus|-n|+1\n2\n-1\n+0\n
n-thousands|-n|1,000\n999\n1,0,0\n,5\n1,,2\n2.5,1\n10,00\n
n-thousands-s|-s -n|1,000\n999\n1000\n1,000.5\n
n-decimal|-n|1.5\n1.50\n1.05\n-1.5\n-1.05\n
n-blank|-n|  3\n\t2\n1\n
n-long|-n|123456789012345678901234567890\n123456789012345678901234567891\n-99999999999999999999999\n
# -g: exponents, hexadecimal, infinities, NaNs, garbage
g-notation|-g|1e3\n1E3\n.5e1\n5\n1e\n1e+\n-1e-3\n1e-400\n1e400\n0x1p3\n0x10\n
g-inf-nan|-g|inf\n-inf\nnan\n-nan\nInfinity\nNAN\n1\nx\n-1e308\n
g-nan-r|-gr|nan\n1\n-inf\nx\n
g-blank|-g| 2\n\t1\n3\n
# -h: suffix case, binary suffixes, fractions
h-suffixes|-h|1k\n1K\n1Ki\n1.5K\n1KB\n999\n0.5M\n-0.1G\n+1M\nk\n
h-r|-hr|1G\n1M\n2K\n
# -M: case, leading blanks, prefixes, unknowns
M-words|-M|jUn\n Feb\nFEBRUARY\nmarch\nXYZ\n\n  aug\nJa\n
M-r|-Mr|jan\nfeb\nfoo\n
# -V
V-misc|-V|a~1\na\na1\na10\na2\n1.0~rc1\n1.0\n1.0a\n.hidden\nfile.tar.gz\nfile-1.2.tar.gz\nfile-1.10.tar.gz\n
CASES
}

# Cases whose output gpusort does not match yet, with the reason: reported as TAP
# SKIP, not as a pass. name|locale (or *)|reason
known_differences() {
	# GNU sort 9.2 added the suffixes R (10^27) and Q (10^30) to -h and -S; gpusort
	# follows 9.1, the release these cases were written against, which has neither
	oracle_version=$("$ORACLE" --version | sed -n '1s/.* \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p')
	if [ "$(printf '%s\n9.2\n' "$oracle_version" | sort -V | head -n 1)" = 9.2 ]; then
		echo "h1|*|the system sort ($oracle_version) reads the -h suffixes R and Q of GNU sort 9.2, unknown to 9.1, which gpusort follows"
		# Seen with sort 9.4 on the GPU machine: two cases whose GNU answer changed after
		# 9.1, the release these cases were written against and gpusort follows.
		echo "buffer-suffix-bad|*|the system sort ($oracle_version) reads Q as a -S suffix (too large), where 9.1, which gpusort follows, calls it an invalid suffix"
		echo "g-inf-nan|*|the system sort ($oracle_version) orders NaNs among themselves otherwise than 9.1 (the sign), which gpusort follows"
	fi
	cat <<'KNOWN'
sort-word-bad|*|GNU sort exits 1 (argmatch's usage status, the status -c gives disorder) for a bad word; gpusort keeps 2 for trouble, on purpose
check-word-bad|*|GNU sort exits 1 (argmatch's usage status, the status -c gives disorder) for a bad word; gpusort keeps 2 for trouble, on purpose
KNOWN
}

# --- running them -----------------------------------------------------------------
known_reason() {
	known_differences | while IFS='|' read -r k_name k_locale k_reason; do
		if [ "$k_name" = "$1" ] && { [ "$k_locale" = '*' ] || [ "$k_locale" = "$2" ]; }; then
			printf '%s\n' "$k_reason"
			break
		fi
	done
}

# run_variant DIR PROGRAM MODE: the case in DIR with PROGRAM; MODE pipe, file or none.
run_variant() {
	run_dir=$1 run_program=$2
	case $3 in
	pipe) cat "$run_dir/../input.data" | run_in "$run_dir" "$run_program" ;;
	file) run_in "$run_dir" "$run_program" input </dev/null ;;
	none) run_in "$run_dir" "$run_program" </dev/null ;;
	esac >"$run_dir.stdout" 2>"$run_dir.stderr"
	echo $? >"$run_dir.status"
}

# run_in DIR PROGRAM [OPERAND]: the program with the case's options (and the operand)
# in DIR, after the prelude. Every redirection is made before the prelude: a shell
# keeps a redirected descriptor above 9, which a prelude's ulimit -n forbids.
run_in() {
	(
		cd "$1" || exit 99
		program=$2 operand=${3-} side=${1##*/} runner=
		eval "$prelude"
		eval "set -- $options"
		[ -z "$operand" ] || set -- "$@" "$operand"
		exec timeout 120 $runner "$program" "$@"
	)
}

# What a case leaves behind: each file's name and checksum.
files_left() { (cd "$1" && find . -type f -exec cksum {} + | LC_ALL=C sort -k3); }

# The message text, whichever program said it.
normalize_stderr() { sed -e 's/^gpusort: /sort: /' -e "s/^Try 'gpusort --help'/Try 'sort --help'/" "$1"; }

compare_variant() { # LABEL: compares $case_dir/gnu and $case_dir/ours
	label=$1
	problems=""
	cmp -s "$case_dir/gnu.stdout" "$case_dir/ours.stdout" || problems="$problems stdout"
	[ "$(cat "$case_dir/gnu.status")" = "$(cat "$case_dir/ours.status")" ] || problems="$problems status"
	normalize_stderr "$case_dir/gnu.stderr" >"$case_dir/gnu.err"
	normalize_stderr "$case_dir/ours.stderr" >"$case_dir/ours.err"
	cmp -s "$case_dir/gnu.err" "$case_dir/ours.err" || problems="$problems stderr"
	[ "$(files_left "$case_dir/gnu")" = "$(files_left "$case_dir/ours")" ] || problems="$problems files"
	[ -z "$(ls -A "$TMPDIR")" ] || problems="$problems temp-files"
	rm -rf "${TMPDIR:?}"/* 2>/dev/null
	[ -z "$problems" ]
	tap_result $? "$label"
	[ -z "$problems" ] && return
	echo "#   differs in:$problems; options: $options"
	echo "#   exit: sort $(cat "$case_dir/gnu.status"), gpusort $(cat "$case_dir/ours.status")"
	sed 's/^/#   sort stderr: /' "$case_dir/gnu.err" | head -3
	sed 's/^/#   gpusort stderr: /' "$case_dir/ours.err" | head -3
	if case $problems in *stdout*) true ;; *) false ;; esac; then
		diff "$case_dir/gnu.stdout" "$case_dir/ours.stdout" | head -8 | sed 's/^/#   /'
	fi
}

# run_case LOCALE: the current row, in every variant its input allows
run_case() {
	locale_name=$1
	case_dir="$WORK/case"
	variants=none
	case $input in
	'<'*) input=${input#<}; variants=pipe ;;
	'') ;;
	*) variants="pipe file" ;;
	esac
	for variant in $variants; do
		label="$name [$locale_name, $variant]"
		reason=$(known_reason "$name" "$locale_name")
		if [ -n "$reason" ]; then
			skip_test "$label: known difference: $reason"
			continue
		fi
		rm -rf "$case_dir"
		mkdir -p "$case_dir/gnu" "$case_dir/ours" || exit 99
		case $input in
		'!'*) (cd "$case_dir/gnu" && eval "${input#!}") >"$case_dir/input.data" ;;
		*) printf -- "$input" >"$case_dir/input.data" ;;
		esac
		status=0
		for side in gnu ours; do
			(cd "$case_dir/$side" && eval "$setup") </dev/null >/dev/null 2>&1 || status=$?
			[ "$variant" = file ] && cp "$case_dir/input.data" "$case_dir/$side/input"
		done
		if [ $status -eq 77 ]; then
			skip_test "$label: the setup cannot be made here (a locale or setpriv missing)"
			continue
		fi
		run_variant "$case_dir/gnu" "$ORACLE" "$variant"
		rm -rf "${TMPDIR:?}"/* 2>/dev/null
		run_variant "$case_dir/ours" "$GPUSORT" "$variant"
		compare_variant "$label"
		chmod -R u+rwx "$case_dir" 2>/dev/null
	done
}

TMPDIR="$WORK/tmp"
export TMPDIR
mkdir "$TMPDIR"
locales="C"
if locale -a 2>/dev/null | grep -qix 'en_US.utf-*8'; then
	locales="C en_US.UTF-8"
else
	skip_test "en_US.UTF-8: not installed (tests/generate_locales.sh makes it)"
fi
only=${GNU_CASES_ONLY:-}
for locale_name in $locales; do
	LC_ALL=$locale_name
	export LC_ALL
	cases >"$WORK/cases"
	while IFS='|' read -r name options input setup prelude extra; do
		case $name in '#'* | '') continue ;; esac
		[ -z "$extra" ] || { echo "Bail out! case $name has more than five cells"; exit 99; }
		[ -z "$only" ] || case " $only " in *" $name "*) ;; *) continue ;; esac
		run_case "$locale_name" </dev/null
	done <"$WORK/cases"
done
done_testing
