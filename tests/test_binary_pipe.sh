#!/bin/sh
# SPDX-License-Identifier: MIT
# Binary records from inputs of unknown size (a pipe, a FIFO, a socket, /dev/stdin):
# the same bytes as from the file, and the oracle's, at every size where the chunk's
# buffer grows and around the chunk under a small -S (spilled); a partial record is
# refused in the file's words; and memory follows what arrives, not the budget: eight
# bytes sort under a few hundred MB of address space, their peak RSS within 16 MiB of
# the file's.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

mkdir "$WORK/tmp"
export TMPDIR="$WORK/tmp"
mkfifo "$WORK/fifo"

# from_socket INPUT OUTPUT OPTION...: gpusort reading INPUT from one end of a socket pair.
from_socket() {
	python3 - "$@" <<'EOF'
import os, socket, subprocess, sys
source, output, options = sys.argv[1], sys.argv[2], sys.argv[3:]
ours, theirs = socket.socketpair()
with open(output, "wb") as out:
    sort = subprocess.Popen([os.environ["GPUSORT"]] + options, stdin=theirs, stdout=out)
theirs.close()
with open(source, "rb") as f:
    ours.sendall(f.read())
ours.shutdown(socket.SHUT_WR)
sys.exit(sort.wait())
EOF
}
export GPUSORT

# sort_from HOW INPUT OUTPUT OPTION...: INPUT sorted as read from HOW (file, pipe, fifo,
# socket, dev-stdin) into OUTPUT; the exit status, stderr in $WORK/stderr.
sort_from() {
	how=$1 input=$2 output=$3
	shift 3
	case $how in
	file) "$GPUSORT" "$@" "$input" > "$output" ;;
	pipe) cat "$input" | "$GPUSORT" "$@" > "$output" ;;
	dev-stdin) cat "$input" | "$GPUSORT" "$@" /dev/stdin > "$output" ;;
	fifo)
		# the writer let go of, should the sort end before it opened the FIFO; the
		# shell's "Terminated" for a writer killed between its close and its exit
		# kept out of the sort's stderr
		cat "$input" > "$WORK/fifo" &
		writer=$!
		"$GPUSORT" "$@" "$WORK/fifo" > "$output"
		fifo_status=$?
		kill $writer 2>/dev/null
		wait $writer 2>/dev/null
		return $fifo_status ;;
	socket) from_socket "$input" "$output" "$@" ;;
	esac
} 2>"$WORK/stderr"

# as_oracle INPUT OUTPUT: OUTPUT is INPUT sorted as $oracle_options say: the Python
# oracle's bytes where $exact is set, else a sorted permutation (sortcheck, in C: for
# bare keys no other output is; for records it leaves the order of ties unchecked, which
# the pipes' comparison with the file then covers). Python starts slowly: it is kept
# to the cases that need it.
as_oracle() {
	if [ -n "$exact" ]; then
		# shellcheck disable=SC2086
		oracle $oracle_options "$1" "$WORK/want" && cmp -s "$2" "$WORK/want"
	else
		# shellcheck disable=SC2086
		sortcheck $check_options "$1" "$2" > /dev/null 2>&1
	fi
}

# same_everywhere DESCRIPTION WAYS INPUT OPTION...: the file's output is the oracle's
# (as_oracle), and each of the WAYS (pipe, fifo, socket, dev-stdin) of reading INPUT gives the same
# bytes, exit 0 and no temp file left.
same_everywhere() {
	desc=$1 ways=$2 input=$3
	shift 3
	sort_from file "$input" "$WORK/from-file" "$@"
	status=$?
	[ $status -eq 0 ] && as_oracle "$input" "$WORK/from-file"
	tap_result $? "$desc: from the file, as the oracle (exit $status)"
	for how in $ways; do
		sort_from $how "$input" "$WORK/got" "$@"
		status=$?
		[ $status -eq 0 ] && cmp -s "$WORK/got" "$WORK/from-file" && [ -z "$(ls -A "$WORK/tmp")" ]
		tap_result $? "$desc: from a $how, the file's bytes (exit $status)"
		[ $status -eq 0 ] || sed 's/^/# /' "$WORK/stderr" | head -5
	done
}
# A socket's sort starts Python, which is slow to start: a few cases take it.
ALL_WAYS="pipe fifo socket dev-stdin" NO_SOCKET="pipe fifo dev-stdin"

