#!/bin/sh
# SPDX-License-Identifier: MIT
# -R (--random-sort, --sort=random, R in a KEYDEF) and --random-source, against GNU
# sort's promises and the system sort (tests/random_check.py): equal keys adjacent, the
# same classes and, inside each, the same order as sort's (later keys, last resort, -u,
# -s, -r), in the C locale and en_US.UTF-8; one salt file gives one output whatever the
# memory budget (spilled runs and merge passes), the threads, -m of sorted pieces, and -c
# accepts it; without --random-source every run differs; GNU's errors and exit statuses.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
cd "$WORK" || exit 99
# check_orders: random_check.py's checks of every case listed in checks (a line
# "N|LOCALE|ARGUMENTS"), from one Python: case N's status in why.N.status, what failed
# in why.N.
check_orders() {
	python3 - "$TESTS_SRCDIR" checks <<'PY'
import contextlib, io, locale, os, shlex, sys
sys.path.insert(0, sys.argv[1])
import random_check
for line in open(sys.argv[2]):
    number, loc, args = line.rstrip("\n").split("|", 2)
    os.environ["LC_ALL"] = loc
    locale.setlocale(locale.LC_COLLATE, "C")
    sys.argv = ["random_check.py"] + shlex.split(args)
    why = io.StringIO()
    with contextlib.redirect_stdout(why):
        try:
            status = random_check.main()
        except SystemExit as e:
            status = e.code if isinstance(e.code, int) else 2
        except Exception as e:  # a missing output, say: this case fails, not the others
            print("random_check.py: %r" % e)
            status = 2
    open("why." + number, "w").write(why.getvalue())
    open("why." + number + ".status", "w").write("%d\n" % status)
PY
}
head -c 64 /dev/urandom > seed
head -c 16 /dev/urandom > seed2

# Lines of three ':' fields drawn from words that tie under -f, -d and collation.
python3 - <<'PY'
import random
r = random.Random(5)
plain = ['a', 'A', 'b', 'B', 'abc', 'ABC', 'a-b', 'ab', 'x y', '', ' a', 'zz', 'Zz', '10', '9', '-1']
accented = plain + ['\u00e9', '\u00c9', 'e', 'E', 'r\u00e9sum\u00e9', 'resume', 'Resume', '\u00df', 'ss']
for name, words in (('plain', plain), ('accented', accented)):
    with open(name, 'w', encoding='utf-8') as f:
        for i in range(3000):
            f.write('%s:%s:%d\n' % (r.choice(words), r.choice(words), r.randrange(50)))
PY

# options | random_check.py's description of the key
cat > cases <<'CASES'
-R|
-r -R|
--random-sort -u|--unique
--sort=random -s -t: -k1,1|--field 1
-t: -k1,1R|--field 1
-t: -k1,1fR|--field 1 --fold
-t: -k2,2dfR -k3,3n|--field 2 --fold --dictionary
-t: -k1,1R -s|--field 1
-t: -k1,1R -u|--field 1 --unique
-t: -fR -u|--fold --unique
-t: -k1,1R -r|--field 1
-t: -k1,1Rr -k3,3nr|--field 1
-t: -R -k1,1 -k3,3n|--field 1
-t: -k1,1RV|--field 1
CASES
# (gpusort and sort run case by case, then one Python checks them all; each case is
# still its own TAP line)
case_number=0
: >checks
: >results
for loc in C en_US.UTF-8; do
	if [ "$loc" != C ] && ! locale -a 2>/dev/null | grep -qix 'en_US.utf-\{0,1\}8'; then
		echo "skip|$loc is not installed" >>results
		continue
	fi
	collate=; input=plain
	[ "$loc" = C ] || { collate=--collate; input=accented; }
	while IFS='|' read -r opts described; do
		case_number=$((case_number + 1))
		# shellcheck disable=SC2086
		LC_ALL=$loc "$GPUSORT" $opts --random-source=seed $input > got.$case_number 2> got.$case_number.err &&
			LC_ALL=$loc sort $opts $input > want.$case_number
		echo "$case_number|$?|$loc: $opts: equal keys adjacent, sort's classes and order inside them" >>results
		echo "$case_number|$loc|$input got.$case_number want.$case_number $collate $described" >>checks
	done < cases
