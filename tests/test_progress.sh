#!/bin/sh
# SPDX-License-Identifier: MIT
# --progress on a terminal (a pty from util-linux script): the line is redrawn at least
# twice a second, also while gpusort waits on a slow pipe and moves no bytes; it names
# the stage (reading, sorting, spilling, writing, in that order) and its bytes, its
# percentage never falls, it gives no time left before it has a pace, and a sort that
# completes ends it at 100% of the input, kept with a newline; a sort that fails erases
# it. Text and binary alike. (Off a terminal it prints nothing: see
# test_memory.sh.)
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

if ! command -v script >/dev/null 2>&1 || ! script --help 2>&1 | grep -q -- '--log-timing'; then
	skip_test "no util-linux script with --log-timing to give gpusort a terminal"
	done_testing
fi

keygen --type=u64 --count=200000 --seed=13 -o "$WORK/keys"
seq 1 150000 | sed 's/$/ a line of text/' | shuf --random-source="$WORK/keys" > "$WORK/text"
sort "$WORK/text" > "$WORK/text.sorted"
"$GPUSORT" --type=u64 "$WORK/keys" -o "$WORK/keys.sorted"

# on_terminal COMMAND: runs the shell command with stderr (and stdout) on a pty; the
# terminal's bytes land in $WORK/typescript, their timing in $WORK/timing.
on_terminal() {
	printf '%s\n' "$1" > "$WORK/command.sh"
	script -q -e -c "sh '$WORK/command.sh'" --log-out "$WORK/typescript" \
		--log-timing "$WORK/timing" </dev/null >/dev/null 2>&1
}

# frames: the progress lines drawn, one a line.
frames() { tr '\r' '\n' < "$WORK/typescript" | sed 's/\x1b\[K//g' | grep '^gpusort: '; }

# As stats.c formats a byte count.
human() {
	awk -v b="$1" 'BEGIN { split("B KiB MiB GiB TiB", u, " "); n = 1
		while (b >= 1024 && n < 5) { b /= 1024; n++ }
		if (n == 1) printf "%.0f %s", b, u[n]; else printf "%.1f %s", b, u[n] }'
}

# redrawn DESCRIPTION: no gap above half a second between the terminal's outputs
# (after the first), and at least four frames over the two seconds' wait.
redrawn() {
	gap=$(awk 'NR > 1 && $1 > max { max = $1 } END { printf "%.3f", max }' "$WORK/timing")
	count=$(frames | wc -l)
	awk -v g="$gap" 'BEGIN { exit !(g <= 0.5) }' && [ "$count" -ge 4 ]
	tap_result $? "$1: $count frames, the longest gap ${gap} s"
}

# ends_at_100 DESCRIPTION BYTES: the last frame is the full bar at 100% of BYTES, and
# the line ends right after it (kept on the terminal).
ends_at_100() {
	size=$(human "$2")
	last=$(frames | tail -n 1)
	tr -d '\r' < "$WORK/typescript" | sed 's/\x1b\[K//g' |
		grep -Eq "gpusort: \[####################\] 100% sorted $size of $size in [0-9]+:[0-9]{2}, .*/s$" &&
		[ "${last#gpusort: \[####################\] 100% sorted $size of $size in }" != "$last" ]
	tap_result $? "$1: ends at 100% of $size (last frame: $last)"
}

# moves_forward DESCRIPTION: the percentage never falls and the stages come in their
# order, frame after frame; the first frame gives no pace nor time left ("0 B/s, ETA
# 0:00" would be a guess).
moves_forward() {
	frames | awk '
		{ stage = 0 }
		/ reading / { stage = 1 } / sorting / { stage = 2 } / spilling / { stage = 3 } / writing / { stage = 4 }
		/ sorted / { stage = 5 }
		match($0, /\] +[0-9]+%/) { p = substr($0, RSTART + 1, RLENGTH - 2) + 0; if (p < last) bad = "fell " last " to " p; last = p }
		stage && stage < seen { bad = "stage went back: " $0 } stage > seen { seen = stage }
		NR == 1 && (/ETA [0-9]/ || /B\/s/) { bad = "first frame guesses: " $0 }
		END { if (bad) { print bad; exit 1 } }' >&2
	tap_result $? "$1: moves forward"
}

