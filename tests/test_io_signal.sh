#!/bin/sh
# SPDX-License-Identifier: MIT
# A signal while temp files and a half-written output exist: the process dies by that
# signal (as GNU sort) and leaves neither temp files nor the output's twin; the old
# output stays as it was. SIGTERM, SIGHUP, SIGPIPE (SIGINT is ignored by background
# jobs of a non-interactive shell, and an ignored signal stays ignored, as in GNU sort).
# The tool starts with each signal's default action, so that a suite run under nohup
# (SIGHUP ignored, and so inherited ignored) still tests SIGHUP instead of waiting for
# ever; and then once with SIGHUP ignored, which must stay ignored. With the signal
# thread (gpusort_signals_thread, which the command starts) the same, the main thread
# holding the signals blocked, so only that thread can act; and the command's main
# thread blocks them too.
tool=${TESTS_BUILDDIR:-tests}/io_tool
work=$(mktemp -d "${TMPDIR:-/tmp}/test_io_signal.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
mkdir "$work/tmp"
n=0
echo "1..13"

# hold ENV-OPTION [thread]: starts the tool holding 3 temp files and a half-written output over
# an old one (pid in $pid), and waits until it is ready; counts those files.
hold() {
	printf 'old\n' > "$work/out"
	rm -f "$work/ready"
	env "$1" "$tool" hold "$work/tmp" "$work/out" ${2:-} > "$work/ready" &
	pid=$!
	tries=0
	while ! grep -q ready "$work/ready" 2>/dev/null && [ $tries -lt 200 ]; do
		sleep 0.05; tries=$((tries + 1))
	done
	files=$(ls -A "$work/tmp" | wc -l)
	twins=$(ls -A "$work" | grep -c gpusort-out)
}

# wait_gone: waits up to 5 s for $pid to end, then kills it outright; its status.
wait_gone() {
	tries=0
	while kill -0 $pid 2>/dev/null && [ $tries -lt 100 ]; do
		sleep 0.05; tries=$((tries + 1))
	done
	kill -KILL $pid 2>/dev/null
	wait $pid
}

for signal in TERM:15 HUP:1 PIPE:13 TERM:15:thread HUP:1:thread; do
	how=${signal#*:*:} number=${signal#*:}
	number=${number%%:*}
	signal=${signal%%:*}
	[ "$how" = thread ] && name="SIG$signal to the signal thread" || name=SIG$signal how=
	hold --default-signal=$signal $how
	kill -$signal $pid
	wait_gone
	status=$?
	n=$((n + 1))
	expected=$((128 + number))
	if [ "$files" = 3 ] && [ "$twins" = 1 ] && [ $status = $expected ]; then
		echo "ok $n - $name: killed by it (status $status)"
	else
		echo "not ok $n - $name: status $status (want $expected), $files temps, $twins twins before"
	fi
	n=$((n + 1))
	if [ -z "$(ls -A "$work/tmp")" ] && [ "$(ls -A "$work")" = "$(printf 'out\nready\ntmp')" ] \
	   && [ "$(cat "$work/out")" = old ]; then
		echo "ok $n - $name: temp files and twin removed, old output intact"
	else
		echo "not ok $n - $name: left $(ls -A "$work" "$work/tmp" | tr '\n' ' ')"
	fi
done

# Started with SIGHUP ignored (as under nohup): it stays ignored, as in GNU sort, and a
# SIGTERM afterwards still cleans up.
hold --ignore-signal=HUP
kill -HUP $pid
sleep 0.3
kill -0 $pid 2>/dev/null
alive=$?
kill -TERM $pid
wait $pid
status=$?
n=$((n + 1))
if [ $alive = 0 ] && [ "$files" = 3 ] && [ "$twins" = 1 ]; then
	echo "ok $n - SIGHUP inherited ignored: still running after it"
else
	echo "not ok $n - SIGHUP inherited ignored: alive $alive (want 0), $files temps, $twins twins before"
fi
n=$((n + 1))
if [ $status = 143 ] && [ -z "$(ls -A "$work/tmp")" ] && [ "$(ls -A "$work")" = "$(printf 'out\nready\ntmp')" ] \
   && [ "$(cat "$work/out")" = old ]; then
	echo "ok $n - then SIGTERM: killed by it (status $status), temp files and twin removed, old output intact"
else
	echo "not ok $n - then SIGTERM: status $status (want 143), left $(ls -A "$work" "$work/tmp" | tr '\n' ' ')"
fi

# The command: its main thread (waiting to open a FIFO nobody writes) has SIGHUP and
# SIGTERM blocked (SigBlk bits 1 and 15: 0x4001; SIGINT, which a background job starts
# with ignored, stays ignored and unblocked), and a SIGTERM ends it (143).
mkfifo "$work/fifo"
"${GPUSORT:-./gpusort}" "$work/fifo" > /dev/null 2>&1 &
pid=$!
tries=0
while ! grep -q '^State:.*S' /proc/$pid/status 2>/dev/null && [ $tries -lt 100 ]; do
	sleep 0.05; tries=$((tries + 1))
done
sleep 0.2
blocked=$(sed -n 's/^SigBlk:[[:space:]]*//p' /proc/$pid/status)
kill -TERM $pid
wait_gone
status=$?
n=$((n + 1))
if [ $status = 143 ] && [ $(( 0x$blocked & 0x4001 )) = $(( 0x4001 )) ]; then
	echo "ok $n - gpusort's main thread blocks SIGHUP, SIGINT, SIGTERM ($blocked); SIGTERM ends it (143)"
else
	echo "not ok $n - gpusort: main thread's SigBlk $blocked (want 0x4001 in it), status $status (want 143)"
fi
