#!/bin/sh
# SPDX-License-Identifier: MIT
# A signal while temp files and a half-written output exist: the process dies by that
# signal (as GNU sort) and leaves neither temp files nor the output's twin; the old
# output stays as it was. SIGTERM, SIGHUP, SIGPIPE (SIGINT is ignored by background
# jobs of a non-interactive shell, and an ignored signal stays ignored, as in GNU sort).
# The tool starts with each signal's default action, so that a suite run under nohup
# (SIGHUP ignored, and so inherited ignored) still tests SIGHUP instead of waiting for
# ever; and then once with SIGHUP ignored, which must stay ignored.
tool=${TESTS_BUILDDIR:-tests}/io_tool
work=$(mktemp -d "${TMPDIR:-/tmp}/test_io_signal.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
mkdir "$work/tmp"
n=0
echo "1..8"

# hold ENV-OPTION: starts the tool holding 3 temp files and a half-written output over
# an old one (pid in $pid), and waits until it is ready; counts those files.
hold() {
	printf 'old\n' > "$work/out"
	rm -f "$work/ready"
	env "$1" "$tool" hold "$work/tmp" "$work/out" > "$work/ready" &
	pid=$!
	tries=0
	while ! grep -q ready "$work/ready" 2>/dev/null && [ $tries -lt 200 ]; do
		sleep 0.05; tries=$((tries + 1))
	done
	files=$(ls -A "$work/tmp" | wc -l)
	twins=$(ls -A "$work" | grep -c gpusort-out)
}

for signal in TERM:15 HUP:1 PIPE:13; do
	number=${signal#*:}
	signal=${signal%:*}
	hold --default-signal=$signal
	kill -$signal $pid
	wait $pid
	status=$?
	n=$((n + 1))
	expected=$((128 + number))
	if [ "$files" = 3 ] && [ "$twins" = 1 ] && [ $status = $expected ]; then
		echo "ok $n - SIG$signal: killed by it (status $status)"
	else
		echo "not ok $n - SIG$signal: status $status (want $expected), $files temps, $twins twins before"
	fi
	n=$((n + 1))
	if [ -z "$(ls -A "$work/tmp")" ] && [ "$(ls -A "$work")" = "$(printf 'out\nready\ntmp')" ] \
	   && [ "$(cat "$work/out")" = old ]; then
		echo "ok $n - SIG$signal: temp files and twin removed, old output intact"
	else
		echo "not ok $n - SIG$signal: left $(ls -A "$work" "$work/tmp" | tr '\n' ' ')"
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
