#!/bin/bash
# SPDX-License-Identifier: MIT
# External vs in-memory binary sort, and both against the disk, in one run on one
# directory. A file of random u64 keys (or 100-byte records) is sorted with the default
# budget (in memory) and with a small -S (runs spilled compressed to the temp directory,
# then merged); each output is checked with tests/sortcheck. Then the floor: the directory's sequential
# write and read rates, measured with dd moving as many bytes as the external sort wrote
# to its runs, and each stage of that sort (--stats' spill and merge) against the time
# the disk alone needs for its bytes:
#   spill floor = temp bytes / write rate           (the runs are written once)
#   merge floor = temp bytes / read rate + output bytes / write rate
#                                                    (the runs read back, the output written)
# The write rate is dd of buffered writes with conv=fdatasync (the page cache path that
# gpusort's writes take, timed until the bytes are on the disk); the read rate is dd of
# the same file after it was flushed and dropped from the page cache (iflag=nocache,
# posix_fadvise DONTNEED), so it is read cold. On tmpfs neither touches a disk and the
# "floor" is the memory's copy rate. The input is read from the page cache in every run.
# A ratio below 1 means the stage beat the disk: its bytes stayed in the page cache.
#
# Usage: bench/external_bench.sh [GPUSORT] [TOOLS_DIR] [COUNT] [REPEATS]
#   GPUSORT    the binary (default ./gpusort); TOOLS_DIR holds keygen and sortcheck
#   COUNT      u64 keys or records (default 268435456); REPEATS runs of each sort (best kept)
# Environment:
#   BENCH_DIR       where input, temp files and outputs go (default $TMPDIR or /tmp)
#   EXTERNAL_ARGS   the external sort's options (default -S input/8), e.g. the issue's
#                   "-S 2G --gpu-memory=1G"
#   GPUSORT_ARGS    options for both sorts (e.g. --device=cpu)
#   BENCH_RECORDS   1: COUNT 100-byte records with 10-byte random keys (as gensort's)
#                   instead of u64 keys
#   BASELINE        another gpusort build (e.g. an older commit built beside this one):
#                   its external sort is timed in the same run, with the same options
#   BENCH_CGROUP    a memory limit (e.g. 4G): the external sort runs inside a memory
#                   cgroup of that size, page cache counted (tests/cgroup_lib.sh), so that
#                   on a machine with memory to spare its runs and output cannot stay in
#                   the page cache and the disk is what it waits for
set -e
. "$(dirname "$0")/../tests/cgroup_lib.sh"
gpusort=${1:-./gpusort}
tools=${2:-./tests}
count=${3:-268435456}
repeats=${4:-2}
dir=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/gpusort-external-bench.XXXXXX")
trap 'cgroup_remove; rm -rf "$dir"' EXIT
mkdir "$dir/tmp"
input=$dir/input
if [ "${BENCH_RECORDS:-0}" = 1 ]; then
	layout="--record-size=100 --key-size=10" checked="--type=bytes $layout" what="100-byte records"
	"$tools/keygen" --type=bytes --record-size=100 --key-size=10 --count="$count" --seed=1 -o "$input"
else
	layout="--type=u64" checked="--type=u64" what="u64 keys"
	"$tools/keygen" --type=u64 --count="$count" --seed=1 -o "$input"
fi
bytes=$(wc -c < "$input")
external_args=${EXTERNAL_ARGS:--S $((bytes / 8 / 1048576))M} # a bare number would mean KiB
cat "$input" > /dev/null  # every run starts from the page cache

# stat_field STAGE COLUMN: a --stats stage row's column (1 seconds, 2 MiB) of run $name.
stat_field() { awk -v s="$1" -v c="$2" '$3 == s && $4 ~ /^[0-9.]+$/ { print $(c + 3); exit }' "$dir/stats.$name"; }

# run NAME GPUSORT ARGS...: the best of $repeats wall times; prints one table row and
# keeps that run's --stats in $dir/stats.NAME.
run() {
	name=$1 binary=$2
	shift 2
	best=
	for _ in $(seq "$repeats"); do
		launcher=
		if [ "$name" != in-memory ] && [ -n "${BENCH_CGROUP:-}" ]; then
			cgroup_create gpusort-external-bench "$(numfmt --from=iec "$BENCH_CGROUP")" ||
				{ echo "BENCH_CGROUP: $CGROUP_SKIP" >&2; exit 1; }
			launcher=cgroup_exec
		fi
		# shellcheck disable=SC2086
		$launcher /usr/bin/time -f "%e %M %P" -o "$dir/time" "$binary" $layout --stats -T "$dir/tmp" \
			${GPUSORT_ARGS:-} "$@" "$input" -o "$dir/out" 2> "$dir/stats"
		if [ -n "$launcher" ]; then
			echo "(in a cgroup v$CGROUP_VERSION of $BENCH_CGROUP: peak $(($(cgroup_peak_bytes) >> 20)) MiB, OOM kills $(cgroup_oom_kills))" >> "$dir/notes"
			cgroup_remove
		fi
		read -r seconds rss cpu < "$dir/time"
		if [ -z "$best" ] || awk -v a="$seconds" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$seconds
			best_rss=$rss
			best_cpu=$cpu
			cp "$dir/stats" "$dir/stats.$name"
		fi
		# shellcheck disable=SC2086
		"$tools/sortcheck" $checked "$input" "$dir/out" > /dev/null
		test -z "$(ls -A "$dir/tmp")"
	done
	rm -f "$dir/out"
	temp_mib=$(sed -n 's/.*, temp \([0-9.]*\) MiB.*/\1/p' "$dir/stats.$name")
	runs=$(sed -n 's/.*runs \([0-9]*\),.*/\1/p' "$dir/stats.$name")
	awk -v n="$name" -v s="$best" -v b="$bytes" -v r="$best_rss" -v t="${temp_mib:-0}" -v u="${runs:-0}" \
		-v c="$best_cpu" 'BEGIN { printf "| %s | %.2f | %.0f | %s | %.0f | %s | %s |\n", n, s, b / s / 1e6, c, r / 1024, u, t }'
	echo "$best" > "$dir/seconds.$name"
}

