#!/bin/sh
# SPDX-License-Identifier: MIT
# --csv: records and fields as RFC 4180 reads them, against an oracle written with
# Python's csv module (tests/csv_sort_oracle.py) on generated files with quoted fields,
# separators, quotes, newlines and TABs inside quotes, empty fields and lines, CRLF,
# UTF-8: text and numeric keys, -r, -u, -s, several keys, ',' ';' and TAB as separator,
# with and without --header; in memory, spilled (-S), on 1 and 2 threads, -m, -c, from
# a pipe, in C and en_US.UTF-8. Files without quotes sort as `sort -t,` sorts them.
# Malformed records: exit 2, "FILE:LINE: malformed CSV record: WHAT", the old output
# untouched, no temp file left.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

mkdir "$WORK/tmp"
export TMPDIR="$WORK/tmp"
no_temp() { test -z "$(ls -A "$WORK/tmp")" && test -z "$(ls -A "$WORK" | grep '^\.gpusort')"; }
csv_oracle() { python3 "$TESTS_SRCDIR/csv_sort_oracle.py" "$@"; }

# case DESC SEP HEADER FLAGS KEYS OPTIONS -- FILES: gpusort --csv against the oracle, to
# a file and through a pipe. FLAGS: r u s letters, L for --csv=lenient, or -; KEYS:
# space-separated, or -.
case_csv() {
	desc=$1 sep=$2 header=$3 flags=$4 keys=$5 extra=$6
	shift 7
	args= oracle_keys= csv=--csv letters=$(printf '%s' "$flags" | tr -d L)
	[ "$letters" = "$flags" ] || csv=--csv=lenient
	[ "$keys" = - ] || for k in $keys; do
		oracle_keys="$oracle_keys $k"
		args="$args -k$k"
	done
	[ "$flags" = - ] || [ -z "$letters" ] || args="$args -$letters"
	csv_oracle sort "$WORK/want" "$sep" "$header" "${LOCALE:-C}" "$flags" $oracle_keys -- "$@"
	"$GPUSORT" $csv -t "$sep" --header="$header" $args $extra -o "$WORK/out" "$@" 2>"$WORK/err"
	status=$?
	cmp -s "$WORK/out" "$WORK/want"
	tap_result $((status + $?)) "$desc: as the oracle (exit $status)"
	[ -s "$WORK/err" ] && sed 's/^/# /' "$WORK/err" | head -3
	"$GPUSORT" $csv -t "$sep" --header="$header" $args $extra "$@" 2>/dev/null | cmp -s - "$WORK/want"
	tap_result $? "$desc: to a pipe"
}

csv_oracle generate "$WORK/a.csv" 3000 1
csv_oracle generate "$WORK/big.csv" 30000 2
csv_oracle generate "$WORK/semi.csv" 3000 3 ';'
csv_oracle generate "$WORK/tab.csv" 3000 4 "$(printf '\t')"
csv_oracle generate "$WORK/b.csv" 2000 5

for keys in - 1,1 2,2n 2,2nr "3,3 1,1" "2,3" "4,4n 1,1r"; do
	case_csv "-k $keys" , 1 - "$keys" "" -- "$WORK/a.csv"
done
case_csv "-r -k1,1" , 1 r 1,1 "" -- "$WORK/a.csv"
case_csv "-s -k2,2n" , 1 s 2,2n "" -- "$WORK/a.csv"
case_csv "-u -k1,1" , 1 u 1,1 "" -- "$WORK/a.csv"
case_csv "-u, whole records" , 1 u - "" -- "$WORK/a.csv"
case_csv "no header: the header line sorts with the rest" , 0 - 1,1 "" -- "$WORK/a.csv"
case_csv "-t ';'" ';' 1 - "2,2 1,1" "" -- "$WORK/semi.csv"
case_csv "-t TAB" "$(printf '\t')" 1 - "3,3 1,1" "" -- "$WORK/tab.csv"
case_csv "30000 records, 2 threads" , 1 - "1,1 2,2n" --parallel=2 -- "$WORK/big.csv"
case_csv "30000 records spilled (-S 64K), 2 threads" , 1 - "1,1 2,2n" "-S 64K --parallel=2" -- "$WORK/big.csv"
case_csv "spilled, 1 thread, -u" , 1 u 1,1 "-S 64K --parallel=1" -- "$WORK/big.csv"
case_csv "spilled, whole records" , 1 - - "-S 64K" -- "$WORK/big.csv"
case_csv "two inputs" , 1 - 3,3 "" -- "$WORK/a.csv" "$WORK/b.csv"

