#!/bin/sh
# SPDX-License-Identifier: MIT
# Larger than memory for real: external sorts inside a memory cgroup whose limit, page
# cache counted, is a quarter of the input (u64 keys, 100-byte records with 10-byte keys,
# text lines), -S well below the limit. Each must end without an OOM kill, exit 0, put
# out the sorted permutation (tests/sortcheck, or the system sort for text) and leave
# the temp directory empty; the cgroup's high-water mark reaching the limit shows that
# the page cache of the bytes read and written was held to it. Skips, saying why, where
# no memory cgroup can be made (not root, no writable hierarchy with the controller) or
# where the temp directory is tmpfs, whose pages cannot leave memory. On the 2-core CI
# machine the memory controller is on a v1 hierarchy and the test runs there (a child of
# the cgroup it runs in); on the H100 machine, cgroup v2 (a child of /sys/fs/cgroup).
# GPUSORT_CGROUP_MIB (default 32) sets the limit; the inputs and -S scale with it.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/cgroup_lib.sh"
trap 'cgroup_remove; rm -rf "$WORK"' EXIT

limit_mib=${GPUSORT_CGROUP_MIB:-32}
limit=$((limit_mib << 20))
budget=$((limit_mib / 4))M
input_mib=$((limit_mib * 4))
mkdir "$WORK/tmp"

if [ -n "${GPUSORT_SANITIZED:-}" ]; then
	skip_test "ASan's shadow memory and quarantine count against the cgroup's limit (--enable-sanitizers)"
	done_testing
fi
filesystem=$(stat -f -c %T "$WORK")
if [ "$filesystem" = tmpfs ] || [ "$filesystem" = ramfs ]; then
	skip_test "the temp directory $WORK is $filesystem: its pages count and cannot leave memory"
	done_testing
fi
if ! cgroup_create gpusort-probe "$limit"; then
	skip_test "$CGROUP_SKIP"
	done_testing
fi
echo "# cgroup v$CGROUP_VERSION under $(dirname "$CGROUP"), limit $limit_mib MiB, -S $budget, inputs of $input_mib MiB"
cgroup_remove

# uncached FILE: written back and dropped from the page cache, so that the sort reads it
# inside the cgroup and its pages are charged there.
uncached() { sync "$1" && dd if="$1" iflag=nocache count=0 status=none; }

keygen --type=u64 --count=$((input_mib << 17)) --seed=41 -o "$WORK/keys"
keygen --type=bytes --record-size=100 --key-size=10 --count=$((input_mib * 10485)) --seed=42 -o "$WORK/records"
python3 -c '
import random, sys
random.seed(43)
out = sys.stdout
target = int(sys.argv[1]) << 20
written = 0
while written < target:
    line = "%016x %s\n" % (random.getrandbits(64), "x" * random.randrange(20, 80))
    out.write(line)
    written += len(line)
' "$((input_mib / 2))" > "$WORK/text"
LC_ALL=C sort "$WORK/text" > "$WORK/text.sorted"

# in_cgroup NAME VERIFY GPUSORT_ARGS...: sorts inside a fresh cgroup; VERIFY is run with
# the output's path as its last argument.
in_cgroup() {
	name=$1 verify=$2
	shift 2
	for file in "$WORK/keys" "$WORK/records" "$WORK/text"; do uncached "$file"; done
	if ! cgroup_create gpusort-test "$limit"; then
		skip_test "$name: $CGROUP_SKIP"
		return
	fi
	rm -f "$WORK/out"
	start=$(date +%s.%N)
	cgroup_exec /usr/bin/time -f %M -o "$WORK/rss" "$GPUSORT" --stats -S "$budget" -T "$WORK/tmp" "$@" \
		-o "$WORK/out" 2>"$WORK/stderr"
	status=$?
	end=$(date +%s.%N)
	kills=$(cgroup_oom_kills) peak=$(cgroup_peak_bytes)
	cgroup_remove
	echo "# $name: $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s, gpusort peak RSS $(($(tail -n 1 "$WORK/rss") >> 10)) MiB, cgroup peak $((${peak:-0} >> 20)) MiB of $limit_mib MiB"
	[ $status -eq 0 ]
	tap_result $? "$name: exits 0 under a $limit_mib MiB cgroup (exit $status)"
	[ $status -eq 0 ] || sed 's/^/#   /' "$WORK/stderr" | head -5
	[ "$kills" = 0 ]
	tap_result $? "$name: no OOM kill (oom_kill ${kills:-unreadable})"
	$verify "$WORK/out" >"$WORK/verify" 2>&1
	tap_result $? "$name: the output is the sorted input"
	test -z "$(ls -A "$WORK/tmp")"
	tap_result $? "$name: no temp file left"
	# the temp files' page-cache budget (io/cache_budget.h) is a tenth of the cgroup's
	# room at most, not of the machine's memory (one block over, where a run passed it)
	left=$(sed -n 's/.* \([0-9.]*\) MiB left to the page cache.*/\1/p' "$WORK/stderr")
	awk -v l="${left:-x}" -v m="$limit_mib" 'BEGIN { exit !(l != "x" && l + 0 <= m / 10 + 2) }'
	tap_result $? "$name: temp left to the page cache within the cgroup's share (${left:-none} MiB of $limit_mib)"
	if [ -n "$peak" ]; then
		# The sort itself holds about -S: the rest of a peak at the limit is page cache.
		[ "$peak" -ge $((limit / 4 * 3)) ]
		tap_result $? "$name: the page cache counts: the cgroup's peak reached the limit ($((peak >> 20)) MiB)"
	else
		skip_test "$name: the kernel keeps no memory high-water mark for cgroup v2 (memory.peak)"
	fi
}

check_keys() { sortcheck --type=u64 "$WORK/keys" "$1"; }
check_records() { sortcheck --type=bytes --record-size=100 --key-size=10 "$WORK/records" "$1"; }
check_text() { cmp "$WORK/text.sorted" "$1"; }

in_cgroup "u64 keys" check_keys --type=u64 "$WORK/keys"
in_cgroup "100-byte records" check_records --record-size=100 --key-size=10 "$WORK/records"
in_cgroup "text lines" check_text "$WORK/text"
done_testing