# records TYPE COUNT FILE: COUNT records of the type's layout (u32, u64: bare keys;
# rec100: 100-byte records with 10-byte keys, items beside the records)
records() {
	case $1 in
	rec100) keygen --type=bytes --key-size=10 --record-size=100 --count="$2" --seed="$2" -o "$3" ;;
	*) keygen --type="$1" --count="$2" --seed="$2" -o "$3" ;;
	esac
}
layout_options() {
	case $1 in
	rec100) echo "--record-size=100 --key-size=10" ;;
	*) echo "--type=$1" ;;
	esac
}
check_layout() {
	case $1 in
	rec100) echo "--type=bytes --record-size=100 --key-size=10" ;;
	*) echo "--type=$1" ;;
	esac
}
record_bytes() {
	case $1 in u32) echo 4 ;; u64) echo 8 ;; rec100) echo 100 ;; esac
}

# Nothing, one record, and the counts where a buffer of unknown size grows: it starts
# at 1 MiB of records (src/pipeline/binary_sort.c, BINARY_FIRST_BYTES) and doubles.
for type in u32 u64 rec100; do
	opts=$(layout_options $type) check_options=$(check_layout $type)
	oracle_options=$opts
	first=$((1048576 / $(record_bytes $type)))
	for n in 0 1 $((first - 1)) $first $((first + 1)) $((2 * first + 1)); do
		records $type $n "$WORK/in"
		ways=pipe exact=
		[ $n -le 1 ] || [ $n -eq $((first + 1)) ] && ways=$NO_SOCKET
		[ $type = u64 ] && [ $n -ne 1 ] && [ "$ways" != pipe ] && ways=$ALL_WAYS
		[ $type = rec100 ] && [ $n -eq $((first + 1)) ] && exact=1
		# shellcheck disable=SC2086
		same_everywhere "$type, $n records" "$ways" "$WORK/in" $opts
	done
done

# Around the chunk under -S 1M, as memory_plan_binary sizes it for an input of unknown
# size: seven eighths of the budget for two chunks, each of records (in place: their
# keys, sorted with a scratch copy) or of records and items (16 bytes for 10-byte keys).
# A chunk's worth sorts in memory, one record more spills two runs (--stats says).
budget=1048576
chunk_budget=$((budget - budget / 8))
for type in u32 u64 rec100; do
	opts=$(layout_options $type) check_options=$(check_layout $type)
	oracle_options=$opts
	size=$(record_bytes $type)
	case $type in
	rec100) chunk=$((chunk_budget / (2 * (size + 16) + 16))) ;;
	*) chunk=$((chunk_budget / (3 * size))) ;;
	esac
	for n in $((chunk - 1)) $chunk $((chunk + 1)) $((2 * chunk + 1)); do
		records $type $n "$WORK/in"
		ways=pipe exact=
		[ $n -eq $((2 * chunk + 1)) ] && ways=$NO_SOCKET
		[ $type = rec100 ] && [ $n -eq $((2 * chunk + 1)) ] && ways=$ALL_WAYS exact=1
		# shellcheck disable=SC2086
		same_everywhere "$type, $n records, -S 1M" "$ways" "$WORK/in" $opts -S 1M
	done
	records $type $chunk "$WORK/in"
	# shellcheck disable=SC2086
	cat "$WORK/in" | "$GPUSORT" $opts -S 1M --stats > /dev/null 2> "$WORK/stats"
	grep -q 'stats: records [0-9]*, runs 0,' "$WORK/stats"
	tap_result $? "$type, a chunk's $chunk records from a pipe, -S 1M: sorted in memory"
	records $type $((chunk + 1)) "$WORK/in"
	# shellcheck disable=SC2086
	cat "$WORK/in" | "$GPUSORT" $opts -S 1M --stats > /dev/null 2> "$WORK/stats"
	grep -q 'stats: records [0-9]*, runs 2,' "$WORK/stats"
	tap_result $? "$type, $((chunk + 1)) records from a pipe, -S 1M: two runs"
done

# -u and -r over spilled runs of a pipe, duplicates across the chunks
keygen --type=u64 --count=50000 --dist=few-unique --seed=5 -o "$WORK/in"
oracle_options="--type=u64 -u" exact=1
same_everywhere "u64 few-unique, -u, -S 1M" pipe "$WORK/in" --type=u64 -u -S 1M
oracle_options="--type=u64 -r" check_options="--type=u64 -r" exact=
same_everywhere "u64 few-unique, -r, -S 1M" pipe "$WORK/in" --type=u64 -r -S 1M

