#!/bin/sh
# SPDX-License-Identifier: MIT
# --stats tells the truth in every mode: each stage's bytes are what it moved (read,
# prepare, spill, write: the input; merge: the input once per merge pass), a stage that
# moved bytes took time, merge passes and the temp peak are counted when runs were
# spilled (text as well as binary), and without spilling the stage times add up to no
# more than the total. Sizes are compared as the table prints them (MiB, one decimal).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

mkdir "$WORK/tmp"
export TMPDIR="$WORK/tmp"
keygen --type=u64 --count=1000000 --seed=11 -o "$WORK/keys"      # 7.6 MiB
keygen --type=u64 --count=300000 --seed=12 -o "$WORK/small"      # 2.3 MiB
seq 1 600000 | sed 's/$/ some text/' | shuf --random-source="$WORK/keys" > "$WORK/text"  # 9.0 MiB

mib() { awk -v bytes="$1" 'BEGIN { printf "%.1f", bytes / 1048576 }'; }
size() { wc -c < "$1"; }
# row STAGE COLUMN: the stage's seconds (2) or MiB (3) from $WORK/stats
row() { awk -v stage="$1" -v column="$2" '$2 == "stats:" && $3 == stage { print $(column + 2) }' "$WORK/stats"; }
summary() { sed -n "s/.*[ ,]$1 \([0-9.]*\).*/\1/p" "$WORK/stats"; }

# rows_are DESCRIPTION STAGE=MIB...: each named stage shows that many MiB.
rows_are() {
	desc=$1
	shift
	bad=""
	for pair in "$@"; do
		stage=${pair%%=*} want=${pair#*=}
		got=$(row "$stage" 3)
		[ "$got" = "$want" ] || bad="$bad $stage=$got (not $want)"
	done
	[ -z "$bad" ]
	tap_result $? "$desc${bad:+:$bad}"
}

# took_time DESCRIPTION STAGE...: each stage's seconds are above zero.
took_time() {
	desc=$1
	shift
	bad=""
	for stage in "$@"; do
		awk -v s="$(row "$stage" 2)" 'BEGIN { exit !(s > 0) }' || bad="$bad $stage=$(row "$stage" 2)"
	done
	[ -z "$bad" ]
	tap_result $? "$desc${bad:+: 0 s for$bad}"
}

# adds_up DESCRIPTION: the stage times add up to no more than the total (1 ms slack per row).
adds_up() {
	sum=$(awk '$2 == "stats:" && $3 ~ /^(read|prepare|sort|spill|merge|write)$/ { s += $4 } END { print s }' "$WORK/stats")
	total=$(summary total)
	awk -v s="$sum" -v t="$total" 'BEGIN { exit !(s <= t + 0.006) }'
	tap_result $? "$1: the stages' $sum s fit in the total $total s"
}

run_stats() { "$GPUSORT" --stats "$@" 2>"$WORK/stats"; }

# Binary, in memory.
keys=$(mib "$(size "$WORK/keys")") small=$(mib "$(size "$WORK/small")")
run_stats --type=u64 "$WORK/small" -o "$WORK/out"
tap_result $? "binary in memory exits 0"
rows_are "binary in memory: read, prepare, write are the input; no spill, no merge" \
	read="$small" prepare="$small" write="$small" spill=0.0 merge=0.0
[ "$(summary passes)" = 0 ] && [ "$(summary peak)" = 0.0 ]
tap_result $? "binary in memory: no merge pass, no temp peak"
adds_up "binary in memory"

# Binary, spilled: to a file (merged at offsets by threads), to a pipe (in order), on
# one thread (one loser tree).
for how in file pipe one-thread; do
	case $how in
	file) run_stats --type=u64 -S 1M "$WORK/keys" -o "$WORK/out" ;;
	pipe) run_stats --type=u64 -S 1M "$WORK/keys" | cat > "$WORK/out" ;;
	one-thread) run_stats --type=u64 -S 1M --parallel=1 "$WORK/keys" -o "$WORK/out" ;;
	esac
	tap_result $? "binary spilled ($how) exits 0"
	passes=$(summary passes)
	[ "${passes:-0}" -ge 1 ] && awk -v p="$(summary peak)" 'BEGIN { exit !(p > 0) }'
	tap_result $? "binary spilled ($how): merge passes $passes, temp peak $(summary peak) MiB"
	merged=$(mib $((passes * $(size "$WORK/keys"))))
	rows_are "binary spilled ($how): read, prepare, spill, write are the input, merge the input per pass" \
		read="$keys" prepare="$keys" spill="$keys" write="$keys" merge="$merged"
	took_time "binary spilled ($how): the merge and the write took time" merge write
done

# Binary -m: the inputs read, merged and written once.
"$GPUSORT" --type=u64 "$WORK/keys" -o "$WORK/sorted1"
"$GPUSORT" --type=u64 "$WORK/small" -o "$WORK/sorted2"
both=$(mib $(($(size "$WORK/keys") + $(size "$WORK/small"))))
run_stats --type=u64 -m "$WORK/sorted1" "$WORK/sorted2" -o "$WORK/out"
tap_result $? "binary -m exits 0"
rows_are "binary -m: read, merge and write are the inputs" read="$both" merge="$both" write="$both"
took_time "binary -m: reading, merging and writing took time" read merge write
adds_up "binary -m"

# Text, in memory and spilled.
text=$(mib "$(size "$WORK/text")")
run_stats "$WORK/text" -o "$WORK/out"
tap_result $? "text in memory exits 0"
rows_are "text in memory: read, prepare, write are the input; no spill, no merge" \
	read="$text" prepare="$text" write="$text" spill=0.0 merge=0.0
adds_up "text in memory"
for how in file pipe; do
	case $how in
	file) run_stats -S 1M "$WORK/text" -o "$WORK/out" ;;
	pipe) run_stats -S 1M "$WORK/text" | cat > "$WORK/out" ;;
	esac
	tap_result $? "text spilled ($how) exits 0"
	# the runs go through the binary mode's merge passes while they exceed the fan-in
	# that -S allows, then the final merge: the merge row moves the input once a pass
	passes=$(summary passes)
	[ "${passes:-0}" -ge 1 ] && awk -v p="$(summary peak)" 'BEGIN { exit !(p > 0) }' &&
		[ "$(summary runs)" -ge 2 ]
	tap_result $? "text spilled ($how): $(summary runs) runs, merge passes $passes, temp peak $(summary peak) MiB"
	merged=$(mib $((passes * $(size "$WORK/text"))))
	rows_are "text spilled ($how): read, prepare, spill, write are the input, merge the input per pass" \
		read="$text" prepare="$text" spill="$text" merge="$merged" write="$text"
	took_time "text spilled ($how): the merge and the write took time" merge write
	# (a spill thread writes each run while the next chunk is read and sorted, as in
	# binary mode: the stages overlap, so their times are not summed)
done

# Text -m.
sort "$WORK/text" > "$WORK/text.sorted"
two=$(mib $((2 * $(size "$WORK/text"))))
run_stats -m "$WORK/text.sorted" "$WORK/text.sorted" -o "$WORK/out"
tap_result $? "text -m exits 0"
rows_are "text -m: read, merge and write are the inputs" read="$two" merge="$two" write="$two"
took_time "text -m: reading, merging and writing took time" read merge write
adds_up "text -m"
check "no temp file left" test -z "$(ls -A "$WORK/tmp")"
done_testing
