#!/bin/sh
# SPDX-License-Identifier: MIT
# The distributed sort on one machine's CPU cores (issue 15's targets): one process of
# 2 threads against 8 ranks of 2 threads each (mpirun, CPU engines), on random u64 keys
# (4 GiB) and on 100-byte records with 10-byte keys (1 GB: gensort's when a gensort is
# on PATH, else tests/keygen's of the same shape); and, where a GPU is there, one
# process on the GPU against 2 ranks sharing it. Every output is compared byte for byte
# with the one-process output (tests/sortcheck checks that one). Prints a table of
# best-of-REPEATS wall seconds, MB/s and the speedup, and each distributed run's
# --stats totals (bytes exchanged, exchange time, imbalance).
# Usage: bench/mpi_bench.sh [GPUSORT] [TOOLS_DIR] [U64_COUNT] [RECORDS] [REPEATS]
#   GPUSORT    the binary, built with MPI (default ./gpusort); TOOLS_DIR holds keygen
#              and sortcheck (default ./tests)
#   U64_COUNT  keys (default 536870912: 4 GiB); RECORDS 100-byte records (default
#              10000000: 1 GB); REPEATS runs of each (best kept, default 2)
# Needs mpirun (Debian: openmpi-bin) and about 6x the inputs' size free in $TMPDIR.
set -e
gpusort=${1:-./gpusort}
tools=${2:-./tests}
count=${3:-536870912}
records=${4:-10000000}
repeats=${5:-2}
ranks=8
threads=2
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# a gpusort of a build tree (not installed) finds its MPI module there
module=$(dirname "$gpusort")/.libs/gpusort-mpi.so
[ -z "${GPUSORT_MPI_MODULE:-}" ] && [ -e "$module" ] && export GPUSORT_MPI_MODULE="$(cd "$(dirname "$module")" && pwd)/gpusort-mpi.so"
# --bind-to none: Open MPI would pin each rank to one core, and its 2 threads with it
mpirun="mpirun --oversubscribe --bind-to none"
dir=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-mpi-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/tmp"

. "$(dirname "$0")/distributed_lib.sh"
"$tools/keygen" --type=u64 --count="$count" --seed=1 -o "$dir/u64"
make_records "$records" "$dir/records"

# run NAME INPUT LAUNCH ARGS...: best_run of the case; the first run of an input is the
# reference the others must equal. Prints a table row; keeps the stats of the best run.
run() {
	name=$1 input=$2 launch=$3
	shift 3
	best_run "$dir/stats.$name" "$launch" "$@" "$input"
	bytes=$(wc -c <"$input")
	reference=${reference_seconds:-$best}
	awk -v n="$name" -v s="$best" -v b="$bytes" -v r="$reference" \
		'BEGIN { printf "| %s | %.2f | %.0f | %.2f |\n", n, s, b / s / 1e6, r / s }'
	reference_seconds=$reference
}

# case TITLE INPUT SORTCHECK_ARGS -- ARGS...: the runs of one input.
bench_input() {
	title=$1 input=$2 check=$3
	shift 3
	echo
	echo "$title: $(wc -c <"$input") bytes, $(nproc) cores"
	echo "| run | seconds | MB/s | speedup |"
	echo "|---|---|---|---|"
	rm -f "$dir/reference"
	reference_seconds=
	run "1 process x $threads threads (CPU)" "$input" "" --device=cpu --parallel=$threads "$@"
	"$tools/sortcheck" $check "$input" "$dir/reference" >/dev/null
	run "$ranks ranks x $threads threads (CPU)" "$input" "$mpirun -np $ranks" --device=cpu --parallel=$threads "$@"
	grep -E 'stats: (total|bytes exchanged)' "$dir/stats.$ranks ranks x $threads threads (CPU)" | sed 's/^/    /'
	if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
		reference_seconds=
		run "1 process, GPU 0" "$input" "" --device=0 "$@"
		run "2 ranks sharing GPU 0" "$input" "$mpirun -np 2" --device=auto "$@"
		grep -E 'stats: (total|bytes exchanged)' "$dir/stats.2 ranks sharing GPU 0" | sed 's/^/    /'
	fi
}

echo "gpusort: $("$gpusort" --version | head -n 1); mpirun: $(mpirun --version 2>/dev/null | head -n 1)"
bench_input "u64 keys ($count, seed 1)" "$dir/u64" "--type=u64" --type=u64
bench_input "100-byte records ($records, $records_from)" "$dir/records" "--type=bytes --record-size=100 --key-size=10" \
	--record-size=100 --key-size=10
echo
echo "Outputs: every run byte-identical to the 1-process run; that one checked by tests/sortcheck."
