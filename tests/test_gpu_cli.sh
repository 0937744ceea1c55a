#!/bin/sh
# SPDX-License-Identifier: MIT
# The GPU through the command line: --device=0 must give byte-identical output to
# --device=cpu for every key type, bare keys and records (the 12- and 16-byte
# key+position items included), -r and -u, the seeds' distributions, sizes at the
# edges, and chunks spilled as runs under a small -S. --device=auto sorts small inputs
# on the CPU, so the other shell tests do not reach the GPU; this one asks for it.
# Skips without a GPU.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

keygen --type=u32 --count=3 --seed=1 -o "$WORK/probe"
if ! "$GPUSORT" --device=0 --type=u32 "$WORK/probe" -o "$WORK/probe.out" 2>"$WORK/stderr"; then
	echo "1..0 # SKIP no GPU: $(head -n 1 "$WORK/stderr")"
	exit 0
fi

# same_on_both DESCRIPTION INPUT OPTIONS...: GPU and CPU outputs identical, exit 0.
same_on_both() {
	desc=$1 input=$2
	shift 2
	rm -f "$WORK/gpu" "$WORK/cpu"
	"$GPUSORT" --device=0 "$@" "$input" -o "$WORK/gpu" 2>"$WORK/stderr" &&
		"$GPUSORT" --device=cpu "$@" "$input" -o "$WORK/cpu" 2>>"$WORK/stderr" &&
		cmp -s "$WORK/gpu" "$WORK/cpu"
	status=$?
	tap_result $status "$desc"
	[ $status -eq 0 ] || sed 's/^/# /' "$WORK/stderr" | head -5
}

for dist in uniform normal poisson bucket sorted reverse all-equal few-unique; do
	for count in 0 1 2 4099 65537 1000003; do
		keygen --type=u32 --count=$count --dist=$dist --seed=5 -o "$WORK/u32"
		same_on_both "u32 keys, $dist, $count" "$WORK/u32" --type=u32
	done
	keygen --type=u64 --count=1048577 --dist=$dist --seed=6 -o "$WORK/u64"
	same_on_both "u64 keys, $dist, 2^20+1" "$WORK/u64" --type=u64
	same_on_both "u64 keys, $dist, 2^20+1, -r" "$WORK/u64" --type=u64 -r
	same_on_both "u64 keys, $dist, 2^20+1, -u" "$WORK/u64" --type=u64 -u
	keygen --type=u32 --count=300007 --dist=$dist --seed=7 --record-size=24 --key-offset=8 -o "$WORK/rec"
	same_on_both "u32 keys in 24-byte records, $dist" "$WORK/rec" --type=u32 --record-size=24 --key-offset=8
	keygen --type=u64 --count=300007 --dist=$dist --seed=12 --record-size=16 -o "$WORK/rec16"
	same_on_both "u64 keys in 16-byte records (12-byte items), $dist" "$WORK/rec16" --type=u64 --record-size=16
	same_on_both "u64 keys in 16-byte records, $dist, -r -u" "$WORK/rec16" --type=u64 --record-size=16 -r -u
	keygen --type=bytes --count=200003 --dist=$dist --seed=13 --record-size=32 --key-size=16 -o "$WORK/rec32"
	same_on_both "16-byte keys in 32-byte records (12-byte prefix items), $dist" "$WORK/rec32" --record-size=32 --key-size=16
	keygen --type=bytes --count=200003 --dist=$dist --seed=8 --record-size=100 --key-size=10 -o "$WORK/rec100"
	same_on_both "10-byte keys in 100-byte records, $dist" "$WORK/rec100" --record-size=100 --key-size=10
	same_on_both "10-byte keys in 100-byte records, $dist, -r -u" "$WORK/rec100" --record-size=100 --key-size=10 -r -u
done
for type in i32 i64 f32 f64; do
	keygen --type=$type --count=500009 --dist=normal --seed=9 -o "$WORK/typed"
	same_on_both "$type keys" "$WORK/typed" --type=$type
	same_on_both "$type keys, -r" "$WORK/typed" --type=$type -r
done
# Chunks sorted on the GPU and spilled as runs, then merged.
keygen --type=u64 --count=4194304 --dist=uniform --seed=10 -o "$WORK/big"
same_on_both "u64 keys, -S 8M: runs sorted on the GPU" "$WORK/big" --type=u64 -S 8M
keygen --type=bytes --count=1000000 --dist=few-unique --seed=11 --record-size=100 --key-size=10 -o "$WORK/bigrec"
same_on_both "100-byte records, -S 16M: runs sorted on the GPU" "$WORK/bigrec" --record-size=100 --key-size=10 -S 16M
# Host items of 16 MiB and more are locked in place chunk by chunk for the copies
# (kernels/gpu_backend.cu): 2^23+3 keys are two copy chunks, the second ending inside a
# page; the same bytes through the staging buffers alone (GPUSORT_HOST_REGISTER=0).
keygen --type=u64 --count=8388611 --dist=normal --seed=12 -o "$WORK/huge"
same_on_both "u64 keys, 2^23+3: host items locked in place" "$WORK/huge" --type=u64
GPUSORT_HOST_REGISTER=0 "$GPUSORT" --device=0 --type=u64 "$WORK/huge" -o "$WORK/staged" &&
	cmp -s "$WORK/staged" "$WORK/cpu"
tap_result $? "u64 keys, 2^23+3, GPUSORT_HOST_REGISTER=0: the same through the staging buffers"
keygen --type=bytes --count=1200007 --dist=uniform --seed=13 --record-size=100 --key-size=10 -o "$WORK/huge"
same_on_both "10-byte keys in 100-byte records, 1200007: 16-byte items locked in place" "$WORK/huge" \
	--record-size=100 --key-size=10
rm -f "$WORK/huge" "$WORK/staged"
# The GPU really sorted: --stats names it.
"$GPUSORT" --device=0 --stats --type=u64 "$WORK/big" -o "$WORK/gpu" 2>"$WORK/stderr"
grep -q "stats: engine gpu 0" "$WORK/stderr"
tap_result $? "--device=0 --stats names the GPU"
# The command tells the driver of its one GPU alone (CUDA_VISIBLE_DEVICES), keeping the
# device numbers: the last GPU sorts under its own number, as it did with all visible.
last=$(($(nvidia-smi -L 2>/dev/null | grep -c '^GPU') - 1))
if [ "$last" -ge 1 ] && [ -z "${CUDA_VISIBLE_DEVICES+set}" ]; then
	"$GPUSORT" --device=cpu --type=u64 "$WORK/big" -o "$WORK/cpu" &&
		"$GPUSORT" --device=$last --stats --type=u64 "$WORK/big" -o "$WORK/gpu" 2>"$WORK/stderr" &&
		grep -q "stats: engine gpu $last (" "$WORK/stderr" && cmp -s "$WORK/gpu" "$WORK/cpu"
	tap_result $? "--device=$last sorts on GPU $last alone, as --device=cpu"
	expect_status 2 "--device=$((last + 1)) still fails" \
		"$GPUSORT" --device=$((last + 1)) --type=u64 "$WORK/big" -o "$WORK/gpu"
else
	skip_test "one GPU, or CUDA_VISIBLE_DEVICES set: no other GPU to number"
	skip_test "one GPU, or CUDA_VISIBLE_DEVICES set: no other GPU to number"
fi
done_testing
