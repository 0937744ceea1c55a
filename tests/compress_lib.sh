# SPDX-License-Identifier: MIT
# Setup and helpers for the --compress-program tests (sourced after lib.sh): the temp
# directory $WORK/tmp (TMPDIR), and PROG, a script that appends "call" or "call -d" to
# $CALLS for each run it serves.

mkdir "$WORK/tmp" "$WORK/bin"
export TMPDIR="$WORK/tmp"
CALLS="$WORK/calls"
export CALLS

# prog [-d]: the logging PROG; TOOL (gzip, zstd, cat) does the work, FAIL (compress,
# decompress) makes that side exit 1 after reading all its input, CORRUPT makes -d give
# back other bytes than went in, SLOW makes compressing wait 2 seconds first.
cat >"$WORK/bin/prog" <<'EOF'
#!/bin/sh
echo "call ${1:-}" >>"$CALLS"
side=compress
[ "${1:-}" = -d ] && side=decompress
if [ "${FAIL:-}" = "$side" ]; then cat >/dev/null; exit 1; fi
if [ $side = decompress ] && [ -n "${CORRUPT:-}" ]; then gzip -dc | tr 'a-m' 'n-z'; exit 0; fi
[ $side = compress ] && [ -n "${SLOW:-}" ] && sleep 2
case ${TOOL:-gzip} in
gzip) if [ $side = decompress ]; then exec gzip -dc; else exec gzip -1c; fi ;;
zstd) if [ $side = decompress ]; then exec zstd -qdc; else exec zstd -q -1 -c; fi ;;
cat) exec cat ;;
esac
EOF
chmod +x "$WORK/bin/prog"
PROG="$WORK/bin/prog"

echo "old output" >"$WORK/out.old"
# untouched: the output still holds its old contents, no temp file is left, and no
# PROG is running (every child was waited for before gpusort exited).
untouched() {
	cmp -s "$WORK/out" "$WORK/out.old" && test -z "$(ls -A "$WORK/tmp")" && ! running
}
running() { ps -eo args | grep -F "$WORK/bin/prog" | grep -qv grep; }
fresh_output() { cp "$WORK/out.old" "$WORK/out"; }
# calls: how many times PROG ran for compressing, and for -d, as "C D".
calls() {
	compress=$(grep -c '^call $' "$CALLS" 2>/dev/null)
	decompress=$(grep -c '^call -d$' "$CALLS" 2>/dev/null)
	echo "${compress:-0} ${decompress:-0}"
}
