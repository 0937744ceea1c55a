#!/bin/sh
# SPDX-License-Identifier: MIT
# Composite binary keys (--key-field, database ORDER BY): several typed fields, each
# ascending or descending, on all eight distributions of keygen, with NaNs and -0.0 in
# the float fields; -r, -u, in memory, spilled into many runs, -m over sorted inputs,
# -c/-C; every output compared byte for byte with tests/binary_oracle.py (Python's
# stable sorted() with a tuple key, one run for a group of cases); and the messages for bad field specifications.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

RECORD=48
# The fields of a record (each drawn by keygen from the distribution):
#   0 u32 (8 values: ties)   4 f64 (NaN, -0.0, ties)   12 bytes[10]   22 2 spare bytes
#   24 i64   32 f32   36 i32   40 u64 position (tells equal keys apart: stability)
make_records() { # COUNT DIST SEED OUT
	for spec in u32:4 f64:8 i64:8 f32:4 i32:4; do
		type=${spec%:*}
		keygen --type="$type" --count="$1" --dist="$2" --seed=$(($3 + ${#type})) -o "$WORK/field.$type"
	done
	keygen --type=bytes --key-size=10 --count="$1" --dist="$2" --seed=$(($3 + 7)) -o "$WORK/field.bytes"
	python3 - "$1" "$3" "$WORK" "$4" <<'EOF'
import random, struct, sys
count, seed, work, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
rng = random.Random(seed)
def column(name, size):
    data = open(f"{work}/field.{name}", "rb").read()
    return [data[i * size:(i + 1) * size] for i in range(count)]
u32, f64, i64, f32, i32, raw = (column("u32", 4), column("f64", 8), column("i64", 8),
                                 column("f32", 4), column("i32", 4), column("bytes", 10))
special = [struct.pack("<d", v) for v in (0.0, -0.0, float("nan"), 1.0)]
special32 = [struct.pack("<f", v) for v in (0.0, -0.0, float("nan"))]
records = []
for i in range(count):
    top = struct.pack("<I", struct.unpack("<I", u32[i])[0] >> 29)  # keeps the order, makes ties
    f = f64[i] if rng.random() < 0.75 else rng.choice(special)     # ties, -0.0 == 0.0, NaN
    g = f32[i] if rng.random() < 0.8 else rng.choice(special32)
    b = raw[i] if rng.random() < 0.5 else raw[i][:3] + bytes(7)     # ties past 8 bytes' prefix
    records.append(top + f + b + b"\xee\xee" + i64[i] + g + i32[i] + struct.pack("<Q", i))
open(out, "wb").write(b"".join(records))
EOF
}

CASE_OPTIONS=--record-size=$RECORD
. "$TESTS_SRCDIR/oracle_queue_lib.sh"

# The keys: the image wider than the items' 8 bytes (ties finished field by field), of
# 16 bytes, of 8 (exact 64-bit items), of 10 (80-bit items), of 3 (32-bit items).
KEY_WIDE="--key-field=u32:0 --key-field=f64:4:desc --key-field=bytes:12:10"
KEY_16="--key-field=f64:4:desc --key-field=i64:24"
KEY_8="--key-field=f32:32:desc --key-field=i32:36:asc"
KEY_10="--key-field=u32:0:desc --key-field=bytes:12:6"
KEY_3="--key-field=bytes:12:2:desc --key-field=bytes:14:1"

DISTS="uniform normal poisson bucket sorted reverse all-equal few-unique"
seed=1
for dist in $DISTS; do
	seed=$((seed + 10))
	make_records 3001 $dist $seed "$WORK/rec.$dist"
	for key in "$KEY_WIDE" "$KEY_16" "$KEY_8" "$KEY_10" "$KEY_3"; do
		for flags in "" "-r" "-u" "-r -u"; do
			queue_case "$dist: $key${flags:+ $flags}" "$key $flags" "$WORK/rec.$dist"
		done
	done
done
flush_cases
rm -f "$WORK"/rec.*

# Spilled: inputs of 60000 records under -S 1M sort in many runs (and merge passes)
for dist in $DISTS; do
	seed=$((seed + 10))
	make_records 60000 $dist $seed "$WORK/big.$dist"
	queue_case "$dist, spilled: $KEY_WIDE" "$KEY_WIDE" "$WORK/big.$dist" -S 1M
	queue_case "$dist, spilled: $KEY_16 -r -u, --batch-size=2" "$KEY_16 -r -u" "$WORK/big.$dist" -S 1M --batch-size=2
done
flush_cases
big="$WORK/big.few-unique"
"$GPUSORT" --record-size=$RECORD $KEY_WIDE -S 1M --stats "$big" -o "$WORK/spilled" 2>"$WORK/stats"
runs=$(sed -n 's/.*records [0-9]*, runs \([0-9]*\),.*/\1/p' "$WORK/stats")
[ "${runs:-0}" -ge 10 ]
tap_result $? "-S 1M spills $runs runs of the 60000 records"
queue_case "the same key in memory and spilled: one output" "$KEY_WIDE" "$big"
flush_cases
cmp -s "$WORK/spilled" "$WORK/got.1"
tap_result $? "-S 1M and in memory agree byte for byte"
rm -f "$WORK"/big.*

# -m over inputs sorted by the same key (ties: the earlier input first, as the stable
# sort of their concatenation); -m -u; -m -r; more inputs than --batch-size
# (the sorted inputs and the expected outputs of all four distributions from one Python)
flags_tag() { echo "$flags" | tr -d ' -'; }
for dist in uniform few-unique all-equal reverse; do
	seed=$((seed + 10))
	make_records 9000 $dist $seed "$WORK/whole.$dist"
	for part in 0 1 2 3 4; do
		dd if="$WORK/whole.$dist" of="$WORK/part$part.$dist" bs=$RECORD skip=$((part * 1800)) count=1800 2>/dev/null
		for order in "" "-r"; do
			echo "--record-size=$RECORD $KEY_WIDE $order $WORK/part$part.$dist $WORK/sorted$part$order.$dist" >>"$WORK/jobs"
		done
	done
	for flags in "" "-u" "-r" "-r -u"; do
		echo "--record-size=$RECORD $KEY_WIDE $flags $WORK/whole.$dist $WORK/want$(flags_tag).$dist" >>"$WORK/jobs"
	done
done
oracle --batch="$WORK/jobs"
: >"$WORK/jobs"
for dist in uniform few-unique all-equal reverse; do
	for flags in "" "-u" "-r" "-r -u"; do
		order=${flags%-u}
		order=${order% }
		names=""
		for part in 0 1 2 3 4; do
			names="$names $WORK/sorted$part$order.$dist"
		done
		want="$WORK/want$(flags_tag).$dist"
		# shellcheck disable=SC2086
		"$GPUSORT" -m --record-size=$RECORD $KEY_WIDE $flags $names -o "$WORK/got" 2>"$WORK/stderr" &&
			cmp -s "$WORK/got" "$want"
		tap_result $? "-m${flags:+ $flags} of 5 sorted inputs, $dist"
		# shellcheck disable=SC2086
		"$GPUSORT" -m --batch-size=2 --record-size=$RECORD $KEY_WIDE $flags $names -o "$WORK/got" 2>"$WORK/stderr" &&
			cmp -s "$WORK/got" "$want"
		tap_result $? "-m${flags:+ $flags} --batch-size=2 (merge passes), $dist"
	done
done

# -c/-C: sorted output in order, the input not (its first disorder named), -u on
# duplicates, and -r against the ascending order
make_records 5000 few-unique 99 "$WORK/rec"
# (the last job sorts the first's output again: the oracle's fixed point, checked below)
cat >"$WORK/jobs" <<EOF
--record-size=$RECORD $KEY_WIDE $WORK/rec $WORK/sorted
--record-size=$RECORD $KEY_WIDE -u $WORK/rec $WORK/unique
--record-size=$RECORD $KEY_WIDE $WORK/sorted $WORK/resorted
EOF
oracle --batch="$WORK/jobs"
: >"$WORK/jobs"
check_status() { # CODE DESCRIPTION ARGS...
	code=$1 desc=$2
	shift 2
	# shellcheck disable=SC2086
	expect_status "$code" "$desc" "$GPUSORT" --record-size=$RECORD $KEY_WIDE "$@"
}
check_status 0 "-c: the oracle's output is in order" -c "$WORK/sorted"
check_status 0 "-C: the oracle's output is in order" -C "$WORK/sorted"
check_status 0 "-c -u: the oracle's -u output is in order" -c -u "$WORK/unique"
check_status 1 "-c -u: equal keys are disorder" -c -u "$WORK/sorted"
stderr_has "gpusort: $WORK/sorted: disorder at record" "-c -u names the first duplicate"
check_status 1 "-c -r: the ascending order is not the reversed" -c -r "$WORK/sorted"
# the first record out of order under the oracle's key, counted from 1
first=$(python3 - "$TESTS_SRCDIR" "$WORK/rec" $RECORD $KEY_WIDE <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
import binary_oracle
data, size = open(sys.argv[2], "rb").read(), int(sys.argv[3])
key = binary_oracle.composite_key([a.split("=", 1)[1] for a in sys.argv[4:]], False)
keys = [key(data[i:i + size]) for i in range(0, len(data), size)]
print(next(i + 1 for i in range(1, len(keys)) if keys[i - 1] > keys[i]))
EOF
)
check_status 1 "-c: the unsorted input" -c "$WORK/rec"
stderr_has "gpusort: $WORK/rec: disorder at record $first" "-c names the input and its first disorder, record $first"
check_status 1 "-C: the unsorted input, silently" -C "$WORK/rec"
[ ! -s "$WORK/stderr" ]
tap_result $? "-C says nothing"
# the record -c names is the first out of order under the composite key
cmp -s "$WORK/sorted" "$WORK/resorted"
tap_result $? "the oracle's sorted output is a fixed point of the oracle"

# bad specifications: what is wrong, GNU-style, exit 2
bad_spec() { # DESCRIPTION MESSAGE ARGS...
	desc=$1 message=$2
	shift 2
	expect_status 2 "$desc" "$GPUSORT" "$@" "$WORK/rec"
	stderr_has "$message" "$desc: the message"
}
bad_spec "unknown type" "gpusort: invalid key field specification 'u16:0': unknown type 'u16'" \
	--record-size=48 --key-field=u16:0
bad_spec "no offset" "gpusort: invalid key field specification 'u32': the offset is missing" \
	--record-size=48 --key-field=u32
bad_spec "a bad offset" "gpusort: invalid key field specification 'u32:x4': invalid offset 'x4'" \
	--record-size=48 --key-field=u32:x4
bad_spec "a size not the type's" "gpusort: invalid key field specification 'u32:0:8': size 8 does not match u32 (4 bytes)" \
	--record-size=48 --key-field=u32:0:8
bad_spec "a bytes field of size 0" "gpusort: invalid key field specification 'bytes:0:0': invalid size '0'" \
	--record-size=48 --key-field=bytes:0:0
bad_spec "an unknown direction" "gpusort: invalid key field specification 'f64:8:down': 'down' is neither a size nor asc or desc" \
	--record-size=48 --key-field=f64:8:down
bad_spec "too many parts" "gpusort: invalid key field specification 'bytes:0:4:desc:x': too many parts" \
	--record-size=48 --key-field=bytes:0:4:desc:x
bad_spec "a field past the record's end" \
	"gpusort: invalid key field specification 'u64:44': the field (bytes 44 to 51) extends beyond the record (--record-size=48)" \
	--record-size=48 --key-field=u32:0 --key-field=u64:44
bad_spec "a bytes field past the record's end" \
	"gpusort: invalid key field specification 'bytes:40:10:desc': the field (bytes 40 to 49) extends beyond the record (--record-size=48)" \
	--record-size=48 --key-field=bytes:40:10:desc
bad_spec "an offset past the record" \
	"gpusort: invalid key field specification 'i32:48': offset 48 is not inside the record (--record-size=48)" \
	--record-size=48 --key-field=i32:48
bad_spec "no --record-size" "gpusort: --key-field needs --record-size" --key-field=u32:0
bad_spec "with --type" "gpusort: --key-field cannot be combined with --type, --key-offset or --key-size" \
	--record-size=48 --type=u32 --key-field=u32:0
bad_spec "with --key-offset=0" "gpusort: --key-field cannot be combined with --type, --key-offset or --key-size" \
	--record-size=48 --key-offset=0 --key-field=u32:0
bad_spec "with a text key" "gpusort: text keys (-k KEYDEF) cannot be combined with binary record options" \
	--record-size=48 --key-field=u32:0 -k 1,1
grep -q "Try 'gpusort --help'" "$WORK/stderr"
tap_result $? "usage errors point to --help"

# a bytes field without SIZE is the rest of the record; asc is the default
queue_case "bytes:40 is the rest of the record (the position)" "--key-field=bytes:40" "$WORK/rec"
flush_cases
"$GPUSORT" --record-size=$RECORD --key-field=bytes:40:8 "$WORK/rec" | cmp -s - "$WORK/got.1"
tap_result $? "... the same as bytes:40:8"
queue_case "asc and the default agree" "--key-field=u32:0:asc --key-field=f64:4:asc" "$WORK/rec"
flush_cases

done_testing
