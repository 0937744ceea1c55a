#!/bin/sh
# SPDX-License-Identifier: MIT
# libgpusort.so exports the API and nothing else, under its SONAME; and the command,
# built as a client of that shared library (tests/gpusort_shared), links against
# those exports alone and behaves as gpusort does: the same output, messages and exit
# statuses for sorts, checks and usage errors of both modes.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

library=$(dirname "$TESTS_BUILDDIR")/.libs/libgpusort.so
shared="$TESTS_BUILDDIR/gpusort_shared"

if [ -f "$library" ] && command -v nm >/dev/null 2>&1; then
	nm -D --defined-only "$library" | awk '{print $3}' > "$WORK/exports"
	check "libgpusort.so exports something" test -s "$WORK/exports"
	check "every export is gpusort_*" sh -c "! grep -v '^gpusort_' '$WORK/exports'"
	for call in gpusort_run gpusort_job_init gpusort_sort_records gpusort_sort_options_init \
		gpusort_error_name gpusort_is_error gpusort_version_number gpusort_version_string \
		gpusort_keydef_check gpusort_parse_size gpusort_cancel; do
		check "$call is exported" grep -qx "$call" "$WORK/exports"
	done
	check "the SONAME is libgpusort.so.1" sh -c \
		"readelf -d '$library' | grep -q 'SONAME.*\[libgpusort\.so\.1\]'"
else
	skip_test "no shared libgpusort (--disable-shared) or no nm"
fi

# Runs the command both ways; their stdout, stderr and status must agree.
same() {
	desc=$1
	shift
	"$GPUSORT" "$@" >"$WORK/static.out" 2>"$WORK/static.err"
	static_status=$?
	"$shared" "$@" >"$WORK/shared.out" 2>"$WORK/shared.err"
	shared_status=$?
	cmp -s "$WORK/static.out" "$WORK/shared.out" && cmp -s "$WORK/static.err" "$WORK/shared.err" &&
		[ "$static_status" = "$shared_status" ]
	tap_result $? "$desc (exit $static_status)"
}

printf 'b,3\na,10\nc,-1\nb,3\nd,2\n' > "$WORK/text"
keygen --type=u64 --count=5000 -o "$WORK/keys"
same "text -t, -k2,2n" -t, -k2,2n "$WORK/text"
same "text -u -r" -u -r "$WORK/text"
same "text -c disorder" -c "$WORK/text"
same "binary u64" --type=u64 "$WORK/keys"
same "binary records, bytes key" --record-size=8 --key-offset=2 --key-size=3 "$WORK/keys"
same "usage: key beyond the record" --record-size=8 --key-offset=6 --type=u32 "$WORK/keys"
same "usage: text key in binary mode" -k1,1 --type=u32 "$WORK/keys"
same "usage: bad KEYDEF" -k 0 "$WORK/text"
same "usage: -c with -o" -c -o "$WORK/out" "$WORK/text"
same "missing input" "$WORK/missing"
same "--version" --version

done_testing
