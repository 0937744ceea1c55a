#!/bin/sh
# SPDX-License-Identifier: MIT
# Locale benchmark: LINES lines of two words of mixed-case letters with accents and a
# number ("äÄaAàDU ZVerööP-77894"), sorted by `sort --parallel=THREADS` and by gpusort
# in LOCALE (en_US.UTF-8 unless the environment says otherwise): plain, -f, -k2,2,
# -u, -t- -k2,2n (en_US's thousands separator) and spilled with -S 32M; prints wall
# seconds (best of REPEAT runs) and checks that both outputs are byte-identical.
# Usage: bench/locale_bench.sh [GPUSORT] [LINES] [THREADS]
#   Env: LOCALE, REPEAT (3), GPUSORT_ARGS (extra options), TMPDIR (input and outputs),
#   CASES (a subset of: plain fold key unique number key-S32M).
set -e
gpusort=${1:-./gpusort}
lines=${2:-3000000}
threads=${3:-$(nproc)}
repeat=${REPEAT:-3}
LC_ALL=${LOCALE:-en_US.UTF-8}; export LC_ALL
if ! locale -a | grep -qix "$(echo "$LC_ALL" | sed 's/UTF-8/utf8/')"; then
	echo "locale_bench: locale $LC_ALL is not installed (tests/generate_locales.sh)" >&2
	exit 1
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-locale-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
input=$dir/input

python3 - "$lines" > "$input" <<'PY'
import random, sys
rng = random.Random(5)
letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZäöüßéèàçñÄÖÜÉ"
out, buf = sys.stdout, []
for _ in range(int(sys.argv[1])):
    w1 = "".join(rng.choices(letters, k=rng.randint(3, 12)))
    w2 = "".join(rng.choices(letters, k=rng.randint(3, 12)))
    buf.append(f"{w1} {w2}-{rng.randint(0, 99999):,}\n")
    if len(buf) >= 100000:
        out.write("".join(buf))
        buf = []
out.write("".join(buf))
PY

best() { # command...: prints the best wall seconds of $repeat runs
	b=
	i=0
	while [ $i -lt "$repeat" ]; do
		start=$(date +%s.%N)
		"$@"
		end=$(date +%s.%N)
		b=$(echo "$start $end ${b:-1e30}" | LC_ALL=C awk '{ t = $2 - $1; printf "%.3f", t < $3 ? t : $3 }')
		i=$((i + 1))
	done
	echo "$b"
}
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -n), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)," \
	"threads $threads, LC_ALL=$LC_ALL, $(sort --version | head -1)," \
	"input $(du -m "$input" | cut -f1) MiB, gpusort $GPUSORT_ARGS"
printf '%-20s %10s %10s %8s %s\n' "case ($lines lines)" "sort" "gpusort" "speedup" "output"
for case in ${CASES:-plain fold key unique number key-S32M}; do
	case $case in
	plain) set -- ;;
	fold) set -- -f ;;
	key) set -- -k2,2 ;;
	unique) set -- -u ;;
	number) set -- -t- -k2,2n ;;
	key-S32M) set -- -k2,2 -S 32M -T "$dir" ;;
	esac
	t_sort=$(best sort --parallel="$threads" "$@" -o "$dir/expected" "$input")
	# shellcheck disable=SC2086 # GPUSORT_ARGS are shell words
	t_gpu=$(best "$gpusort" $GPUSORT_ARGS --parallel="$threads" "$@" -o "$dir/actual" "$input")
	if cmp -s "$dir/expected" "$dir/actual"; then same=identical; else same=DIFFERENT; fi
	speedup=$(echo "$t_sort $t_gpu" | LC_ALL=C awk '{ printf "%.2fx", $1 / $2 }')
	printf '%-20s %10s %10s %8s %s\n' "$case" "$t_sort" "$t_gpu" "$speedup" "$same"
	rm -f "$dir/expected" "$dir/actual"
done