# timed COMMAND...: runs it and prints its wall seconds.
timed() {
	local start end
	start=$(date +%s.%N)
	"$@"
	end=$(date +%s.%N)
	awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f\n", b - a }'
}

filesystem=$(stat -f -c %T "$dir")
echo "input: $count $what ($bytes bytes), $(nproc) cores, $dir on $filesystem ($(df -P "$dir" | awk 'NR == 2 { print $1 }'))"
echo "external sort: $external_args${GPUSORT_ARGS:+; both: $GPUSORT_ARGS}"
echo "| run | seconds | MB/s | CPU | peak RSS MiB | runs | temp MiB |"
echo "|---|---|---|---|---|---|---|"
run in-memory "$gpusort"
# shellcheck disable=SC2086
# shellcheck disable=SC2086
run external "$gpusort" $external_args
if [ -n "${BASELINE:-}" ]; then
	# shellcheck disable=SC2086
	run baseline "$BASELINE" $external_args
fi
if [ -f "$dir/notes" ]; then sort -u "$dir/notes"; fi

# The floor, with the bytes the external sort wrote to its runs (whole 16 MiB blocks,
# at least 64 MiB, so dd's rate is a rate); the input is the source of random bytes.
temp_bytes=$(awk -v t="$(sed -n 's/.*, temp \([0-9.]*\) MiB.*/\1/p' "$dir/stats.external")" \
	'BEGIN { printf "%.0f\n", t * 1048576 }')
blocks=$(( (temp_bytes + 16777215) / 16777216 ))
[ "$blocks" -ge 4 ] || blocks=4
floor_bytes=$((blocks * 16777216))
sync
write_seconds=$(timed dd if="$input" of="$dir/tmp/floor" bs=16M count="$blocks" conv=fdatasync status=none)
dd if="$dir/tmp/floor" iflag=nocache count=0 status=none  # clean now, so dropped
if command -v fincore > /dev/null; then
	resident=$(fincore -n -b -o RES "$dir/tmp/floor" 2>/dev/null | tr -d ' ' || echo unknown)
	[ "$resident" = 0 ] || echo "warning: $resident bytes of the floor file still cached: the read rate is too high"
fi
read_seconds=$(timed dd if="$dir/tmp/floor" of=/dev/null bs=16M status=none)
rm -f "$dir/tmp/floor"

spill=$(name=external stat_field spill 1)
merge=$(name=external stat_field merge 1)
awk -v wb="$floor_bytes" -v ws="$write_seconds" -v rs="$read_seconds" -v t="$temp_bytes" \
	-v out="$bytes" -v spill="${spill:-0}" -v merge="${merge:-0}" \
	-v mem="$(cat "$dir/seconds.in-memory")" -v ext="$(cat "$dir/seconds.external")" 'BEGIN {
	w = wb / ws; r = wb / rs
	printf "disk floor: write %.0f MB/s (dd conv=fdatasync), read %.0f MB/s (dd, cold after fadvise DONTNEED), %.0f MiB each way\n",
		w / 1e6, r / 1e6, wb / 1048576
	print "| stage | seconds | floor s | bytes on disk | ratio to floor |"
	print "|---|---|---|---|---|"
	sf = t / w; mf = t / r + out / w
	printf "| spill | %.2f | %.2f | %.0f MiB written | %.2f |\n", spill, sf, t / 1048576, spill / sf
	printf "| merge | %.2f | %.2f | %.0f MiB read, %.0f MiB written | %.2f |\n", merge, mf, t / 1048576, out / 1048576, merge / mf
	printf "| external total | %.2f | %.2f | | %.2f |\n", ext, sf + mf, ext / (sf + mf)
	printf "external throughput = %.0f%% of in-memory (%.2f s vs %.2f s)\n", 100 * mem / ext, ext, mem
}'
if [ -n "${BASELINE:-}" ]; then
	awk -v e="$(cat "$dir/seconds.external")" -v b="$(cat "$dir/seconds.baseline")" -v n="$BASELINE" \
		'BEGIN { printf "external wall = %.2fx that of the baseline %s (%.2f s vs %.2f s)\n", e / b, n, e, b }'
fi
