#!/bin/sh
# Text-mode benchmark: 10M lines of "16 random letters<TAB>number", sorted by gpusort and
# by `LC_ALL=C sort --parallel=N`, plain and with -t TAB -k2,2n (in memory and with
# -S 32M); checks that both outputs are identical and prints a table of seconds.
# Usage: bench/text_bench.sh [GPUSORT] [LINES] [THREADS]
set -e
LC_ALL=C; export LC_ALL
gpusort=${1:-./gpusort}
lines=${2:-10000000}
threads=${3:-$(nproc)}
dir=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-text-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
input=$dir/input

# Letters from a byte stream, numbers from awk's generator: fast and reproducible.
awk -v n="$lines" 'BEGIN {
	srand(42)
	for (i = 0; i < n; i++) {
		s = ""
		for (j = 0; j < 16; j++) s = s sprintf("%c", 97 + int(rand() * 26))
		printf "%s\t%d\n", s, int(rand() * 1000000000)
	}
}' > "$input"

seconds() { # command...: prints the wall seconds of running it
	start=$(date +%s.%N)
	"$@"
	end=$(date +%s.%N)
	echo "$start $end" | awk '{ printf "%.2f", $2 - $1 }'
}
tab=$(printf '\t')
printf '%-28s %10s %10s %8s %s\n' "case ($lines lines)" "sort" "gpusort" "speedup" "output"
for case in plain key key-S32M; do
	case $case in
	plain) set -- ;;
	key) set -- -t "$tab" -k2,2n ;;
	key-S32M) set -- -t "$tab" -k2,2n -S 32M ;;
	esac
	t_sort=$(seconds sort --parallel="$threads" "$@" -o "$dir/expected" "$input")
	t_gpu=$(seconds "$gpusort" --parallel="$threads" "$@" -o "$dir/actual" "$input")
	if cmp -s "$dir/expected" "$dir/actual"; then same=identical; else same=DIFFERENT; fi
	speedup=$(echo "$t_sort $t_gpu" | awk '{ printf "%.2fx", $1 / $2 }')
	printf '%-28s %10s %10s %8s %s\n' "$case" "$t_sort" "$t_gpu" "$speedup" "$same"
done
