#!/bin/sh
# SPDX-License-Identifier: MIT
# -R on the engines: LINES lines "word:number:x" (words that tie under -f), sorted with
# one --random-source by gpusort on the CPU threads and, where there is one, on the GPU
# (--device=0, in memory and spilled with -S 64M): every output must be byte-identical
# (the hash is the prefix the engine sorts by, made on the host). Then wall seconds,
# best of REPEAT: gpusort -R against plain gpusort on each engine, and against
# `sort -R --parallel=THREADS`. Also --debug's output, GPU against CPU.
# Usage: bench/random_bench.sh [GPUSORT] [LINES] [THREADS]   Env: REPEAT (3), TMPDIR.
set -u
gpusort=${1:-./gpusort}
case $gpusort in /*) ;; *) gpusort=$PWD/$gpusort ;; esac
[ -x "$gpusort" ] || { echo "random_bench.sh: no gpusort at $gpusort" >&2; exit 2; }
lines=${2:-4000000}
threads=${3:-$(nproc)}
repeat=${REPEAT:-3}
export LC_ALL=C
dir=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-random.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
printf '0123456789abcdef' > seed
awk -v n="$lines" 'BEGIN { srand(7); split("apple Apple APPLE pear Pear kiwi KIWI fig Fig plum", w, " ")
	for (i = 0; i < n; i++) printf "%s:%d:%s\n", w[int(rand() * 10) + 1], int(rand() * 100000), (i % 3 ? "x" : "X") }' > input
gpu=no
"$gpusort" --device=0 --stats input 2>&1 >/dev/null | grep -q 'engine gpu' && gpu=yes
status=0
for opts in "-R" "-t: -k1,1fR -k2,2n" "-t: -k2,2R -u" "-r -R" "-t: -k3,3R -s"; do
	# shellcheck disable=SC2086
	"$gpusort" $opts --random-source=seed --device=cpu --parallel="$threads" input > cpu.out
	line="$opts: CPU $(wc -l < cpu.out) lines"
	if [ $gpu = yes ]; then
		for how in "" "-S 64M"; do
			# shellcheck disable=SC2086
			"$gpusort" $opts $how --random-source=seed --device=0 input > gpu.out
			cmp -s cpu.out gpu.out && line="$line; GPU ${how:-in memory} same" ||
				{ line="$line; GPU ${how:-in memory} DIFFERS"; status=1; }
		done
	fi
	echo "$line"
done
if [ $gpu = yes ]; then
	head -c 2000000 input > small
	for opts in "-t: -k2,2n" "-R --random-source=seed"; do
		# shellcheck disable=SC2086
		"$gpusort" --debug $opts --device=cpu small > cpu.out 2>&1
		# shellcheck disable=SC2086
		"$gpusort" --debug $opts --device=0 small > gpu.out 2>&1
		cmp -s cpu.out gpu.out && echo "--debug $opts: GPU same as CPU" || { echo "--debug $opts: DIFFERS"; status=1; }
	done
fi
best() { # COMMAND...: the best wall seconds of REPEAT runs
	b=
	for _ in $(seq "$repeat"); do
		s=$(date +%s.%N); "$@" > /dev/null; e=$(date +%s.%N)
		b=$(echo "$s $e ${b:-1e9}" | awk '{ t = $2 - $1; print (t < $3 ? t : $3) }')
	done
	echo "$b"
}
devices=cpu
[ $gpu = yes ] && devices="cpu 0"
for device in $devices; do
	echo "device $device: -R $(best "$gpusort" -R --random-source=seed --device=$device --parallel="$threads" input) s," \
	     "plain $(best "$gpusort" --device=$device --parallel="$threads" input) s"
done
echo "sort -R --parallel=$threads: $(best sort -R --random-source=seed --parallel="$threads" input) s ($(sort --version | head -1))"
exit $status
