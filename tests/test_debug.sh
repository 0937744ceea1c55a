#!/bin/sh
# SPDX-License-Identifier: MIT
# --debug against the system sort (GNU coreutils 9.1), byte for byte on stdout and
# stderr and by exit status: a fixed set of options and keys (-b -n -g -h -M -V -f -d -i
# -r -s -u -t -z, zero-width keys, keys that end before they start, numeric keys over
# fields, separators inside numbers) over lines with tabs, blanks, numbers, months, wide
# and invalid UTF-8 and control bytes, in C and en_US.UTF-8; then random option sets
# (tests/debug_fuzz.py, fixed seed); then every path the output takes (-m, several
# inputs, spilled runs, stdout a regular file, empty input, a locale that is not
# installed, C.UTF-8, -R), and the options GNU refuses with --debug.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
if ! sort --version 2>/dev/null | grep -q 'GNU coreutils' || ! sort --debug </dev/null >/dev/null 2>&1; then
	skip_test "the system sort is not GNU sort with --debug: nothing to compare with"
	done_testing
fi
cd "$WORK" || exit 99
has_en_us() { locale -a 2>/dev/null | grep -qix 'en_US.utf-\{0,1\}8'; }
locales=C
has_en_us && locales="C en_US.UTF-8"

printf 'abc def\n  x  y\n\tJan 5\na\tb 12K x\n-3.5e2 foo\n1,234 bar\n  -0012.50  z\n\n   \nfeb  10M\nMAR 3\n 2G\n1.5k 7\n+4 plus\n0x1A hex\ninf\nnan\n\344\270\255\346\226\207 wide 3\nr\303\251sum\303\251 9\n\377\376 bad 2\ncontrol\001x 4\n1e3\n.5\n-\nZ 1.2.10\nz 1.2.9\n' > in
tr '\n' '\0' < in > in0

# same DESCRIPTION LOCALE ARG...: sort --debug and gpusort --debug, the same bytes out
# and errors and the same status; -R's output (whose order is the salt's) as lines.
same() {
	desc=$1 loc=$2
	shift 2
	LC_ALL=$loc sort --debug "$@" > want.out 2> want.err; want=$?
	LC_ALL=$loc "$GPUSORT" --debug "$@" > got.out 2> got.raw; got=$?
	sed "s/^gpusort:/sort:/; s/'gpusort --help'/'sort --help'/" got.raw > got.err
	case " $* " in *" -R "* | *R,* | *R" "*)
		LC_ALL=C sort want.out > want.lines; mv want.lines want.out
		LC_ALL=C sort got.out > got.lines; mv got.lines got.out ;;
	esac
	[ $want -eq $got ] && cmp -s want.out got.out && cmp -s want.err got.err
	tap_result $? "$loc: $desc (exit $got)"
	if ! { [ $want -eq $got ] && cmp -s want.out got.out && cmp -s want.err got.err; }; then
		echo "# exit: sort $want, gpusort $got"
		diff want.err got.err | head -6 | sed 's/^/# /'
		diff want.out got.out | head -8 | sed 's/^/# /'
	fi
}

while IFS= read -r opts; do
	for loc in $locales; do
		input=in
		case " $opts " in *" -z "*) input=in0 ;; esac
		eval "set -- $opts"
		same "--debug $opts" "$loc" "$@" "$input"
	done
done <<'CASES'

-b
-r
-s
-u
-f
-d
-i
-n
-g
-h
-M
-V
-nr
-k1
-k1b
-k2
-k2b
-k2,2
-k2b,2b
-k2n
-k2,2n
-k1,1n
-k1n,1
-k2h
-k1,1M
-k2g
-k1.2,1.3
-k1.2b,1.3
-k1.2,1.3b
-k2.2,2.1
-k1,1 -k2,2n
-k2 -r
-k2 -s -r
-k2 -u -r
-k2,2 -nr
-k2,2 -b
-k2,2 -fr
-k2,2f -r
-k2,2 -d -s
-k2,2n -u
-b -k2,2
-t, -k1,1n
-t, -k1,2n
-t. -k1,2n
-t. -k1,2g
-t- -k1,2n
-t+ -k1,2g
-t. -k1,1n
-t' ' -k2n
-tx -k1,1
-z
-z -k2
-k3,1
-k1.3n,1.1
-k2,1n
-n -u
-h -s -r
-V -k2,2
-k1,1d -k2,2i
-u -k1,1 -r
-R --random-source=in
-k1,1R -k2,2n --random-source=in
CASES

python3 "$TESTS_SRCDIR/debug_fuzz.py" "$GPUSORT" 20261125 150 $locales > fuzz.tap
fuzz_failed=$(grep -c '^not ok' fuzz.tap)
[ "$fuzz_failed" -eq 0 ]
tap_result $? "150 random option sets as sort --debug ($fuzz_failed differ)"
grep -A4 '^not ok' fuzz.tap | head -12 | sed 's/^/# /'

# Every path to the output annotates the same way.
LC_ALL=C sort in > sorted
same "-m of two sorted inputs" C -m sorted sorted
same "two inputs" C in in
seq 30000 | sed 's/$/	x y/' > big
LC_ALL=C sort --debug -k2 -n big > want.out 2>&1
LC_ALL=C "$GPUSORT" --debug -S 64K -k2 -n big 2>&1 | sed 's/^gpusort:/sort:/' > got.out
cmp -s want.out got.out
tap_result $? "spilled runs merged (-S 64K): the same annotations"
LC_ALL=C "$GPUSORT" --debug -S 64K --parallel=2 -k2 -n big > regular 2> /dev/null
LC_ALL=C sort --debug -k2 -n big > want.out 2> /dev/null
cmp -s want.out regular
tap_result $? "stdout a regular file (where plain output is written at offsets): the same"
: > empty
same "empty input" C empty
same "a locale that is not installed" xx_YY.UTF-8 in
if locale -a 2>/dev/null | grep -qix 'C.utf-\{0,1\}8'; then
	same "C.UTF-8 names its rules" C.UTF-8 -k2n in
else
	skip_test "C.UTF-8 is not installed"
fi

# What GNU refuses with --debug, in its words.
same "-c" C -c in
same "-C" C -C in
same "--check=quiet" C --check=quiet in
same "-o" C -o out in
expect_status 2 "--debug with binary records" "$GPUSORT" --debug --type=u32 in
stderr_has "option '--debug' applies to text lines" "--debug with binary records: the message"
done_testing
