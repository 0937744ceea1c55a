#!/bin/sh
# SPDX-License-Identifier: MIT
# Binary records end to end: every key type, bare keys and records with payload, -r, -u,
# stability, sizes at the edges, several inputs, stdin/stdout, -o naming an input, -c/-C;
# each output compared with the Python oracle (a plain stable sort, one run for a group
# of cases) byte for byte.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

. "$TESTS_SRCDIR/oracle_queue_lib.sh"

for type in u32 i32 u64 i64 f32 f64; do
	for dist in uniform few-unique; do
		bare="$WORK/bare.$type.$dist" rec="$WORK/rec.$type.$dist"
		keygen --type=$type --count=5003 --dist=$dist --seed=3 -o "$bare"
		queue_case "$type bare keys, $dist" "--type=$type" "$bare"
		keygen --type=$type --count=5003 --dist=$dist --seed=4 --record-size=24 --key-offset=8 -o "$rec"
		queue_case "$type records, $dist" "--type=$type --record-size=24 --key-offset=8" "$rec"
		queue_case "$type records, $dist, -r" "--type=$type --record-size=24 --key-offset=8 -r" "$rec"
		queue_case "$type records, $dist, -u" "--type=$type --record-size=24 --key-offset=8 -u" "$rec"
		queue_case "$type records, $dist, -r -u" "--type=$type --record-size=24 --key-offset=8 -r -u" "$rec"
	done
done

# bytes keys: short (exact prefix), 10 bytes (80-bit packing), long (prefix + ties)
for size in 3 10 20; do
	rec="$WORK/rec.bytes$size"
	keygen --type=bytes --key-size=$size --count=4099 --dist=few-unique --seed=5 --record-size=32 --key-offset=2 -o "$rec"
	queue_case "bytes key of $size, few-unique" "--type=bytes --key-size=$size --record-size=32 --key-offset=2" "$rec"
	queue_case "bytes key of $size, few-unique, -r -u" "--type=bytes --key-size=$size --record-size=32 --key-offset=2 -r -u" "$rec"
done
keygen --type=bytes --key-size=10 --count=3001 --dist=uniform --seed=6 --record-size=100 -o "$WORK/rec.100"
queue_case "Sort Benchmark records (--record-size=100 --key-size=10)" "--record-size=100 --key-size=10" "$WORK/rec.100"

# every distribution and edge sizes, u64 records with payload
for dist in uniform normal poisson bucket sorted reverse all-equal few-unique; do
	for n in 0 1 2 7 65535 65537; do
		rec="$WORK/rec.u64.$dist.$n"
		keygen --type=u64 --count=$n --dist=$dist --seed=7 --record-size=16 -o "$rec"
		queue_case "u64 records, $dist, n=$n" "--type=u64 --record-size=16" "$rec"
	done
done
flush_cases
rm -f "$WORK"/bare.* "$WORK"/rec.*

# the key-file form and the default type u32
keygen --type=u32 --count=100003 --seed=8 -o "$WORK/keys.bin"
"$GPUSORT" -k "$WORK/keys.bin" -o "$WORK/sorted.bin"
tap_result $? "gpusort -k input.bin -o out.bin exits 0"
check "-k input.bin output sorted and a permutation" sortcheck --type=u32 "$WORK/keys.bin" "$WORK/sorted.bin"
check "--device=cpu gives the same output" sh -c "'$GPUSORT' --device=cpu -k '$WORK/keys.bin' | cmp -s - '$WORK/sorted.bin'"
check "--parallel=1 gives the same output" sh -c "'$GPUSORT' --parallel=1 -k '$WORK/keys.bin' | cmp -s - '$WORK/sorted.bin'"

# several inputs are one stream; stdin with '-' and without arguments
keygen --type=u64 --count=1000 --seed=9 --record-size=16 -o "$WORK/a"
keygen --type=u64 --count=777 --seed=10 --record-size=16 -o "$WORK/b"
cat "$WORK/a" "$WORK/b" > "$WORK/ab"
oracle --type=u64 --record-size=16 "$WORK/ab" "$WORK/want"
"$GPUSORT" --type=u64 --record-size=16 "$WORK/a" "$WORK/b" > "$WORK/got"
check "two inputs concatenated, output on stdout" cmp "$WORK/got" "$WORK/want"
"$GPUSORT" --type=u64 --record-size=16 "$WORK/a" - < "$WORK/b" > "$WORK/got"
check "a file and '-' (stdin)" cmp "$WORK/got" "$WORK/want"
cat "$WORK/ab" | "$GPUSORT" --type=u64 --record-size=16 > "$WORK/got"
check "stdin pipe, no file arguments" cmp "$WORK/got" "$WORK/want"
cp "$WORK/ab" "$WORK/inplace"
"$GPUSORT" --type=u64 --record-size=16 "$WORK/inplace" -o "$WORK/inplace"
check "-o naming the input" cmp "$WORK/inplace" "$WORK/want"

