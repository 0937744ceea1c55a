#!/bin/sh
# SPDX-License-Identifier: MIT
# -c and -C of both modes, where the check's reader turns a block: disorder and -u's
# equal neighbours at the last record of a block, the first of the next and the one
# after; a line longer than the reader's first buffer; a last line without terminator;
# an input that is not whole records (judged before any disorder in a file, and at the
# end of a pipe). Messages are compared whole.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

# u64 keys 10, 20, 30, ...: COUNT of them, record AT (1-based) set to KEY; EXTRA bytes
# after them.
keys() {
	python3 -c '
import struct, sys
count, at, key, extra = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
keys = [10 * (i + 1) for i in range(count)]
if at:
    keys[at - 1] = key
sys.stdout.buffer.write(struct.pack("<%dQ" % count, *keys) + b"x" * extra)' "$@"
}
# expect_message CODE DESCRIPTION TEXT COMMAND...: exit CODE and stderr exactly TEXT
# (printf's format, so \n and \0 can be given).
expect_message() {
	code=$1 desc=$2 text=$3
	shift 3
	expect_status "$code" "$desc" "$@"
	printf "$text" > "$WORK/expected"
	cmp -s "$WORK/expected" "$WORK/stderr"
	tap_result $? "$desc: the message"
}

# The binary check reads 4 MiB at a time: 2^19 u64 records, 2^18 of 16 bytes.
block=524288
for at in $((block - 1)) $block $((block + 1)); do
	keys $((block + 8)) $at 5 0 > "$WORK/keys"
	expect_message 1 "u64 disorder at record $at" "gpusort: $WORK/keys: disorder at record $at\n" \
		"$GPUSORT" -c --type=u64 "$WORK/keys"
	expect_message 1 "u64 disorder at record $at, -C" "" "$GPUSORT" -C --type=u64 "$WORK/keys"
	expect_message 1 "u64 disorder at record $at, a pipe" \
		"gpusort: standard input: disorder at record $at\n" \
		sh -c "'$GPUSORT' -c --type=u64 < '$WORK/keys'"
	# record at equals the one before it
	keys $((block + 8)) $at $((10 * (at - 1))) 0 > "$WORK/keys"
	expect_message 0 "u64 equal neighbours at record $at" "" "$GPUSORT" -c --type=u64 "$WORK/keys"
	expect_message 1 "u64 equal neighbours at record $at, -u" \
		"gpusort: $WORK/keys: disorder at record $at\n" "$GPUSORT" -c -u --type=u64 "$WORK/keys"
done
keys $((2 * block + 8)) 0 0 0 > "$WORK/sorted"
expect_message 0 "u64 in order over three blocks" "" "$GPUSORT" -c -u --type=u64 "$WORK/sorted"
expect_message 1 "u64 in order, -r" "gpusort: $WORK/sorted: disorder at record 2\n" \
	"$GPUSORT" -c -r --type=u64 "$WORK/sorted"
# 16-byte records keyed by their second half: (key 10, key 20), (30, 40), ...
keys $((block + 16)) $((block + 2)) 7 0 > "$WORK/wide"
expect_message 1 "16-byte records, disorder at the first of a block" \
	"gpusort: $WORK/wide: disorder at record $((block / 2 + 1))\n" \
	"$GPUSORT" -c --type=u64 --record-size=16 --key-offset=8 "$WORK/wide"
# 12-byte keys, compared whole: 8 zero bytes, a big-endian count, 4 bytes that are not
# key (falling); records block/2 and block/2 + 1 (the first of a block) are equal.
python3 -c '
import struct, sys
n = int(sys.argv[1])
sys.stdout.buffer.write(b"".join(struct.pack(">QII", 0, i if i != n else n - 1, 99 - i % 50)
                                 for i in range(n + 8)))' $((block / 2)) > "$WORK/long_keys"
expect_message 0 "12-byte keys, equal neighbours" "" \
	"$GPUSORT" -c --type=bytes --record-size=16 --key-size=12 "$WORK/long_keys"