done
check_orders
while IFS='|' read -r number status description; do
	if [ "$number" = skip ]; then
		skip_test "$status"
		continue
	fi
	if [ "$status" -eq 0 ]; then
		status=99 # unless the checks' Python wrote this case's status
		read -r status <why.$number.status
	fi
	tap_result "$status" "$description"
	sed 's/^/# /' why.$number got.$number.err | head -3
done <results

# One salt, one output: in memory, spilled at three budgets, merged two runs at a time,
# on one thread, and -m of separately sorted pieces; -c accepts it.
seq 150000 | sed 's/$/ line/' > big
"$GPUSORT" -R --random-source=seed big > reference
for run in "-S 64K" "-S 256K --batch-size=2" "-S 1M" "--parallel=1" "-S 64K --parallel=1"; do
	# shellcheck disable=SC2086
	"$GPUSORT" -R --random-source=seed $run big > again
	cmp -s reference again
	tap_result $? "--random-source: $run gives the in-memory output"
done
# -u and -f across spilled runs: the first line of each key, as in memory.
tr 'a-z' 'A-Z' < big | paste -d '\n' big - > cased
"$GPUSORT" -fR -u --random-source=seed cased > unique_memory
"$GPUSORT" -fR -u --random-source=seed -S 64K cased > unique_spilled
cmp -s unique_memory unique_spilled && [ "$(wc -l < unique_memory)" -eq "$(wc -l < big)" ] &&
	! grep -q LINE unique_memory
tap_result $? "-fR -u, spilled or not, keeps the first line of each key (the input's)"
split -l 40000 big part.
for piece in part.*; do "$GPUSORT" -R --random-source=seed "$piece" > "$piece.sorted"; done
"$GPUSORT" -m -R --random-source=seed part.*.sorted > merged
cmp -s reference merged
tap_result $? "-m of pieces sorted with the same salt gives the whole sort's output"
expect_status 0 "-c -R accepts the output under the same salt" "$GPUSORT" -c -R --random-source=seed reference
expect_status 1 "-c -R under another salt finds disorder" "$GPUSORT" -c -R --random-source=seed2 reference
stderr_has "gpusort: reference:" "-c -R reports the line as sort does (FILE:N: disorder: LINE)"
expect_status 0 "-C -R accepts lines that are all equal" sh -c "printf 'x\nx\nx\n' | '$GPUSORT' -C -R"
"$GPUSORT" -R --random-source=seed2 big > other
! cmp -s reference other
tap_result $? "another salt, another order"
"$GPUSORT" -R big > free1
"$GPUSORT" -R big > free2
sort free1 > s1; sort big > s2
! cmp -s free1 free2 && cmp -s s1 s2
tap_result $? "without --random-source two runs differ, and hold the input's lines"
sort reference > s1
cmp -s s1 s2
tap_result $? "-R keeps every line"

# Errors, as sort words them (exit 2, nothing on stdout).
printf 'b\na\n' > small
printf 'short' > short
for source in missing short .; do
	LC_ALL=C sort -R --random-source=$source small > want 2> want.err; want_status=$?
	LC_ALL=C "$GPUSORT" -R --random-source=$source small > got 2> got.err; got_status=$?
	sed 's/^sort: //' want.err > want.msg
	sed 's/^gpusort: //' got.err > got.msg
	[ $got_status -eq $want_status ] && [ $got_status -eq 2 ] && [ ! -s got ] && cmp -s want.msg got.msg
	tap_result $? "--random-source=$source: '$(cat got.msg)', exit $got_status, as sort"
done
expect_status 0 "--random-source is not read without a random key" "$GPUSORT" --random-source=missing small
expect_status 2 "two random sources" "$GPUSORT" -R --random-source=seed --random-source=seed2 small
stderr_has "gpusort: multiple random sources specified" "two random sources: sort's message"
expect_status 0 "the same random source twice is one" "$GPUSORT" -R --random-source=seed --random-source=seed small
expect_status 2 "-nR" "$GPUSORT" -nR small
stderr_has "gpusort: options '-nR' are incompatible" "-nR: sort's message"
expect_status 2 "-k1,1MR" "$GPUSORT" -k1,1MR small
stderr_has "gpusort: options '-MR' are incompatible" "-k1,1MR: sort's message"
expect_status 2 "-R with binary records" "$GPUSORT" -R --type=u32 small
stderr_has "option '-R' applies to text lines" "-R with binary records: the message"
done_testing