# --files0-from: the inputs are the names in the list, as in text mode
printf '%s\0%s\0' "$WORK/a" "$WORK/b" > "$WORK/list"
"$GPUSORT" --type=u64 --record-size=16 --files0-from="$WORK/list" > "$WORK/got"
check "--files0-from names the inputs" cmp "$WORK/got" "$WORK/want"
"$GPUSORT" --type=u64 --record-size=16 --files0-from=- < "$WORK/list" > "$WORK/got"
check "--files0-from=- reads the list from stdin" cmp "$WORK/got" "$WORK/want"
oracle --type=u64 --record-size=16 "$WORK/a" "$WORK/sorted_a"
oracle --type=u64 --record-size=16 "$WORK/b" "$WORK/sorted_b"
printf '%s\0%s\0' "$WORK/sorted_a" "$WORK/sorted_b" > "$WORK/sorted_list"
"$GPUSORT" --type=u64 --record-size=16 -m --files0-from="$WORK/sorted_list" > "$WORK/got"
check "-m --files0-from merges the inputs of the list" cmp "$WORK/got" "$WORK/want"
# A bad list: sort's message (its text inputs fail the same way) and exit status.
same_list_error() { # DESCRIPTION LIST STDIN [OPTION]
	sort $4 --files0-from="$2" < "$3" > /dev/null 2> "$WORK/sort.err"
	want=$?
	"$GPUSORT" --type=u64 $4 --files0-from="$2" < "$3" > "$WORK/got" 2> "$WORK/stderr"
	got=$?
	sed 's/^sort:/gpusort:/' "$WORK/sort.err" | cmp -s - "$WORK/stderr" && [ $got -eq $want ] && [ ! -s "$WORK/got" ]
	tap_result $? "$1: exit $got, '$(cat "$WORK/stderr")' as sort"
}
: > "$WORK/empty_list"
same_list_error "an empty list" "$WORK/empty_list" /dev/null
printf '%s\0\0' "$WORK/a" > "$WORK/zero_list"
same_list_error "a zero-length name" "$WORK/zero_list" /dev/null
same_list_error "a list that is missing" "$WORK/missing_list" /dev/null
printf -- '-\0' > "$WORK/dash_list"
same_list_error "'-' in a list read from stdin" - "$WORK/dash_list"
same_list_error "-c with two names in the list" "$WORK/list" /dev/null -c

# -c and -C
expect_status 0 "-c on sorted input" "$GPUSORT" -c --type=u64 --record-size=16 "$WORK/want"
expect_status 1 "-c on unsorted input" "$GPUSORT" -c --type=u64 --record-size=16 "$WORK/ab"
stderr_has "disorder at record" "-c reports the first disorder"
expect_status 1 "-C on unsorted input" "$GPUSORT" -C --type=u64 --record-size=16 "$WORK/ab"
test ! -s "$WORK/stderr"
tap_result $? "-C is silent"
keygen --type=u32 --count=100 --dist=all-equal -o "$WORK/equal"
expect_status 0 "-c accepts equal keys" "$GPUSORT" -c --type=u32 "$WORK/equal"
expect_status 1 "-c -u rejects equal keys" "$GPUSORT" -c -u --type=u32 "$WORK/equal"
printf '\003\000\000\000\002\000\000\000' > "$WORK/two"
expect_status 1 "-c finds disorder at record 2" "$GPUSORT" -c --type=u32 "$WORK/two"
stderr_has "disorder at record 2" "-c names record 2"
expect_status 0 "-c -r accepts descending" "$GPUSORT" -c -r --type=u32 "$WORK/two"
# -u in memory goes slice by slice on the pool's threads (bare keys in slices of 2^20,
# records behind items in slices of 2^14 and blocks of 4 MiB up): repeats that straddle
# the slices' edges, at sizes just past them, with 4 threads
keygen --type=u64 --count=$((1048576 + 1)) --dist=poisson --seed=11 -o "$WORK/bare.u64"
queue_case "u64 bare keys, poisson, -u one past a slice" "--type=u64 -u" "$WORK/bare.u64" --parallel=4
queue_case "u64 bare keys, poisson, -r -u one past a slice" "--type=u64 -r -u" "$WORK/bare.u64" --parallel=4
keygen --type=u32 --count=$((1048576 + 3)) --dist=bucket --seed=12 -o "$WORK/bare.u32"
queue_case "u32 bare keys, bucket, -u three past a slice" "--type=u32 -u" "$WORK/bare.u32" --parallel=4
keygen --type=u32 --count=$((5 * 16384 + 1)) --dist=poisson --seed=13 --record-size=16 --key-offset=4 -o "$WORK/rec.u32"
queue_case "u32 records, poisson, -u past five gather slices" "--type=u32 --record-size=16 --key-offset=4 -u" "$WORK/rec.u32" --parallel=4
keygen --type=bytes --key-size=2 --count=$((48 * 1024 + 1)) --dist=uniform --seed=14 --record-size=100 -o "$WORK/rec.100"
queue_case "2-byte keys in 100-byte records, -u past a 4 MiB block" "--type=bytes --key-size=2 --record-size=100 -u" "$WORK/rec.100" --parallel=4

# Keys longer than 8 bytes whose first 8 bytes tie in long runs, across the tie
# finishing's slices of 2^16 items: four shared prefixes, then random bytes or none
python3 -c "
import random, sys
random.seed(15)
with open(sys.argv[1], 'wb') as f:
    for i in range(3 * 65536 + 5):
        tail = bytes(random.randrange(256) for _ in range(12)) if i % 3 else bytes(12)
        f.write(b'PREFIX%02d' % random.randrange(4) + tail + i.to_bytes(12, 'little'))
" "$WORK/rec"
queue_case "20-byte keys, first 8 bytes in four long runs" "--type=bytes --key-size=20 --record-size=32" "$WORK/rec" --parallel=4
queue_case "20-byte keys, first 8 bytes in four long runs, -r -u" "--type=bytes --key-size=20 --record-size=32 -r -u" "$WORK/rec" --parallel=4
flush_cases

done_testing
