#!/bin/sh
# SPDX-License-Identifier: MIT
# Text-mode benchmark: LINES lines of "16 random letters<TAB>number" (tests/textgen),
# sorted by gpusort and by `LC_ALL=C sort --parallel=THREADS`, plain, with -t TAB -k2,2n,
# with -u, and with -S 32M (spilled runs); prints a table of wall seconds (best of
# REPEAT runs each) and checks that both outputs are byte-identical.
# Usage: bench/text_bench.sh [GPUSORT] [LINES] [THREADS]
#   GPUSORT defaults to ./gpusort; textgen is taken from beside it (tests/textgen) or
#   compiled from bench/../tests/textgen.c. Env: REPEAT (3), GPUSORT_ARGS (extra options,
#   e.g. --device=cpu), TMPDIR (where the input and outputs go).
set -e
LC_ALL=C; export LC_ALL
gpusort=${1:-./gpusort}
lines=${2:-10000000}
threads=${3:-$(nproc)}
repeat=${REPEAT:-3}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-text-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
input=$dir/input

textgen=$(dirname "$gpusort")/tests/textgen
if [ ! -x "$textgen" ]; then
	textgen=$dir/textgen
	${CC:-cc} -O2 -o "$textgen" "$here/../tests/textgen.c"
fi
"$textgen" "$lines" > "$input"

best() { # command...: prints the best wall seconds of $repeat runs
	b=
	i=0
	while [ $i -lt "$repeat" ]; do
		start=$(date +%s.%N)
		"$@"
		end=$(date +%s.%N)
		b=$(echo "$start $end ${b:-1e30}" | awk '{ t = $2 - $1; printf "%.3f", t < $3 ? t : $3 }')
		i=$((i + 1))
	done
	echo "$b"
}
tab=$(printf '\t')
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -n), $(nproc) cores, threads $threads," \
	"$(sort --version | head -1), input $(du -m "$input" | cut -f1) MiB," \
	"gpusort $GPUSORT_ARGS"
printf '%-20s %10s %10s %8s %s\n' "case ($lines lines)" "sort" "gpusort" "speedup" "output"
for case in plain key unique key-S32M; do
	case $case in
	plain) set -- ;;
	key) set -- -t "$tab" -k2,2n ;;
	unique) set -- -u ;;
	key-S32M) set -- -t "$tab" -k2,2n -S 32M -T "$dir" ;;
	esac
	t_sort=$(best sort --parallel="$threads" "$@" -o "$dir/expected" "$input")
	# shellcheck disable=SC2086 # GPUSORT_ARGS are shell words
	t_gpu=$(best "$gpusort" $GPUSORT_ARGS --parallel="$threads" "$@" -o "$dir/actual" "$input")
	if cmp -s "$dir/expected" "$dir/actual"; then same=identical; else same=DIFFERENT; fi
	speedup=$(echo "$t_sort $t_gpu" | awk '{ printf "%.2fx", $1 / $2 }')
	printf '%-20s %10s %10s %8s %s\n' "$case" "$t_sort" "$t_gpu" "$speedup" "$same"
	rm -f "$dir/expected" "$dir/actual"
done
