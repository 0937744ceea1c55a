#!/bin/sh
# SPDX-License-Identifier: MIT
# The manual pages (man/*.1, man/*.3): mandoc -T lint finds no error or warning (a
# date it can parse, no paragraph macro it must skip), groff -ww warns of nothing, the
# rendered pages never hyphenate the name gpusort, and every page states the MIT
# licence that LICENSE holds. Each tool's cases skip with a reason when it is missing.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

MAN="$TESTS_SRCDIR/../man"
pages=$(ls "$MAN"/*.1 "$MAN"/*.3)

if command -v mandoc >/dev/null 2>&1; then
	mandoc -T lint -W warning $pages >"$WORK/mandoc" 2>&1
	status=$?
	[ $status -eq 0 ] && [ ! -s "$WORK/mandoc" ]
	tap_result $? "mandoc -T lint: no error or warning in man/ (exit $status)"
	sed 's/^/#   /' "$WORK/mandoc"
else
	skip_test "mandoc is not installed: no lint of man/"
fi

if command -v groff >/dev/null 2>&1; then
	groff -man -ww -z $pages >"$WORK/groff" 2>&1
	status=$?
	[ $status -eq 0 ] && [ ! -s "$WORK/groff" ]
	tap_result $? "groff -man -ww: no warning in man/ (exit $status)"
	sed 's/^/#   /' "$WORK/groff"
	# The name, or a name made of it (libgpusort, gpusort_run), broken at a line's end
	# at any of these widths: groff hyphenates with U+2010 under -Tutf8, '-' under -Tascii.
	: >"$WORK/broken"
	for width in 45 50 60 65 70 78; do
		for page in $pages; do
			groff -man -Tascii -rLL=${width}n "$page" 2>/dev/null | col -b |
				grep -n 'gpu[a-z_]*-$' | sed "s|^|#   $(basename "$page") at $width columns: |" >>"$WORK/broken"
		done
	done
	[ ! -s "$WORK/broken" ]
	tap_result $? "the rendered pages never hyphenate gpusort ($(wc -l <"$WORK/broken") breaks)"
	cat "$WORK/broken"
else
	skip_test "groff is not installed: no warnings or hyphenation to check"
	skip_test "groff is not installed: no hyphenation to check"
fi

head -1 "$TESTS_SRCDIR/../LICENSE" | grep -q '^MIT License$'
tap_result $? "LICENSE is the MIT licence"
for page in $pages; do
	# a page of a group's other name is a link to the group's page, which says it
	grep -q '^License MIT: <https://opensource.org/licenses/MIT>\.$' "$page"
	tap_result $? "$(basename "$page") states the MIT licence"
done
done_testing
