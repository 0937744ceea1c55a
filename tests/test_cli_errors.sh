#!/bin/sh
# SPDX-License-Identifier: MIT
# Bad input: a clear message naming the file and the reason, exit status 2, and no
# output file created or changed, no temp file left behind.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

mkdir "$WORK/tmp"
export TMPDIR="$WORK/tmp"
echo "old output" > "$WORK/out"
keygen --type=u64 --count=200 -o "$WORK/good"

untouched() {
	test "$(cat "$WORK/out")" = "old output" && test -z "$(ls -A "$WORK/tmp")" &&
		test -z "$(ls -A "$WORK" | grep -v -e '^out$' -e '^good$' -e '^tmp$' -e '^std' -e '^odd$' -e '^dir$' -e '^noread$' -e '^empty$' -e '^check.out$')"
}

expect_status 2 "missing file" "$GPUSORT" --type=u64 "$WORK/good" "$WORK/missing" -o "$WORK/out"
stderr_has "gpusort: cannot read: $WORK/missing: No such file or directory" "missing file is named with the reason"
check "missing file: output untouched, no temp left" untouched

mkdir "$WORK/dir"
expect_status 2 "directory as input" "$GPUSORT" --type=u64 "$WORK/dir" -o "$WORK/out"
stderr_has "gpusort: read failed: $WORK/dir: Is a directory" "directory is named with the reason"
check "directory: output untouched" untouched

head -c 1001 "$WORK/good" > "$WORK/odd"
expect_status 2 "size not a multiple of the record size" "$GPUSORT" --type=u64 "$WORK/odd" -o "$WORK/out"
stderr_has "$WORK/odd: size 1001 bytes is not a multiple of the record size 8" "message names file, size and record size"
check "partial record: output untouched" untouched
expect_status 2 "partial record on a pipe" sh -c "cat '$WORK/odd' | '$GPUSORT' --type=u64 -o '$WORK/out'"
stderr_has "standard input: size 1001 bytes is not a multiple of the record size 8" "pipe message names stdin, size and record size"
check "partial record on a pipe: output untouched" untouched

expect_status 2 "key beyond the record" "$GPUSORT" --type=u64 --record-size=8 --key-offset=4 "$WORK/good" -o "$WORK/out"
stderr_has "extends beyond the record" "key beyond the record is explained"
check "key beyond the record: output untouched" untouched

expect_status 2 "bad --type" "$GPUSORT" --type=float "$WORK/good" -o "$WORK/out"
stderr_has "invalid --type 'float'" "bad --type is named"
check "bad --type: output untouched" untouched

cp "$WORK/good" "$WORK/noread"
chmod 000 "$WORK/noread"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	chmod 777 "$WORK" "$WORK/tmp"
	chmod 666 "$WORK/out"
	expect_status 2 "unreadable file" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$GPUSORT" --type=u64 "$WORK/noread" -o "$WORK/out"
	stderr_has "gpusort: cannot read: $WORK/noread: Permission denied" "unreadable file is named with the reason"
elif [ "$(id -u)" -ne 0 ]; then
	expect_status 2 "unreadable file" "$GPUSORT" --type=u64 "$WORK/noread" -o "$WORK/out"
	stderr_has "gpusort: cannot read: $WORK/noread: Permission denied" "unreadable file is named with the reason"
else
	skip_test "unreadable file: running as root without setpriv"
	skip_test "unreadable file message"
fi
check "unreadable file: output untouched" untouched

# A full disk behind stdout: exit 2, and the message names standard output, quoted as
# GNU sort quotes it ('standard output'); an output this small fails, as GNU's, in the
# final flush ("fflush failed").
if [ -w /dev/full ]; then
	expect_status 2 "binary sort to a full stdout" sh -c "'$GPUSORT' --type=u64 '$WORK/good' > /dev/full"
	stderr_has "gpusort: fflush failed: 'standard output': No space left on device" "binary: stdout named with the reason"
	expect_status 2 "text sort to a full stdout" sh -c "printf 'b\\na\\n' | '$GPUSORT' > /dev/full"
	stderr_has "gpusort: fflush failed: 'standard output': No space left on device" "text: stdout named with the reason"
else
	skip_test "no /dev/full"
fi

