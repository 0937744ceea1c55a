# SPDX-License-Identifier: MIT
# Sourced by tests that compare gpusort with tests/binary_oracle.py over many cases:
# each case is sorted at once, and one Python run computes all expected outputs.
# CASE_OPTIONS, set before queue_case, goes to both gpusort and the oracle.

# queue_case DESCRIPTION "GPUSORT AND ORACLE OPTIONS" INPUT [GPUSORT-ONLY OPTIONS]: sorts
# INPUT now into $WORK/got.N and queues the oracle's sort of it; the inputs of the
# queued cases must stay as they are until flush_cases.
queued=0
: >"$WORK/jobs"
queue_case() {
	desc=$1 opts="${CASE_OPTIONS:+$CASE_OPTIONS }$2" input=$3
	shift 3
	queued=$((queued + 1))
	# shellcheck disable=SC2086
	"$GPUSORT" $opts "$@" "$input" -o "$WORK/got.$queued" 2>"$WORK/stderr.$queued"
	echo $? >"$WORK/status.$queued"
	printf '%s\n' "$desc" >"$WORK/desc.$queued"
	echo "$opts $input $WORK/want.$queued" >>"$WORK/jobs"
}

# flush_cases: the oracle computes every queued case's expected output (see
# tests/binary_oracle.py --batch), then each case is compared byte for byte and
# reported as its own TAP line, in the order queued.
flush_cases() {
	rm -f "$WORK"/want.*
	oracle --batch="$WORK/jobs"
	oracle_status=$?
	i=0
	while [ $i -lt $queued ]; do
		i=$((i + 1))
		read -r sort_status <"$WORK/status.$i"
		read -r desc <"$WORK/desc.$i"
		[ "$sort_status" -eq 0 ] && [ $oracle_status -eq 0 ] && cmp -s "$WORK/got.$i" "$WORK/want.$i"
		status=$?
		tap_result $status "$desc"
		[ $status -eq 0 ] || sed 's/^/# /' "$WORK/stderr.$i" | head -5
	done
	queued=0
	: >"$WORK/jobs"
}
