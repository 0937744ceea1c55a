#!/bin/sh
# SPDX-License-Identifier: MIT
# GNU sort 9.1's words and exit statuses where gpusort takes the same case: -S sizes
# (blanks, '+', %, suffixes, overflow), the hidden -y, --files0-from lists, -k words that
# are neither a KEYDEF nor a file, and -h's suffixes (K to Y, not 9.2's R and Q). Each
# case runs through the system sort and gpusort: stderr (the program's name aside), the
# exit status and stdout must be the same. Then two cases GNU sort has no words for: a
# run damaged on disk read back through a cat-like PROG -d is reported as damaged, not
# as PROG's failure; and a SIGTERM at random moments into a spilled sort with many temp
# files says nothing and leaves nothing.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

ORACLE=${GPUSORT_ORACLE:-sort}
if ! "$ORACLE" --version 2>/dev/null | grep -q 'GNU coreutils'; then
	echo "1..0 # SKIP the system sort is not GNU sort"
	exit 0
fi
# 9.2 added R and Q as suffixes of -h and -S; gpusort follows 9.1
oracle_version=$("$ORACLE" --version | sed -n '1s/.* \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p')
oracle_after_9_1=false
[ "$(printf '%s\n9.2\n' "$oracle_version" | sort -V | head -n 1)" = 9.2 ] && oracle_after_9_1=true

mkdir "$WORK/tmp" "$WORK/cases"
export TMPDIR="$WORK/tmp"
cd "$WORK/cases" || exit 2

# same_as_gnu LABEL INPUT ARG...: both programs with ARGs in this directory, INPUT on
# stdin ('-' for a closed stdin); stdout, stderr (names aside) and status compared.
same_as_gnu() {
	label=$1 input=$2
	shift 2
	if [ "$input" = - ]; then
		"$ORACLE" "$@" >"$WORK/gnu.out" 2>"$WORK/gnu.err" <&-
		gnu_status=$?
		"$GPUSORT" "$@" >"$WORK/ours.out" 2>"$WORK/ours.err" <&-
	else
		"$ORACLE" "$@" >"$WORK/gnu.out" 2>"$WORK/gnu.err" <"$input"
		gnu_status=$?
		"$GPUSORT" "$@" >"$WORK/ours.out" 2>"$WORK/ours.err" <"$input"
	fi
	ours_status=$?
	sed -e "s/^$ORACLE: /gpusort: /" -e "s/^Try '$ORACLE --help'/Try 'gpusort --help'/" "$WORK/gnu.err" \
		>"$WORK/gnu.words"
	echo "exit $gnu_status" >>"$WORK/gnu.words"
	echo "exit $ours_status" >>"$WORK/ours.err"
	cmp -s "$WORK/gnu.words" "$WORK/ours.err" && cmp -s "$WORK/gnu.out" "$WORK/ours.out"
	tap_result $? "$label: as GNU sort (exit $gnu_status)"
	if ! cmp -s "$WORK/gnu.words" "$WORK/ours.err"; then
		echo "#   sort: $(head -3 "$WORK/gnu.words")"
		echo "#   gpusort: $(head -3 "$WORK/ours.err")"
	fi
}

printf 'b\na\nc\n' >abc
printf 'b\na\n' >ya.txt

# --- -S: xstrtoumax (leading blanks and '+', a suffix alone is one of it, an overflow
# is too large) and specify_sort_size (KiB by default, b, % of memory however many)
for size in '+1K' ' 1k' '	1' ' +1' '101%' '4294967296%' '1Z' '1Y' '18014398509481984' \
	'18014398509481983' '18446744073709551615' '18446744073709551615b' '18446744073709551616' \
	'16E' '15E' '0Y' '17179869184G' '1000000000000%' '99999999999999999999%' \
	'0' '0K' '1b' '0%' '1%' '100%' '1k' '1m' '1g' '1t' '1E' '1P' 'K' 'M' 'Z' \
	'-1' '-0' ' -1' '+' '+K' ' K' '' ' ' 'b' '%' \
	'1KB' '1kB' '1KiB' '1B' '1p' '1e' '1z' '1y' '1 ' '1 K' '1.5M' '1bk' '1%b' '1%%' 'Kb' '0x10'; do
	same_as_gnu "-S '$size'" abc -S "$size"
done
same_as_gnu "--buffer-size=1Z" abc --buffer-size=1Z
same_as_gnu "-S 1M -S 1Z: the second still judged" abc -S 1M -S 1Z
for size in 1R 1Q 0Q; do
	if $oracle_after_9_1; then
		skip_test "-S '$size': the system sort ($oracle_version) reads R and Q, 9.1 (gpusort's) does not"
	else
		same_as_gnu "-S '$size' (no suffix in 9.1)" abc -S "$size"
	fi
done