# --help and --version write through stdio: its write errors are reported at exit as
# GNU's close_stdout reports them, in sort's words. (A long --help loses its reason, in
# sort too: stdio drops the block it could not write, and the final flush succeeds.)
same_as_sort() { # OPTION REDIRECTION
	sh -c "sort $1 $2" 2>"$WORK/std-sort.err"
	want=$?
	sh -c "'$GPUSORT' $1 $2" 2>"$WORK/std-gpusort.err"
	got=$?
	sed 's/^sort:/gpusort:/' "$WORK/std-sort.err" | cmp -s - "$WORK/std-gpusort.err" && [ $got -eq $want ]
	tap_result $? "$1 $2: exit $got, '$(cat "$WORK/std-gpusort.err")' as sort"
}
if [ -w /dev/full ]; then
	same_as_sort --version ">/dev/full"
	expect_status 2 "--help to a full stdout" sh -c "'$GPUSORT' --help >/dev/full"
	stderr_has "gpusort: write error" "--help: the write error is reported"
else
	skip_test "no /dev/full"
fi
same_as_sort --version ">&-"
same_as_sort --help ">&-"
expect_status 0 "a closed stdout that nothing is written to is no error" sh -c "'$GPUSORT' --type=u64 '$WORK/good' -o '$WORK/std.out' >&-"

: > "$WORK/empty"
expect_status 0 "empty input" "$GPUSORT" --type=u64 "$WORK/empty" -o "$WORK/empty.out"
test -f "$WORK/empty.out" && test ! -s "$WORK/empty.out"
tap_result $? "empty input gives an empty output file"
rm -f "$WORK/empty.out"

# Sizes are judged against the input before memory is planned: no input costs nothing
# whatever the sizes (a 1 TiB record cannot be allocated, so any planning would fail),
# and a record the memory budget cannot hold is refused naming the option. (A pipe that
# ends within the 64 KiB read before the engine is chosen is judged as a file is, by
# its size: the pipes below hold more.)
huge=1099511627776
expect_status 0 "1 TiB records, empty pipe" sh -c "'$GPUSORT' --record-size=$huge < /dev/null > '$WORK/std.out'"
test ! -s "$WORK/std.out" && test ! -s "$WORK/stderr"
tap_result $? "1 TiB records, empty pipe: empty output, no message"
expect_status 0 "1 TiB records, empty file, -o" "$GPUSORT" --record-size=$huge "$WORK/empty" -o "$WORK/empty.out"
test -f "$WORK/empty.out" && test ! -s "$WORK/empty.out"
tap_result $? "1 TiB records, empty file: the -o file is made, empty"
rm -f "$WORK/empty.out"
expect_status 0 "1 TiB records, -c on an empty pipe" sh -c "'$GPUSORT' -c --record-size=$huge < /dev/null"
expect_status 0 "1 TiB records, -m of empty inputs" sh -c "'$GPUSORT' -m --record-size=$huge '$WORK/empty' - < /dev/null"
expect_status 0 "4 GiB keys, empty pipe" sh -c "'$GPUSORT' --key-size=4294967295 < /dev/null"
expect_status 2 "1 TiB records, a pipe with data" sh -c "head -c 100000 /dev/zero | '$GPUSORT' --record-size=$huge"
stderr_has "gpusort: --record-size: records of $huge bytes do not fit the memory budget" "the record size is refused, naming --record-size"
expect_status 2 "a huge key offset, a pipe with data" sh -c "head -c 100000 /dev/zero | '$GPUSORT' --type=u32 --key-offset=$huge"
stderr_has "gpusort: --key-offset: records of $((huge + 4)) bytes do not fit" "the record size is refused, naming --key-offset"
expect_status 2 "1 MiB records under -S 1M" sh -c "head -c 1048576 /dev/zero | '$GPUSORT' --record-size=1048576 -S 1M"
stderr_has "gpusort: --record-size: records of 1048576 bytes do not fit the memory budget of 1048576 bytes (-S)" "the budget is named"
expect_status 2 "-m: 1 TiB records, a pipe with data" sh -c "head -c 100 '$WORK/good' | '$GPUSORT' -m --record-size=$huge '$WORK/empty' -"
stderr_has "gpusort: --record-size: records of $huge bytes" "-m refuses the record size too"
check "no temp file left after success" test -z "$(ls -A "$WORK/tmp")"
done_testing