text_size=$(wc -c < "$WORK/text")
keys_size=$(wc -c < "$WORK/keys")
half_text=$((text_size / 2))
half_keys=$((keys_size / 2 / 8 * 8))

# Text from a pipe that stalls for two seconds halfway, spilled and merged.
on_terminal "{ head -c $half_text '$WORK/text'; sleep 2; tail -c +$((half_text + 1)) '$WORK/text'; } |
	'$GPUSORT' --progress -S 256K -o '$WORK/out'"
tap_result $? "text through a stalling pipe exits 0"
check "text through a stalling pipe is sorted" cmp "$WORK/out" "$WORK/text.sorted"
redrawn "text through a stalling pipe"
ends_at_100 "text through a stalling pipe" "$text_size"
moves_forward "text through a stalling pipe"
frames | grep -Eq '^gpusort: reading [0-9.]+ [KM]iB(, [0-9.]+ [KM]?i?B/s)?$'
tap_result $? "text through a stalling pipe: no bar while its size is unknown"

# Binary records the same way.
on_terminal "{ head -c $half_keys '$WORK/keys'; sleep 2; tail -c +$((half_keys + 1)) '$WORK/keys'; } |
	'$GPUSORT' --type=u64 --progress -S 512K -o '$WORK/out'"
tap_result $? "binary through a stalling pipe exits 0"
check "binary through a stalling pipe is sorted" cmp "$WORK/out" "$WORK/keys.sorted"
redrawn "binary through a stalling pipe"
ends_at_100 "binary through a stalling pipe" "$keys_size"
moves_forward "binary through a stalling pipe"

# An output pipe that takes nothing for two seconds: the line stays on the write stage,
# the read and the sort done, with part of the output written.
on_terminal "'$GPUSORT' --type=u64 --progress '$WORK/keys' | { sleep 2; cat > '$WORK/out'; }"
tap_result $? "binary into a stalling pipe exits 0"
check "binary into a stalling pipe is sorted" cmp "$WORK/out" "$WORK/keys.sorted"
redrawn "binary into a stalling pipe"
moves_forward "binary into a stalling pipe"
frames | grep -Eq "^gpusort: \[#{13}#*\.+\] +[6-9][0-9]% writing [0-9.]+ [KM]iB of $(human "$keys_size"), .*ETA [0-9]+:[0-9]{2}$"
tap_result $? "binary into a stalling pipe: the line waits at the write stage, two thirds done"

# Files of known size, in memory and spilled: 100% of the file.
for args in "--type=u64 $WORK/keys" "--type=u64 -S 512K $WORK/keys" "$WORK/text" "-S 256K $WORK/text"; do
	on_terminal "'$GPUSORT' --progress $args -o '$WORK/out'"
	tap_result $? "gpusort --progress $args exits 0"
	case $args in *keys) size=$keys_size ;; *) size=$text_size ;; esac
	ends_at_100 "gpusort --progress $args" "$size"
	moves_forward "gpusort --progress $args"
done

# A sort that fails takes its line away: no 100%, the message on a clean line.
on_terminal "'$GPUSORT' --progress -S 256K -T '$WORK/missing' '$WORK/text' -o '$WORK/out'"
status=$?
tr '\r' '\n' < "$WORK/typescript" | sed 's/\x1b\[K//g' |
	grep -q "^gpusort: cannot create temporary file in '$WORK/missing'" &&
	! grep -q '100%' "$WORK/typescript"
result=$?
[ $status -eq 2 ] && [ $result -eq 0 ]
tap_result $? "a failing sort erases the line and reports (exit $status)"
done_testing