# --- -y: GNU's hidden option for old Solaris scripts, with an argument that is
# ignored; one not all digits, given as a word of its own, is read again
same_as_gnu "-y0" abc -y0
same_as_gnu "-y 100" abc -y 100
same_as_gnu "-yx (attached: ignored)" abc -yx
same_as_gnu "-y '' (no digits at all)" abc -y ''
same_as_gnu "-y FILE: the file is sorted" abc -y ya.txt
same_as_gnu "-y 5 FILE" abc -y 5 ya.txt
same_as_gnu "-y missing: read as a file" abc -y missing
same_as_gnu "-y 1x: read as a file" abc -y 1x
same_as_gnu "-y -: standard input" abc -y -
same_as_gnu "-y -r: read as an option" abc -y -r ya.txt
same_as_gnu "-y -1: read as an option" abc -y -1 ya.txt
same_as_gnu "-y +1: the obsolete key" abc -y +1 ya.txt
same_as_gnu "-ry 5" abc -ry 5 ya.txt
same_as_gnu "-y last: needs an argument" abc -y
same_as_gnu "-ry last: needs an argument" abc ya.txt -ry
same_as_gnu "--y: no long option" abc --y

# --- --files0-from: '-' refused in any list, names checked in order, a list that
# opens but cannot be read, an empty list, operands beside it
printf 'ya.txt\000-\000' >dash.list
printf -- '-\000' >dash-only.list
: >empty.list
printf 'ya.txt\000\000ya.txt\000' >zero.list
printf '\000-\000' >zero-then-dash.list
printf 'ya.txt\000ya.txt' >good.list
printf 'ya.txt\000missing\000' >missing.list
printf 'ya.txt\000' >"it's.list"
printf '\000' >"a b.list"
mkdir dir "it's dir"
same_as_gnu "--files0-from a list holding '-'" abc --files0-from=dash.list
same_as_gnu "--files0-from a list of '-' alone" abc --files0-from=dash-only.list
same_as_gnu "--files0-from=- holding '-'" dash.list --files0-from=-
same_as_gnu "--files0-from a list holding '-', with -c" abc -c --files0-from=dash.list
same_as_gnu "--files0-from=DIR" abc --files0-from=dir
same_as_gnu "--files0-from=DIR, quoted" abc "--files0-from=it's dir"
same_as_gnu "--files0-from=- from a directory" dir --files0-from=-
same_as_gnu "--files0-from=- with stdin closed" - --files0-from=-
same_as_gnu "--files0-from=/proc/self/mem (read fails)" abc --files0-from=/proc/self/mem
same_as_gnu "--files0-from an empty list" abc --files0-from=empty.list
same_as_gnu "--files0-from=- empty" empty.list --files0-from=-
same_as_gnu "--files0-from a zero-length name" abc --files0-from=zero.list
same_as_gnu "--files0-from=- with a zero-length name" zero.list --files0-from=-
same_as_gnu "--files0-from a zero-length name first" abc --files0-from=zero-then-dash.list
same_as_gnu "--files0-from a zero-length name, list name quoted" abc "--files0-from=a b.list"
same_as_gnu "--files0-from a list naming a missing file" abc --files0-from=missing.list
same_as_gnu "--files0-from a missing list" abc --files0-from=missing
same_as_gnu "--files0-from=''" abc --files0-from=
same_as_gnu "--files0-from a good list" abc --files0-from=good.list
same_as_gnu "--files0-from with an operand" abc --files0-from=good.list ya.txt
same_as_gnu "--files0-from with an operand, quoted" abc --files0-from=good.list "it's"
same_as_gnu "--files0-from a missing list, with an operand" abc --files0-from=missing ya.txt
same_as_gnu "--files0-from two names, with -c" abc -c --files0-from=good.list
same_as_gnu "--files0-from, the last one counts" abc --files0-from=good.list --files0-from=dash.list

# --- -k: a word that is neither a KEYDEF nor an existing file is a KEYDEF gone wrong
for key in ',2' 'x' '.1' 'a' 'b' 'n' 'nosuch.bin' './x' 'x/y' "it's" 'a b' '+x' ' x' '' \
	'0' '0.1' '1.0' '1,0' '1,1.0' '1,1x' '1x' '1.x' '1,x' '1.' '1,' '-1' '1.1.1' '1,2,3' '1bx'; do
	same_as_gnu "-k '$key'" abc -k "$key"
done
ln -s nowhere dangling
same_as_gnu "-k naming a dangling symlink" abc -k dangling
same_as_gnu "-k 1,1 -k x" abc -k 1,1 -k x
same_as_gnu "--key=x" abc --key=x
same_as_gnu "-kx" abc -kx

# --- -h: 9.1 knows K (k) M G T P E Z Y; R and Q are no suffixes there
printf '8R\n1E\n1Q\n2Y\n1Z\n3k\n-1R\n-2Q\n5\n' >human
if $oracle_after_9_1; then
	skip_test "-h with R and Q: the system sort ($oracle_version) reads them, 9.1 (gpusort's) does not"
	skip_test "-h -r with R and Q: the system sort ($oracle_version) reads them"
	skip_test "-h --debug with R and Q: the system sort ($oracle_version) reads them"