# from a pipe
csv_oracle sort "$WORK/want" , 1 C - 1,1 -- "$WORK/big.csv"
cat "$WORK/big.csv" | "$GPUSORT" --csv --header -k1,1 -S 64K >"$WORK/out"
check "from a pipe, spilled" cmp "$WORK/out" "$WORK/want"

# -m over inputs sorted by the oracle, and -c
csv_oracle sort "$WORK/a.sorted" , 1 C - 2,2n -- "$WORK/a.csv"
csv_oracle sort "$WORK/b.sorted" , 1 C - 2,2n -- "$WORK/b.csv"
csv_oracle sort "$WORK/want" , 1 C - 2,2n -- "$WORK/a.sorted" "$WORK/b.sorted"
"$GPUSORT" --csv --header -m -k2,2n "$WORK/a.sorted" "$WORK/b.sorted" >"$WORK/out"
check "-m: the sorted inputs merged" cmp "$WORK/out" "$WORK/want"
"$GPUSORT" --csv --header -m -k2,2n --batch-size=2 -o "$WORK/out" "$WORK/a.sorted" "$WORK/b.sorted" "$WORK/b.sorted"
csv_oracle sort "$WORK/want" , 1 C - 2,2n -- "$WORK/a.sorted" "$WORK/b.sorted" "$WORK/b.sorted"
check "-m --batch-size=2" cmp "$WORK/out" "$WORK/want"
expect_status 0 "-c: the oracle's output is in order" "$GPUSORT" --csv --header -c -k2,2n "$WORK/a.sorted"
expect_status 1 "-c: the input is not" "$GPUSORT" --csv --header -c -k2,2n "$WORK/a.csv"
check "-c: a disorder reported with its record" grep -q "disorder: " "$WORK/stderr"
printf 'k,v\n"b\nx",1\n"a\nx",2\n' >"$WORK/nl.csv"
expect_status 1 "-c: a disorder in records that span lines" "$GPUSORT" --csv --header -C "$WORK/nl.csv"
"$GPUSORT" --csv --header "$WORK/nl.csv" >"$WORK/out"
check "records that span lines: written as they were read" \
	test "$(cat "$WORK/out")" = "$(printf 'k,v\n"a\nx",2\n"b\nx",1')"

# keys by the header's column names: [NAME] for a field number
csv_oracle sort "$WORK/want" , 1 C - 2,2n 1,1r -- "$WORK/a.csv"
"$GPUSORT" --csv --header -k '[value],[value]n' -k '[name],[name]r' "$WORK/a.csv" >"$WORK/out"
check "-k [value],[value]n -k [name],[name]r: as -k2,2n -k1,1r" cmp "$WORK/out" "$WORK/want"
csv_oracle sort "$WORK/want" , 1 C - "3" -- "$WORK/a.csv"
"$GPUSORT" --csv --header -k '[note]' -S 64K "$WORK/a.csv" >"$WORK/out"
check "-k [note], spilled: as -k3" cmp "$WORK/out" "$WORK/want"
printf '"first, name",x\nb,1\na,2\n' >"$WORK/quoted-header.csv"
"$GPUSORT" --csv --header -k '[first, name]' "$WORK/quoted-header.csv" >"$WORK/out"
check "a quoted column name holding the separator" test "$(cat "$WORK/out")" = "$(printf '"first, name",x\na,2\nb,1')"
"$GPUSORT" --csv --header -m -k '[value],[value]n' "$WORK/a.sorted" "$WORK/b.sorted" >"$WORK/out"
csv_oracle sort "$WORK/want" , 1 C - 2,2n -- "$WORK/a.sorted" "$WORK/b.sorted"
check "-m -k [value],[value]n" cmp "$WORK/out" "$WORK/want"
expect_status 0 "-c -k [value],[value]n on its sorted input" "$GPUSORT" --csv --header -c -k '[value],[value]n' "$WORK/a.sorted"
echo old >"$WORK/old"
expect_status 2 "an unknown column name: exit 2" "$GPUSORT" --csv --header -k '[price]' -o "$WORK/old" "$WORK/a.csv"
check "an unknown column name: the header's names listed" grep -q -x -F \
	"gpusort: unknown column 'price' in the header of $WORK/a.csv (its columns: name, value, note)" "$WORK/stderr"
