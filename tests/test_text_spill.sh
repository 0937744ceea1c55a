#!/bin/sh
# SPDX-License-Identifier: MIT
# Text mode beyond -S and at scale: generated inputs (tests/textgen) sorted with a small
# -S, so that many runs are spilled and merged, and in memory with enough lines that the
# parallel line scan, tie finishing and gathered writing work over many slices; stdout
# must equal `LC_ALL=C sort`'s for each option mix (-u, -r, -s, -k2,2n, -V and more).
LC_ALL=C; export LC_ALL
: "${GPUSORT:?GPUSORT must name the built gpusort}"
TEXTGEN=${TEXTGEN:-$(dirname "$GPUSORT")/tests/textgen}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-text-spill.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
tab=$(printf '\t')
# random: distinct 16-letter words; ties: words of 0-12 letters of "abc" and numbers
# below 100, so prefixes, keys and whole lines repeat (large tie runs, -u drops many).
"$TEXTGEN" 200000 7 > "$tmp/random" &&
"$TEXTGEN" 200000 8 3 100 12 > "$tmp/ties" &&
printf 'no newline at the end' >> "$tmp/ties" &&
# long: lines longer than a chunk at -S 64K (the chunk grows to hold them) among short
# ones, the last one without its newline
{ "$TEXTGEN" 20000 9 && awk 'BEGIN { while (n++ < 400000) printf "m"; print "" }' &&
  "$TEXTGEN" 20000 10 && awk 'BEGIN { while (n++ < 900000) printf "b" }'; } > "$tmp/long" &&
# short: 200,000 lines of one letter, 400 KB: under a quarter of -S 2M, so the sort plans
# one chunk and one buffer, but the lines' costs fill six chunks, which then take turns
# in that buffer (each chunk's unsorted tail moved to its start)
awk 'BEGIN { srand(3); while (n++ < 200000) printf "%c\n", 97 + int(rand() * 10) }' > "$tmp/short" ||
	{ echo "Bail out! cannot generate inputs"; exit 99; }

# input | -S (or - for none) | options
cat > "$tmp/cases" <<'CASES'
random|1M|
random|1M|-r
random|1M|-t TAB -k2,2n
random|1M|-u -k1.1,1.2
ties|1M|
ties|1M|-u
ties|1M|-r
ties|1M|-s -t TAB -k2,2n
ties|1M|-t TAB -k2,2n
ties|1M|-u -t TAB -k2,2n
ties|1M|-s -r -k1,1
ties|1M|-f -u -k1.1,1.1
ties|1M|-V
ties|-|
ties|-|-u
ties|-|-s -t TAB -k2,2n
ties|-|-u -r -t TAB -k2,2n
ties|-|-k1.1,1.1
ties|-|-u -t TAB -k2,2V -k1,1V
random|-|-t TAB -k2,2n
long|64K|
long|64K|-u -r
short|2M|
short|2M|-r
short|2M|-s -k1,1
CASES

count=$(wc -l < "$tmp/cases")
echo "1..$count"
n=0
while IFS='|' read -r input size options; do
	n=$((n + 1))
	set -f
	# shellcheck disable=SC2086 # options are shell words
	set -- $options
	set +f
	args=
	for word in "$@"; do
		[ "$word" = TAB ] && word=$tab
		args="$args$(printf '%s' "$word" | sed "s/'/'\\\\''/g; s/^/'/; s/\$/'/") "
	done
	eval "set -- $args"
	if [ "$size" = - ]; then
		"$GPUSORT" --parallel=2 "$@" "$tmp/$input" > "$tmp/actual" 2> "$tmp/errors"
	else
		"$GPUSORT" --parallel=2 -S "$size" -T "$tmp" "$@" "$tmp/$input" > "$tmp/actual" 2> "$tmp/errors"
	fi
	status=$?
	sort "$@" "$tmp/$input" > "$tmp/expected"
	if [ $status -eq 0 ] && cmp -s "$tmp/expected" "$tmp/actual"; then
		echo "ok $n - $input -S $size $options"
	else
		echo "not ok $n - $input -S $size $options (exit $status)"
		sed 's/^/# /' "$tmp/errors" | head -5
		cmp "$tmp/expected" "$tmp/actual" 2>&1 | sed 's/^/# /'
	fi
done < "$tmp/cases"
