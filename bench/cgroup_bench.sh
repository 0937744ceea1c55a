#!/bin/bash
# SPDX-License-Identifier: MIT
# Larger than host memory, for real, at full size: one external sort of random u64 keys
# inside a memory cgroup whose limit counts the page cache (tests/cgroup_lib.sh: v2's
# memory.max, or v1's memory.limit_in_bytes), the input written back and dropped from
# the page cache first so that its reading is charged there too. Prints the wall time,
# gpusort's peak RSS, the cgroup's peak and OOM kills, the --stats stages, and checks
# the output with tests/sortcheck and that no temp file is left. Exits 0 only when all
# of that holds; 77 when no memory cgroup can be made here (the reason is printed).
# Usage: bench/cgroup_bench.sh [GPUSORT] [TOOLS_DIR] [COUNT] [LIMIT] [SORT_OPTION...]
#   defaults: ./gpusort ./tests 2147483648 (16 GiB) 4G -S 2G --gpu-memory=1G
#   BENCH_DIR: where the input, the temp files and the output go (default $TMPDIR or /tmp)
set -u
gpusort=${1:-./gpusort}
tools=${2:-./tests}
count=${3:-2147483648}
limit=$(numfmt --from=iec "${4:-4G}")
shift $(($# < 4 ? $# : 4))
[ $# -gt 0 ] || set -- -S 2G --gpu-memory=1G
. "$(dirname "$0")/../tests/cgroup_lib.sh"

dir=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/gpusort-cgroup-bench.XXXXXX")
trap 'cgroup_remove; rm -rf "$dir"' EXIT
mkdir "$dir/tmp"
filesystem=$(stat -f -c %T "$dir")
if [ "$filesystem" = tmpfs ] || [ "$filesystem" = ramfs ]; then
	echo "skip: $dir is on $filesystem, whose pages cannot leave memory"
	exit 77
fi
if ! cgroup_create gpusort-bench "$limit"; then
	echo "skip: $CGROUP_SKIP"
	exit 77
fi
echo "cgroup v$CGROUP_VERSION $CGROUP, limit $((limit >> 20)) MiB; $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo) GiB RAM; $dir on $filesystem"

"$tools/keygen" --type=u64 --count="$count" --seed=1 -o "$dir/input" || exit 1
bytes=$(wc -c < "$dir/input")
sync "$dir/input" && dd if="$dir/input" iflag=nocache count=0 status=none
echo "input: $count u64 keys ($((bytes >> 20)) MiB, $((bytes / limit)).$((bytes * 10 / limit % 10))x the limit); gpusort $*"

start=$(date +%s.%N)
cgroup_exec /usr/bin/time -f "%M" -o "$dir/rss" "$gpusort" --type=u64 --stats -T "$dir/tmp" "$@" \
	"$dir/input" -o "$dir/out" 2> "$dir/stats"
status=$?
end=$(date +%s.%N)
kills=$(cgroup_oom_kills)
peak=$(cgroup_peak_bytes)
cgroup_remove
sed 's/^gpusort: stats: /  /' "$dir/stats"
rss_kib=$(tail -n 1 "$dir/rss")
awk -v a="$start" -v b="$end" -v s="$status" -v r="$rss_kib" -v p="${peak:-0}" -v k="${kills:-?}" \
	-v l="$limit" -v n="$bytes" 'BEGIN {
	printf "| exit | wall s | MB/s | peak RSS MiB | cgroup peak MiB | limit MiB | oom_kill |\n|---|---|---|---|---|---|---|\n"
	printf "| %d | %.1f | %.0f | %.0f | %.0f | %.0f | %s |\n", s, b - a, n / (b - a) / 1e6, r / 1024, p / 1048576, l / 1048576, k }'

failed=0
[ "$status" -eq 0 ] || { echo "FAIL: gpusort exited $status"; failed=1; }
[ "$kills" = 0 ] || { echo "FAIL: OOM kills in the cgroup: $kills"; failed=1; }
if [ -z "$(ls -A "$dir/tmp")" ]; then echo "temp directory empty"; else echo "FAIL: temp files left"; failed=1; fi
if [ "$status" -eq 0 ]; then
	if "$tools/sortcheck" --type=u64 "$dir/input" "$dir/out"; then
		echo "output verified (sortcheck: sorted and a permutation of the input)"
	else
		echo "FAIL: sortcheck"
		failed=1
	fi
fi
exit $failed
