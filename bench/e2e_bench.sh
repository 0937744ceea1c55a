#!/bin/bash
# SPDX-License-Identifier: MIT
# End-to-end benchmark of the tool against its peers, in one run (the GPU machine):
#  1. a 2 GiB file of random u64 keys in the page cache: gpusort --type=u64 vs cp of
#     the same file vs a numpy-read + cupy.sort + tofile script;
#  2. 1 GB of 100-byte records whose 10-byte keys and payload are printable and which
#     end in a newline: gpusort --record-size=100 --key-size=10 vs LC_ALL=C sort
#     --parallel=N on the same bytes as text lines.
# usage: bench/e2e_bench.sh BUILD_DIR [WORK_DIR] [SORT_THREADS]
# Prints a table (median of 3 runs; cp and sort 3 runs too) and checks every output.
set -u
build=$(cd "${1:?usage: e2e_bench.sh BUILD_DIR [WORK_DIR] [SORT_THREADS]}" && pwd)
work=${2:-/tmp/gpusort-e2e}
threads=${3:-$(nproc)}
keys=$((1 << 28))
mkdir -p "$work"
export LC_ALL=C

median3() { sort -n | sed -n 2p; }
seconds() { # seconds COMMAND...: wall time of one run
	local s e
	s=$(date +%s.%N); "$@" >/dev/null 2>&1 || echo "FAILED: $*" >&2; e=$(date +%s.%N)
	awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f\n", e - s }'
}

[ -f "$work/keys.bin" ] || "$build/tests/keygen" --type=u64 --count=$keys --dist=uniform --seed=7 -o "$work/keys.bin"
cat "$work/keys.bin" > /dev/null

t_cp=$(for i in 1 2 3; do rm -f "$work/copy.bin"; seconds cp "$work/keys.bin" "$work/copy.bin"; done | median3)
rm -f "$work/copy.bin"
t_gs=$(for i in 1 2 3; do rm -f "$work/out.bin"; seconds "$build/gpusort" --type=u64 "$work/keys.bin" -o "$work/out.bin"; done | median3)
"$build/gpusort" --type=u64 --stats "$work/keys.bin" -o "$work/out.bin" 2>&1 | sed 's/^/  /'
"$build/tests/sortcheck" --type=u64 "$work/keys.bin" "$work/out.bin"

cat > "$work/cupy_sort.py" <<'PY'
import sys, numpy as np, cupy as cp
a = np.fromfile(sys.argv[1], dtype=np.uint64)
d = cp.sort(cp.asarray(a))
cp.asnumpy(d).tofile(sys.argv[2])
PY
t_cupy=na
if python3 -c 'import cupy' 2>/dev/null; then
	python3 "$work/cupy_sort.py" "$work/keys.bin" "$work/cupy.bin" # warm-up: CUDA context, kernels
	t_cupy=$(for i in 1 2 3; do seconds python3 "$work/cupy_sort.py" "$work/keys.bin" "$work/cupy.bin"; done | median3)
	cmp -s "$work/out.bin" "$work/cupy.bin" && echo "  cupy output identical" || echo "  CUPY OUTPUT DIFFERS"
fi
rm -f "$work/cupy.bin" "$work/out.bin"

# 10^7 records of 100 bytes: 10 printable key bytes, 89 printable payload bytes, '\n'.
if [ ! -f "$work/records.dat" ]; then
	python3 - "$work/records.dat" <<'PY'
import sys, numpy as np
n, rng = 10_000_000, np.random.default_rng(1)
r = rng.integers(32, 127, size=(n, 100), dtype=np.uint8)
r[:, 99] = 10
r.tofile(sys.argv[1])
PY
fi
cat "$work/records.dat" > /dev/null
t_rec=$(for i in 1 2 3; do rm -f "$work/rec.out"; seconds "$build/gpusort" --record-size=100 --key-size=10 "$work/records.dat" -o "$work/rec.out"; done | median3)
"$build/gpusort" --record-size=100 --key-size=10 --stats "$work/records.dat" -o "$work/rec.out" 2>&1 | sed 's/^/  /'
t_gnu=$(for i in 1 2 3; do seconds sort --parallel="$threads" -S 50% "$work/records.dat" -o "$work/rec.gnu"; done | median3)
cmp -s "$work/rec.out" "$work/rec.gnu" && echo "  records: gpusort output identical to GNU sort's" ||
	echo "  records: outputs differ (equal 10-byte keys keep input order in gpusort, whole-line order in sort)"
rm -f "$work/rec.out" "$work/rec.gnu"

echo
printf '%-52s %9s %9s\n' "end to end (median of 3)" "seconds" "ratio"
printf '%-52s %9s %9s\n' "cp 2 GiB (page cache)" "$t_cp" "1.00"
printf '%-52s %9s %9s\n' "gpusort --type=u64 2 GiB" "$t_gs" "$(awk -v a="$t_gs" -v b="$t_cp" 'BEGIN{printf "%.2f", a/b}')"
printf '%-52s %9s %9s\n' "numpy read + cupy.sort + tofile 2 GiB" "$t_cupy" "$(awk -v a="$t_cupy" -v b="$t_cp" 'BEGIN{ if (a+0>0) printf "%.2f", a/b; else print "na"}')"
printf '%-52s %9s\n' "gpusort --record-size=100 --key-size=10, 1 GB" "$t_rec"
printf '%-52s %9s %9s\n' "LC_ALL=C sort --parallel=$threads, same 1 GB as lines" "$t_gnu" "$(awk -v a="$t_gnu" -v b="$t_rec" 'BEGIN{printf "%.2fx", a/b}')"
