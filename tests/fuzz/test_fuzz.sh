#!/bin/sh
# SPDX-License-Identifier: MIT
# The libFuzzer harnesses (built when configure found clang with libFuzzer): each must
# run its committed seed corpus cleanly, then fuzz for GPUSORT_FUZZ_SECONDS (default
# 20) starting from it (new inputs go to a scratch directory; the committed corpus is
# only read). A crash, leak, timeout or failed check fails the test; the log shows
# libFuzzer's report and the input that did it, in hex.
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib.sh"

if [ -z "${GPUSORT_FUZZ:-}" ]; then
	echo "1..0 # SKIP fuzz harnesses not built (configure found no clang with libFuzzer, or --disable-fuzz)"
	exit 0
fi
seconds=${GPUSORT_FUZZ_SECONDS:-20}
cd "$WORK" || exit 2

# report NAME LOG: the finding (from its first line) and the failing input, as TAP
# comments.
report() {
	awk '/ERROR:|runtime error:|check failed|deadly signal|Test unit written/ { on = 1 }
	     on && shown < 40 { print "# " $0; shown++ }' "$2"
	for artifact in "$WORK/$1"-crash-* "$WORK/$1"-leak-* "$WORK/$1"-timeout-* "$WORK/$1"-oom-*; do
		[ -f "$artifact" ] || continue
		echo "# input $(basename "$artifact"):"
		od -A d -t x1 "$artifact" | head -n 20 | sed 's/^/#   /'
	done
}

for name in fuzz_options fuzz_text_compare fuzz_run_file; do
	harness="$TESTS_BUILDDIR/fuzz/$name"
	corpus="$TESTS_SRCDIR/fuzz/corpus/$name"
	dict=
	[ -f "$TESTS_SRCDIR/fuzz/$name.dict" ] && dict="-dict=$TESTS_SRCDIR/fuzz/$name.dict"
	seeds=$(ls "$corpus" | wc -l)

	"$harness" -runs=0 -timeout=10 -artifact_prefix="$WORK/$name-" "$corpus" >"$WORK/$name.replay" 2>&1
	status=$?
	tap_result $status "$name: the $seeds seed inputs run cleanly"
	[ $status -eq 0 ] || report "$name" "$WORK/$name.replay"

	mkdir "$WORK/$name.corpus"
	# $dict unquoted: empty, or one word
	"$harness" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 $dict \
		-print_final_stats=1 -artifact_prefix="$WORK/$name-" \
		"$WORK/$name.corpus" "$corpus" >"$WORK/$name.fuzz" 2>&1
	status=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$WORK/$name.fuzz")
	tap_result $status "$name: ${seconds} s of fuzzing, ${runs:-?} inputs, no finding"
	[ $status -eq 0 ] || report "$name" "$WORK/$name.fuzz"
done
done_testing
