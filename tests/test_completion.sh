#!/bin/sh
# SPDX-License-Identifier: MIT
# The bash completion (completion/gpusort.bash) under bash-completion: "--" offers every
# long option of gpusort --help, an option's words are offered after it (--type=,
# --algorithm, --sort=, --check=), and -T completes directories. Skips without bash
# or bash-completion.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

framework=
for f in /usr/share/bash-completion/bash_completion /etc/bash_completion; do
	[ -r "$f" ] && framework=$f && break
done
if ! command -v bash >/dev/null 2>&1 || [ -z "$framework" ]; then
	echo "1..0 # SKIP bash or bash-completion is not installed"
	exit 0
fi
script="$TESTS_SRCDIR/../completion/gpusort.bash"
mkdir -p "$WORK/bin" "$WORK/dir.d"
ln -s "$GPUSORT" "$WORK/bin/gpusort"
: > "$WORK/file.txt"

# complete LINE: the words bash would offer for LINE (completed at its end), one a line.
complete_line() {
	(cd "$WORK" && PATH="$WORK/bin:$PATH" bash -c '
		. "$1"; . "$2"
		COMP_LINE=$3; COMP_POINT=${#COMP_LINE}
		read -ra COMP_WORDS <<< "$COMP_LINE"
		[[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
		_gpusort gpusort "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' sh "$framework" "$script" "$1")
}

"$GPUSORT" --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u > "$WORK/help.options"
complete_line "gpusort --" | sed 's/=$//' | sort -u > "$WORK/offered"
missing=$(comm -23 "$WORK/help.options" "$WORK/offered" | tr '\n' ' ')
tap_result "$(test -z "$missing"; echo $?)" "-- offers every long option of --help${missing:+ (missing: $missing)}"
test "$(wc -l < "$WORK/help.options")" -gt 40
tap_result $? "--help lists the long options ($(wc -l < "$WORK/help.options"))"

words() { complete_line "$1" | sort | tr '\n' ' ' | sed 's/ $//'; }
for case in "gpusort --type=u|u32 u64" "gpusort --type |bytes f32 f64 i32 i64 u32 u64" \
	"gpusort --algorithm=b|bitonic bucket" "gpusort --sort=h|human-numeric" \
	"gpusort --check=|diagnose-first quiet silent" "gpusort --device=|0 1 2 3 4 5 6 7 auto cpu" \
	"gpusort --st|--stable --stats" "gpusort -T di|dir.d" "gpusort -o fi|file.txt"; do
	line=${case%%|*} expected=${case#*|}
	got=$(words "$line")
	[ "$got" = "$expected" ]
	status=$?
	tap_result $status "'$line' offers: $expected"
	[ $status -eq 0 ] || echo "# got: $got"
done
done_testing