expect_message 1 "12-byte keys, equal neighbours, -u" \
	"gpusort: $WORK/long_keys: disorder at record $((block / 2 + 1))\n" \
	"$GPUSORT" -c -u --type=bytes --record-size=16 --key-size=12 "$WORK/long_keys"

# Not whole records: a file is judged by its size before any record is read; a pipe
# when its last block comes, which a disorder in an earlier block is found before.
keys 100 2 5 3 > "$WORK/odd"
expect_message 2 "a partial record in a file, disorder before it" \
	"gpusort: $WORK/odd: size 803 bytes is not a multiple of the record size 8\n" \
	"$GPUSORT" -c --type=u64 "$WORK/odd"
expect_message 2 "a partial record in a file, -C" \
	"gpusort: $WORK/odd: size 803 bytes is not a multiple of the record size 8\n" \
	"$GPUSORT" -C --type=u64 "$WORK/odd"
expect_message 2 "a partial record in a pipe, disorder in its last block" \
	"gpusort: standard input: size 803 bytes is not a multiple of the record size 8\n" \
	sh -c "cat '$WORK/odd' | '$GPUSORT' -c --type=u64"
keys $((block + 100)) 2 5 3 > "$WORK/odd"
expect_message 1 "a partial record in a pipe, disorder in an earlier block" \
	"gpusort: standard input: disorder at record 2\n" \
	sh -c "cat '$WORK/odd' | '$GPUSORT' -c --type=u64"
: > "$WORK/empty"
expect_message 0 "binary, an empty file" "" "$GPUSORT" -c -u --type=u64 "$WORK/empty"
expect_message 0 "text, an empty file" "" "$GPUSORT" -c -u "$WORK/empty"

# Text: the reader's first buffer holds 2 MiB, 2^18 lines of 8 bytes.
lines=262144
python3 -c '
import sys
n = int(sys.argv[1])
sys.stdout.write("".join("%07d\n" % (i if i != n else n - 1) for i in range(n + 8)))' $lines > "$WORK/lines"
expect_message 0 "text, equal neighbours at a block's first line" "" "$GPUSORT" -c "$WORK/lines"
expect_message 1 "text, equal neighbours at a block's first line, -u" \
	"gpusort: $WORK/lines:$((lines + 1)): disorder: $(printf %07d $((lines - 1)))\n" \
	"$GPUSORT" -c -u "$WORK/lines"
tr '\n' '\0' < "$WORK/lines" > "$WORK/lines0"
expect_message 1 "text -z, equal neighbours at a block's first line, -u" \
	"gpusort: $WORK/lines0:$((lines + 1)): disorder: $(printf %07d $((lines - 1)))\0" \
	"$GPUSORT" -c -u -z "$WORK/lines0"
python3 -c '
import sys
long, tail = "m" * (3 << 20), sys.argv[1]
sys.stdout.write("a\n" + long + "\n" + long + "\n" + long + tail + "\nn\nz\n")' x > "$WORK/long"
expect_message 0 "text, lines longer than the first buffer" "" "$GPUSORT" -c "$WORK/long"
expect_status 1 "text, lines longer than the first buffer, -u" "$GPUSORT" -c -u "$WORK/long"
{ printf 'gpusort: %s:3: disorder: ' "$WORK/long"; sed -n 3p "$WORK/long"; } > "$WORK/expected"
check "text, lines longer than the first buffer, -u: the message" cmp "$WORK/expected" "$WORK/stderr"
printf 'a\n%s\nb\n' "$(sed -n 2p "$WORK/long")" > "$WORK/long"
expect_message 1 "text, disorder after a long line" "gpusort: $WORK/long:3: disorder: b\n" \
	"$GPUSORT" -c "$WORK/long"
printf 'a\nc\nb' > "$WORK/noeol"
expect_message 1 "text, a last line without terminator out of order" \
	"gpusort: $WORK/noeol:3: disorder: b\n" "$GPUSORT" -c "$WORK/noeol"
printf 'a\nb\nb' > "$WORK/noeol"
expect_message 1 "text, a last line without terminator equal to the one before, -u" \
	"gpusort: -:3: disorder: b\n" sh -c "'$GPUSORT' -c -u < '$WORK/noeol'"
done_testing
