#!/bin/bash
# SPDX-License-Identifier: MIT
# On the GPU machine: every way an in-memory sort puts its records out, at sizes where
# the output beside the GPU is mapped and faulted in (256 MiB to 4 GiB), sorted on the GPU
# (--device=0) and on the CPU threads (--device=cpu, written by pwrite): the two outputs
# byte-identical, the GPU's checked by sortcheck (or by the system sort, for text).
# Ends with "N passed, N failed".
# usage: bench/output_forms_check.sh BUILD_DIR [WORK_DIR] [MEGABYTES]
set -u
build=$(cd "${1:?usage: output_forms_check.sh BUILD_DIR [WORK_DIR] [MEGABYTES]}" && pwd)
work=${2:-/tmp/gpusort-forms}
mb=${3:-600}
mkdir -p "$work"
export LC_ALL=C
passed=0 failed=0
keygen=$build/tests/keygen

# check KIND MAKE -- ARGS...: KIND's input made by MAKE (a command writing to $input),
# sorted both ways with ARGS.
check() {
	kind=$1 make=$2
	shift 3
	input=$work/$kind
	[ -e "$input" ] || eval "$make"
	rm -f "$work/gpu" "$work/cpu"
	"$build/gpusort" --device=0 --stats "$@" "$input" -o "$work/gpu" 2>"$work/stats" &&
		"$build/gpusort" --device=cpu "$@" "$input" -o "$work/cpu" && cmp -s "$work/gpu" "$work/cpu"
	status=$?
	if [ $status -eq 0 ]; then
		case $kind in
		text) sort "$@" "$input" | cmp -s - "$work/gpu" ;;
		*) "$build/tests/sortcheck" "$@" "$input" "$work/gpu" >/dev/null ;;
		esac
		status=$?
	fi
	write=$(awk '$3 == "write" { print $4 }' "$work/stats")
	if [ $status -eq 0 ]; then
		passed=$((passed + 1))
		echo "ok - $kind $* ($(wc -c <"$input") bytes; GPU write stage ${write:-?} s)"
	else
		failed=$((failed + 1))
		echo "not ok - $kind $* ($(wc -c <"$input") bytes)"
		sed 's/^/#   /' "$work/stats" | head -5
	fi
}

n=$((mb << 20))
check u64 '$keygen --type=u64 --count=$((n / 8)) --seed=5 -o $input' -- --type=u64
check u32 '$keygen --type=u32 --count=$((n / 4)) --dist=few-unique --seed=6 -o $input' -- --type=u32 -u
check key32 '$keygen --type=u32 --record-size=8 --key-offset=4 --count=$((n / 8)) --seed=7 -o $input' -- \
	--type=u32 --record-size=8 --key-offset=4
check key64 '$keygen --type=i64 --record-size=16 --count=$((n / 16)) --dist=normal --seed=8 -o $input' -- \
	--type=i64 --record-size=16 -r
check key80 '$keygen --type=bytes --key-size=10 --record-size=100 --count=$((n / 100)) --seed=9 -o $input' -- \
	--type=bytes --record-size=100 --key-size=10
check key80 '' -- --type=bytes --record-size=100 --key-size=10 -u
check prefix '$keygen --type=bytes --key-size=20 --record-size=40 --count=$((n / 40)) --seed=10 -o $input' -- \
	--type=bytes --record-size=40 --key-size=20 -u
check text '$build/tests/textgen $((n / 14)) 11 >$input' -- -u
check text '' -- -k2n
rm -rf "$work"
echo "$passed passed, $failed failed"