# A partial record at the end: the file's message (its name and size), exit 2, the
# output left as it was and no temp file, whether in the first chunk or after runs.
for n in 3 800005; do
	keygen --type=u64 --count=$((n / 8)) --seed=6 -o "$WORK/in"
	head -c $((n % 8)) /dev/urandom >> "$WORK/in"
	echo old > "$WORK/out"
	expect_status 2 "$n bytes of u64 records from the file" "$GPUSORT" --type=u64 -S 1M "$WORK/in" -o "$WORK/out"
	sed "s|$WORK/in|NAME|" "$WORK/stderr" > "$WORK/file-message"
	ways="pipe fifo"
	[ $n -gt 3 ] && ways="pipe fifo socket"
	for how in $ways; do
		sort_from $how "$WORK/in" /dev/null --type=u64 -S 1M -o "$WORK/out"
		status=$?
		name="standard input"
		[ $how = fifo ] && name=$WORK/fifo
		sed "s|$name|NAME|" "$WORK/stderr" | cmp -s - "$WORK/file-message" && [ $status -eq 2 ] &&
			[ "$(cat "$WORK/out")" = old ] && [ -z "$(ls -A "$WORK/tmp")" ]
		result=$?
		tap_result $result "$n bytes of u64 records from a $how: the file's message, exit 2 ($status), output kept"
		[ $result -eq 0 ] || sed 's/^/# /' "$WORK/stderr" "$WORK/file-message" | head -4
	done
done

# The engine: --device=auto reads a pipe's first 64 KiB before it chooses, so eight bytes
# sort on the CPU threads as from the file, without a GPU's start; an input longer than
# that is of unknown size when the engine is chosen, and the small-input rule is not
# what decides.
printf 'abcdefgh' | "$GPUSORT" --type=u32 --verbose > /dev/null 2> "$WORK/stderr"
grep -q 'note: sorting on the CPU: items below 256 MiB' "$WORK/stderr"
tap_result $? "8 bytes from a pipe, --device=auto: the CPU chosen as for a small file"
head -c 131072 /dev/zero | "$GPUSORT" --type=u32 --verbose > /dev/null 2> "$WORK/stderr"
! grep -q 'items below 256 MiB' "$WORK/stderr"
tap_result $? "128 KiB from a pipe, --device=auto: chosen before the size is known"

# Memory: eight bytes take what they need, not the default budget (half of physical
# memory): under a few hundred MB of address space (two CPU threads, whose stacks count
# there too), and within 16 MiB of the file's peak RSS. A larger input grows its buffer
# under the same limit. (ASan's shadow memory takes terabytes of address space.)
printf 'abcdefgh' > "$WORK/eight"
keygen --type=u64 --count=1000003 --seed=7 -o "$WORK/in"
"$GPUSORT" --type=u64 "$WORK/in" -o "$WORK/want"
for input in eight in; do
	if [ -n "${GPUSORT_SANITIZED:-}" ]; then
		skip_test "ulimit -v: ASan's shadow memory does not fit (--enable-sanitizers)"
		continue
	elif ! (ulimit -v 300000) 2>/dev/null; then
		skip_test "this shell has no ulimit -v"
		continue
	fi
	type=u64 want=$WORK/want
	[ $input = eight ] && type=u32 want=$WORK/eight
	(ulimit -v 300000 && cat "$WORK/$input" | "$GPUSORT" --device=cpu --parallel=2 --type=$type > "$WORK/got") \
		2> "$WORK/stderr"
	status=$?
	[ $status -eq 0 ] && cmp -s "$WORK/got" "$want"
	tap_result $? "$(wc -c < "$WORK/$input") bytes of $type from a pipe under ulimit -v 300000: sorted (exit $status)"
	[ $status -eq 0 ] || sed 's/^/# /' "$WORK/stderr" | head -2
done

TIME=/usr/bin/time
if ! "$TIME" -f %M true >/dev/null 2>&1; then
	skip_test "no $TIME to measure the peak memory"
elif [ -n "${GPUSORT_SANITIZED:-}" ]; then
	skip_test "peak RSS: ASan's own memory counts in it (--enable-sanitizers)"
else
	"$TIME" -f %M -o "$WORK/rss" "$GPUSORT" --device=cpu --type=u32 "$WORK/eight" > /dev/null
	file_kb=$(tail -n 1 "$WORK/rss")
	cat "$WORK/eight" | "$TIME" -f %M -o "$WORK/rss" "$GPUSORT" --device=cpu --type=u32 > /dev/null
	pipe_kb=$(tail -n 1 "$WORK/rss")
	test "$pipe_kb" -le $((file_kb + 16384))
	tap_result $? "8 bytes: peak RSS ${pipe_kb} KiB from a pipe <= ${file_kb} KiB from the file + 16 MiB"
fi
done_testing