check "an unknown column name: the old output untouched" test "$(cat "$WORK/old")" = old
expect_status 2 "a column name without --header: exit 2" "$GPUSORT" --csv -k '[name]' "$WORK/a.csv"
check "a column name without --header: its message" grep -q "needs --csv and --header" "$WORK/stderr"

# files without quotes: as sort -t, sorts them
csv_oracle generate "$WORK/plain.csv" 20000 6 , plain
for keys in "-k1,1" "-k2,2n" "-k3,3 -k1,1r" ""; do
	sort -t, $keys "$WORK/plain.csv" >"$WORK/want"
	"$GPUSORT" --csv $keys "$WORK/plain.csv" >"$WORK/out"
	check "no quotes, $keys: as sort -t," cmp "$WORK/out" "$WORK/want"
done
sort -t, -k2,2n -S 64K "$WORK/plain.csv" >"$WORK/want"
"$GPUSORT" --csv -k2,2n -S 64K "$WORK/plain.csv" >"$WORK/out"
check "no quotes, spilled: as sort -t," cmp "$WORK/out" "$WORK/want"

# in en_US.UTF-8: text keys and whole records by the locale's collation
if [ "$(LC_ALL=en_US.UTF-8 locale charmap 2>/dev/null)" = UTF-8 ]; then
	LOCALE=en_US.UTF-8
	export LC_ALL=en_US.UTF-8
	case_csv "en_US.UTF-8, -k1,1" , 1 - 1,1 "" -- "$WORK/a.csv"
	case_csv "en_US.UTF-8, whole records" , 1 - - "" -- "$WORK/a.csv"
	case_csv "en_US.UTF-8, -k3,3 -k1,1, spilled" , 1 - "3,3 1,1" "-S 64K" -- "$WORK/big.csv"
	export LC_ALL=C
	LOCALE=C
else
	for i in 1 2 3 4 5 6; do skip_test "en_US.UTF-8 is not installed"; done
fi