else
	same_as_gnu "-h: R and Q are no suffixes" human -h
	same_as_gnu "-h -r: R and Q are no suffixes" human -h -r
	same_as_gnu "-h --debug: R and Q are not underlined" human -h --debug
fi
if ! $oracle_after_9_1; then
	# a spilled sort: the key images of the chunks order as the full comparison
	awk 'BEGIN { srand(3); for (i = 0; i < 60000; i++) printf "%d%s\n", int(rand() * 1000), substr("KMGTPEZYRQ x", int(rand() * 12) + 1, 1) }' >spilled
	same_as_gnu "-h spilled, R and Q among K to Y" spilled -h -S 200K
fi

cd "$WORK" || exit 2

# --- a run damaged on disk, read back through a PROG whose -d is cat: the blocks'
# checksums find it, and PROG -d, which would have given every byte, is not blamed
cat >"$WORK/damaging" <<'EOF'
#!/bin/sh
if [ "${1:-}" = -d ]; then exec cat; fi
exec tr 'a-m' 'n-z'
EOF
chmod +x "$WORK/damaging"
"$TESTS_BUILDDIR/textgen" 60000 11 >"$WORK/text"
echo "old output" >"$WORK/out.old"
for threads in 1 2; do
	cp "$WORK/out.old" "$WORK/out"
	expect_status 2 "damaged runs through PROG -d = cat, $threads thread(s)" \
		"$GPUSORT" -S 1M --parallel=$threads --compress-program="$WORK/damaging" "$WORK/text" -o "$WORK/out"
	! grep -v "^gpusort: read failed: $TMPDIR/gpusort\.[A-Za-z0-9]*: corrupted data (checksum mismatch)\$" \
		"$WORK/stderr" >/dev/null && [ -s "$WORK/stderr" ]
	tap_result $? "damaged runs, $threads thread(s): reported as corrupted data, PROG not blamed"
	grep -v "corrupted data" "$WORK/stderr" | head -3 | sed 's/^/#   /'
	cmp -s "$WORK/out" "$WORK/out.old" && [ -z "$(ls -A "$TMPDIR")" ]
	tap_result $? "damaged runs, $threads thread(s): old output untouched, no temp file left"
done

# --- SIGTERM at random moments into a spilled sort (a private -T; short lines make
# many runs, a file every few milliseconds and ~90 at once, and --batch-size=2 many
# merge passes): the process dies by the signal or has finished, it says nothing, and
# no temp file is left. 40 tries; the moments spread over the sort's run.
awk 'BEGIN { srand(5); for (i = 0; i < 200000; i++) printf "%c%c\n", 97 + int(rand() * 26), 97 + int(rand() * 26) }' \
	>"$WORK/spill"
mkdir "$WORK/T"
start=$(date +%s%N)
"$GPUSORT" -S 64K --batch-size=2 -T "$WORK/T" "$WORK/spill" -o "$WORK/sorted"
took_ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$took_ms" -gt 20 ] || took_ms=20
said=0 left=0 statuses="" random=7
i=0
while [ $i -lt 40 ]; do
	i=$((i + 1))
	rm -f "$WORK/sorted"
	env --default-signal=TERM "$GPUSORT" -S 64K --batch-size=2 -T "$WORK/T" "$WORK/spill" \
		-o "$WORK/sorted" 2>"$WORK/term.err" &
	pid=$!
	random=$(( (random * 1103515245 + 12345) % 2147483648 ))
	delay_ms=$(( random % took_ms ))
	sleep "$((delay_ms / 1000)).$(printf '%03d' $((delay_ms % 1000)))"
	kill -TERM $pid 2>/dev/null
	{ wait $pid; } 2>/dev/null # the shell's "Terminated"
	status=$?
	case $status in 0|143) ;; *) statuses="$statuses $status" ;; esac
	if [ -s "$WORK/term.err" ]; then
		said=$((said + 1))
		sed "s/^/#   try $i: /" "$WORK/term.err" | head -2
	fi
	# nor the output's temp twin beside it
	if [ -n "$(ls -A "$WORK/T")" ] || ls -A "$WORK" | grep -q '^\.gpusort'; then
		left=$((left + 1))
		rm -f "$WORK"/T/* "$WORK"/.gpusort*
	fi
done
[ $said -eq 0 ]
tap_result $? "SIGTERM into a spilled sort, 40 tries: nothing said ($said tries said something)"
[ $left -eq 0 ]
tap_result $? "SIGTERM into a spilled sort, 40 tries: no temp file left ($left tries left some)"
[ -z "$statuses" ]
tap_result $? "SIGTERM into a spilled sort, 40 tries: killed by it or done (other statuses:${statuses:- none})"

done_testing
