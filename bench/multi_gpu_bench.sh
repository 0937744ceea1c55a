#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 17: the distributed sort on one machine's GPUs, one rank per GPU (mpirun -np N
# gpusort --device=auto: local rank r takes GPU r), against one process on one GPU, on
# 2^31 random u64 keys (16 GiB) and 10^8 100-byte records with 10-byte keys (10 GB),
# each in memory and spilled (-S SPILL, which is per rank under mpirun). Every output is
# compared byte for byte with the one-process output of its input, which tests/sortcheck
# checks. Prints best-of-REPEATS wall seconds, GB/s and the speedup over one GPU, and
# for the distributed runs the slowest rank's sort, exchange and merge seconds (--stats);
# every run's --stats goes to LOGDIR. Each input is sorted once untimed first.
# Usage: bench/multi_gpu_bench.sh [GPUSORT] [TOOLS_DIR] [U64_COUNT] [RECORDS] [SPILL] [REPEATS] [LOGDIR]
#   defaults: ./gpusort ./tests 2147483648 100000000 2G 1 (no logs kept)
#   GPUS="1 2 4" (default: 1, 2, 4 up to the GPUs nvidia-smi lists); MODES="memory
#   spilled" (the default, or either); a count of 0 leaves that input out; FILES_TOO=1
#   adds, for each run of several ranks, one with GPUSORT_RESIDENT=0 (the shares go
#   through files even where they could stay on the GPUs)
# Needs mpirun and about 6x the larger input free in $TMPDIR.
set -e
gpusort=${1:-./gpusort}
tools=${2:-./tests}
count=${3:-2147483648}
records=${4:-100000000}
spill=${5:-2G}
repeats=${6:-1}
logs=${7:-}
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
module=$(dirname "$gpusort")/.libs/gpusort-mpi.so
[ -z "${GPUSORT_MPI_MODULE:-}" ] && [ -e "$module" ] && export GPUSORT_MPI_MODULE="$(cd "$(dirname "$module")" && pwd)/gpusort-mpi.so"
# --bind-to none: each rank runs its pipeline's threads on the cores it is given
mpirun="mpirun --bind-to none"
gpu_count=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ -z "${GPUS:-}" ]; then
	GPUS=
	for n in 1 2 4 8; do [ "$n" -le "$gpu_count" ] && GPUS="$GPUS $n"; done
fi
[ -n "$GPUS" ] || { echo "multi_gpu_bench: no GPU" >&2; exit 1; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-gpus-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/tmp"
[ -n "$logs" ] && mkdir -p "$logs"

seconds_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }'; }
. "$(dirname "$0")/distributed_lib.sh"

# run NAME INPUT RANKS ARGS...: best_run of gpusort ARGS INPUT on RANKS ranks (1: a
# plain process); the first run of an input is the reference that every later one must
# equal. Prints a table row.
run() {
	name=$1 input=$2 ranks=$3
	shift 3
	launch=
	[ "$ranks" -gt 1 ] && launch="$mpirun -np $ranks"
	best_run "$dir/stats.best" "$launch" "$@" "$input"
	[ -n "$logs" ] && cp "$dir/stats.best" "$logs/$(echo "$name" | tr -c 'A-Za-z0-9\n' '_').stats"
	[ "$ranks" -eq 1 ] && one_gpu=$best
	# the slowest rank's phases: the total line of the distributed stats table
	phases=$(awk '$3 == "total" { printf "sort %s, split %s, exchange %s, merge %s, write %s of %s", $5, $6, $9, $10, $12, $13 }' \
		"$dir/stats.best")
	awk -v n="$name" -v s="$best" -v b="$(wc -c <"$input")" -v r="$one_gpu" -v p="${phases:-one process}" \
		'BEGIN { printf "| %s | %.2f | %.2f | %.2f | %s |\n", n, s, b / s / 1e9, r / s, p }'
}

# bench_input TITLE INPUT SORTCHECK_ARGS ARGS...: one input, in memory and spilled.
bench_input() {
	title=$1 input=$2 check=$3
	shift 3
	rm -f "$dir/reference"
	# untimed: a fresh machine's first large run pays for its memory and its GPUs'
	# start (the tenth session's 4-GPU call: engine 5.96 s, read 5.18 s, 22.54 s in all,
	# where the same sort spilling took 14.40 s a minute later)
	"$gpusort" --device=auto -T "$dir/tmp" "$@" "$input" -o "$dir/out"
	rm -f "$dir/out"
	for mode in ${MODES:-memory spilled}; do
		limit=
		[ $mode = spilled ] && limit="-S $spill"
		echo
		echo "$title, $mode${limit:+ ($limit per rank)}: $(wc -c <"$input") bytes"
		echo "| run | seconds | GB/s | speedup over 1 GPU | slowest rank's phases (s) |"
		echo "|---|---|---|---|---|"
		for n in $GPUS; do
			# shellcheck disable=SC2086
			run "$title $mode $n GPU" "$input" "$n" --device=auto $limit "$@"
			if [ "$n" -gt 1 ] && [ "${FILES_TOO:-0}" = 1 ]; then
				export GPUSORT_RESIDENT=0
				# shellcheck disable=SC2086
				run "$title $mode $n GPU, through files" "$input" "$n" --device=auto $limit "$@"
				unset GPUSORT_RESIDENT
			fi
			if [ "$n" -eq 1 ] && [ $mode = memory ]; then
				"$tools/sortcheck" $check "$input" "$dir/reference" >/dev/null
			fi
		done
	done
}

echo "gpusort: $("$gpusort" --version | head -n 1); $(mpirun --version 2>/dev/null | head -n 1)"
echo "GPUs: $gpu_count ($(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)), $(nproc) cores, temp: $(df -h "$dir" | awk 'NR == 2 { print $1, $4 " free" }')"
start=$(date +%s.%N)
[ "$count" -gt 0 ] && "$tools/keygen" --type=u64 --count="$count" --seed=1 -o "$dir/u64"
[ "$records" -gt 0 ] && make_records "$records" "$dir/records"
echo "inputs made in $(seconds_since "$start") s"
if [ "$count" -gt 0 ]; then
	bench_input "u64 ($count keys)" "$dir/u64" "--type=u64" --type=u64
	rm -f "$dir/u64"
fi
if [ "$records" -gt 0 ]; then
	bench_input "records ($records, $records_from)" "$dir/records" "--type=bytes --record-size=100 --key-size=10" \
		--record-size=100 --key-size=10
fi
echo
echo "Outputs: every run byte-identical to the one-GPU in-memory run of its input; that one checked by tests/sortcheck."