# under mpirun with 2 ranks (rank 0 sorts --csv alone): the same output
if [ "${GPUSORT_MPI:-no}" = yes ] && command -v mpirun >/dev/null 2>&1; then
	[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export OMPI_MCA_btl_vader_single_copy_mechanism=none
	csv_oracle sort "$WORK/want" , 1 C - 1,1 2,2n -- "$WORK/big.csv" "$WORK/a.csv"
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" timeout 120 mpirun --oversubscribe -np 2 "$GPUSORT" --csv \
		--header -k1,1 -k2,2n -S 64K "$WORK/big.csv" "$WORK/a.csv" -o "$WORK/out" 2>"$WORK/err"
	tap_result $? "mpirun -np 2: exits 0"
	check "mpirun -np 2: as the oracle" cmp "$WORK/out" "$WORK/want"
else
	skip_test "mpirun -np 2: gpusort was built without MPI, or mpirun is missing"
	skip_test "mpirun -np 2: the output"
fi

# malformed records: exit 2, the file and line named, the old output untouched
echo old >"$WORK/old"
bad() {
	desc=$1 text=$2 message=$3
	printf "$text" >"$WORK/bad.csv"
	expect_status 2 "$desc: exit 2" "$GPUSORT" --csv -o "$WORK/old" "$WORK/bad.csv"
	check "$desc: $message" grep -q -x -F "gpusort: $WORK/bad.csv:$message" "$WORK/stderr"
	check "$desc: the old output untouched" test "$(cat "$WORK/old")" = old
}
bad "an unclosed quote" 'a,b\nc,"d\ne\n' '2: malformed CSV record: unclosed quote'
bad "a quote inside an unquoted field" 'a,b\nc,d"e\n' '2: malformed CSV record: quote in unquoted field'
bad "a byte after a closing quote" 'a\n"x\ny"z,1\n' '2: malformed CSV record: character after closing quote'
{ head -c 200000 "$WORK/plain.csv"; printf '\nlast,"open\n'; } >"$WORK/late.csv"
expect_status 2 "spilled, late in the file: exit 2" "$GPUSORT" --csv -S 64K -o "$WORK/old" "$WORK/late.csv"
check "spilled, late in the file: the record's line named" grep -q -x -F \
	"gpusort: $WORK/late.csv:$(wc -l <"$WORK/late.csv"): malformed CSV record: unclosed quote" "$WORK/stderr"
check "spilled: the old output untouched" test "$(cat "$WORK/old")" = old
# a malformed header record: the same error (a header would otherwise swallow the input)
printf 'x"\nc\nb\n' >"$WORK/bad-header.csv"
printf 'h\nz\ny\n' >"$WORK/good.csv"
expect_status 2 "a malformed header record: exit 2" "$GPUSORT" --csv --header -o "$WORK/old" "$WORK/good.csv" "$WORK/bad-header.csv"
check "a malformed header record: named" grep -q -x -F \
	"gpusort: $WORK/bad-header.csv:1: malformed CSV record: quote in unquoted field" "$WORK/stderr"
printf 'h\n"open\n' >"$WORK/bad-header.csv"
expect_status 2 "a header whose second record is left open (--header=2): exit 2" \
	"$GPUSORT" --csv --header=2 -c "$WORK/bad-header.csv"
check "a header left open: unclosed quote, line 2" grep -q -x -F \
	"gpusort: $WORK/bad-header.csv:2: malformed CSV record: unclosed quote" "$WORK/stderr"
check "the old output untouched by the header errors" test "$(cat "$WORK/old")" = old
# --csv=lenient reads what strict --csv refuses, by the quotes' parity (the oracle's L)
for text in 'a,b\nc,"d\ne\n' 'a,b\nc,d"e\n' 'a\n"x\ny"z,1\n' 'b\n"q"\rr,1\na,"x"y"z"w\n'; do
	printf "$text" >"$WORK/bad.csv"
	case_csv "lenient: $(printf '%s' "$text" | head -c 20)" , 0 L 1,1 "" -- "$WORK/bad.csv"
done
csv_oracle generate-malformed "$WORK/lenient.csv" 5000 7
csv_oracle generate-malformed "$WORK/lenient2.csv" 3000 8
for keys in - 1,1 2,2n "3,3 1,1r"; do
	case_csv "lenient, 5000 records, -k $keys" , 1 L "$keys" "" -- "$WORK/lenient.csv"
done
case_csv "lenient, -u -k1,1" , 1 Lu 1,1 "" -- "$WORK/lenient.csv"
case_csv "lenient, -r -s -k2,2" , 1 Lrs 2,2 "" -- "$WORK/lenient.csv"
case_csv "lenient, spilled (-S 64K), two inputs" , 1 L "1,1 2,2n" "-S 64K --parallel=2" -- "$WORK/lenient.csv" "$WORK/lenient2.csv"
if [ "$(LC_ALL=en_US.UTF-8 locale charmap 2>/dev/null)" = UTF-8 ]; then
	LOCALE=en_US.UTF-8
	export LC_ALL=en_US.UTF-8
	case_csv "lenient, en_US.UTF-8, -k1,1" , 1 L 1,1 "" -- "$WORK/lenient.csv"
	export LC_ALL=C
	LOCALE=C
else
	skip_test "lenient, en_US.UTF-8: the locale is not installed"
	skip_test "lenient, en_US.UTF-8: to a pipe"
fi
# (-m: inputs whose quotes pair up, seeds 7 and 12; lenient2.csv ends inside quotes, and
# that record sorted into the middle would read differently again)
csv_oracle generate-malformed "$WORK/lenient3.csv" 3000 12
"$GPUSORT" --csv=lenient --header -k2,2n -o "$WORK/l1" "$WORK/lenient.csv" &&
	"$GPUSORT" --csv=lenient --header -k2,2n -o "$WORK/l2" "$WORK/lenient3.csv"
case_csv "lenient, -m of two sorted inputs" , 1 L 2,2n -m -- "$WORK/l1" "$WORK/l2"
expect_status 0 "lenient, -c on its own sorted output" "$GPUSORT" --csv=lenient --header -c -k2,2n "$WORK/l1"
printf 'a,"open\nb\n' >"$WORK/bad.csv"
expect_status 2 "strict still refuses what lenient reads" "$GPUSORT" --csv=strict -o "$WORK/old" "$WORK/bad.csv"
check "--csv=strict: the old output untouched" test "$(cat "$WORK/old")" = old
expect_status 2 "--csv=WORD: an unknown word" "$GPUSORT" --csv=loose "$WORK/a.csv"
check "--csv=loose: argmatch's words" grep -q "invalid argument.*loose.*for.*--csv" "$WORK/stderr"
# -c reads in order: a disorder before a malformed record is the disorder
printf 'b\na\nc"x\n' | "$GPUSORT" --csv -c 2>"$WORK/stderr"
tap_result $((1 - $?)) "-c: a disorder before a malformed record: exit 1"
check "-c: the disorder reported" grep -q -x -F "gpusort: -:2: disorder: a" "$WORK/stderr"
printf 'a\nb\nc"x\n' | "$GPUSORT" --csv -c 2>"$WORK/stderr"
tap_result $((2 - $?)) "-c: records in order, then a malformed one: exit 2"
# without -k the key is the record as read, whatever the ordering options
for opt in "" -f -b; do
	printf 'a\n"b"\n' | "$GPUSORT" --csv $opt >"$WORK/out"
	check "no -k, '${opt:-no option}': the records as read compare (a quote before 'a')" \
		test "$(cat "$WORK/out")" = "$(printf '"b"\na')"
done
printf 'a\n"a"\n' | "$GPUSORT" --csv -f -u >"$WORK/out"
check "no -k, -f -u: a and \"a\" differ" test "$(wc -l <"$WORK/out")" -eq 2
printf 'a\nb,c"d\n' | "$GPUSORT" --csv -m - >/dev/null 2>"$WORK/stderr"
check "-m from stdin: the malformed record named" grep -q "standard input:2: malformed CSV record" "$WORK/stderr"
expect_status 2 "--csv with a binary key" "$GPUSORT" --csv --type=u64 "$WORK/a.csv"
check "--csv with a binary key: its message" grep -q "option '--csv' applies to text lines" "$WORK/stderr"
expect_status 2 "--csv -z" "$GPUSORT" --csv -z "$WORK/a.csv"
check "--csv -z: its message" grep -q "options '--csv -z' are incompatible" "$WORK/stderr"
expect_status 2 "--csv -t '\"'" "$GPUSORT" --csv -t '"' "$WORK/a.csv"
check "--csv with a quote as separator: its message" grep -q "cannot be a double quote" "$WORK/stderr"
check "no temp file left" no_temp

done_testing
