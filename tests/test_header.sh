#!/bin/sh
# SPDX-License-Identifier: MIT
# --header[=N]: each input's first N lines are a header. The first input's are written
# first and unchanged, each later input's dropped; the lines after them are sorted as
# without --header. The oracle: head -n N of the first input, then the other lines of
# every input through LC_ALL=C sort. In memory, spilled (-S), on 1 and 2 threads, to a
# file and to a pipe, from files, a pipe and stdin, with -u -r -s -n -k -t, -z, -m (also
# in passes, --batch-size), --files0-from, -c and -C, a header longer than a read, an
# input that is only a header or shorter than one, and the errors: a bad N, binary mode.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

mkdir "$WORK/tmp"
export TMPDIR="$WORK/tmp"
no_temp() { test -z "$(ls -A "$WORK/tmp")" && test -z "$(ls -A "$WORK" | grep '^\.gpusort')"; }

# make_lines FILE COUNT SEED [HEADER_LINES]: a header of CSV-like column names, then
# COUNT lines "word,number,word" with repeats (so that -u and -s have work).
make_lines() {
	python3 - "$@" <<'EOF'
import random, sys
path, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
header = int(sys.argv[4]) if len(sys.argv) > 4 else 1
r = random.Random(seed)
words = ["alpha", "beta", "gamma", "delta", "name", "zeta", "Eta", "theta", "", "b b"]
with open(path, "w") as f:
    for i in range(header):
        f.write("name,number,comment%d\n" % i)
    for i in range(count):
        f.write("%s,%d,%s\n" % (r.choice(words), r.randrange(-50, 5000), r.choice(words) + str(r.randrange(9))))
EOF
}

# want N OPTIONS... -- FILES...: the oracle's output in $WORK/want; leaves the options
# in $opts and the files in $files (paths without blanks)
want() {
	n=$1
	shift
	opts= files=
	while [ "$1" != -- ]; do
		opts="$opts $1"
		shift
	done
	shift
	files="$*"
	head -n "$n" "$1" >"$WORK/want"
	for f in "$@"; do tail -n +$((n + 1)) "$f"; done | sort $opts >>"$WORK/want"
}

# same DESCRIPTION N OPTIONS... -- FILES...: gpusort --header=N into a file (-o) and to
# a pipe, each equal to the oracle's; no temp file left
same() {
	desc=$1 n=$2
	shift 2
	want "$n" "$@"
	"$GPUSORT" --header="$n" $opts -o "$WORK/out" $files 2>"$WORK/err"
	status=$?
	cmp -s "$WORK/out" "$WORK/want"
	tap_result $((status + $?)) "$desc: -o FILE as the oracle (exit $status)"
	[ -s "$WORK/err" ] && sed 's/^/# /' "$WORK/err" | head -5
	"$GPUSORT" --header="$n" $opts $files 2>"$WORK/err" | cat >"$WORK/out"
	cmp -s "$WORK/out" "$WORK/want"
	tap_result $? "$desc: to a pipe as the oracle"
	check "$desc: no temp file left" no_temp
}

make_lines "$WORK/small" 200 1
make_lines "$WORK/big" 40000 2
make_lines "$WORK/three" 30000 3 3
make_lines "$WORK/other" 5000 4

same "200 lines, in memory" 1 -- "$WORK/small"
same "40000 lines, in memory, 2 threads" 1 --parallel=2 -- "$WORK/big"
same "40000 lines spilled (-S 64K), 2 threads" 1 -S 64K --parallel=2 -- "$WORK/big"
same "40000 lines spilled (-S 64K), 1 thread" 1 -S 64K --parallel=1 -- "$WORK/big"
same "-t, -k2,2n" 1 -t, -k2,2n -- "$WORK/big"
same "-t, -k2,2nr -s, spilled" 1 -t, -k2,2nr -s -S 64K -- "$WORK/big"
same "-u, spilled" 1 -u -S 64K -- "$WORK/big"
same "-u -t, -k1,1: the header kept, one line per name" 1 -u -t, -k1,1 -- "$WORK/big"
same "-r" 1 -r -- "$WORK/small"
same "--header=3" 3 -t, -k3,3 -- "$WORK/three"
same "--header=3 spilled" 3 -t, -k3,3 -S 64K -- "$WORK/three"
same "--header=0: no header" 0 -- "$WORK/small"
same "three inputs: the first's header, the others' dropped" 1 -- "$WORK/small" "$WORK/big" "$WORK/other"
same "three inputs, spilled" 1 -S 64K -- "$WORK/other" "$WORK/big" "$WORK/small"

# --header alone is --header=1
"$GPUSORT" --header "$WORK/big" >"$WORK/out"
want 1 -- "$WORK/big"
check "--header without N: one line" cmp "$WORK/out" "$WORK/want"

# from a pipe and from stdin, in memory and spilled
want 1 -- "$WORK/big"
cat "$WORK/big" | "$GPUSORT" --header >"$WORK/out"
check "from a pipe" cmp "$WORK/out" "$WORK/want"
cat "$WORK/big" | "$GPUSORT" --header -S 64K -o "$WORK/out" -
check "from stdin (-), spilled, -o" cmp "$WORK/out" "$WORK/want"
want 1 -- "$WORK/small" "$WORK/big"
cat "$WORK/big" | "$GPUSORT" --header "$WORK/small" - >"$WORK/out"
check "a file, then stdin: stdin's header dropped" cmp "$WORK/out" "$WORK/want"

# --files0-from
printf '%s\0%s\0' "$WORK/other" "$WORK/small" >"$WORK/names"
want 1 -- "$WORK/other" "$WORK/small"
"$GPUSORT" --header --files0-from="$WORK/names" >"$WORK/out"
check "--files0-from: the first named input's header" cmp "$WORK/out" "$WORK/want"

# -o naming the input
cp "$WORK/big" "$WORK/inplace"
want 1 -- "$WORK/big"
"$GPUSORT" --header -o "$WORK/inplace" "$WORK/inplace"
check "-o naming the input: sorted in place under its header" cmp "$WORK/inplace" "$WORK/want"

# -z: NUL-terminated header and records
tr '\n' '\0' <"$WORK/big" >"$WORK/big.z"
{ head -n 1 "$WORK/big" | tr '\n' '\0'; tail -n +2 "$WORK/big" | tr '\n' '\0' | sort -z; } >"$WORK/want"
"$GPUSORT" -z --header "$WORK/big.z" >"$WORK/out"
check "-z: the first NUL-terminated record is the header" cmp "$WORK/out" "$WORK/want"
"$GPUSORT" -z --header -S 64K "$WORK/big.z" >"$WORK/out"
check "-z, spilled" cmp "$WORK/out" "$WORK/want"

# a header line longer than a read (64 KiB), and N past the input's end
python3 -c 'import sys; sys.stdout.write("h" * 200000 + "\nb\na\n")' >"$WORK/long"
want 1 -- "$WORK/long"
"$GPUSORT" --header "$WORK/long" >"$WORK/out"
check "a 200000-byte header line" cmp "$WORK/out" "$WORK/want"
cat "$WORK/long" | "$GPUSORT" --header >"$WORK/out"
check "a 200000-byte header line from a pipe" cmp "$WORK/out" "$WORK/want"
printf 'only,a,header' >"$WORK/only"
"$GPUSORT" --header "$WORK/only" >"$WORK/out"
check "an input that is a header without its newline: written with one" \
	test "$(od -An -c "$WORK/out" | tr -d ' \n')" = 'only,a,header\n'
printf 'h1\nh2\n' >"$WORK/short"
"$GPUSORT" --header=5 "$WORK/short" "$WORK/small" >"$WORK/out"
want 5 -- "$WORK/short" "$WORK/small"
check "--header=5 on a 2-line first input: all of it the header; the next input's 5 dropped" \
	cmp "$WORK/out" "$WORK/want"
: >"$WORK/empty"
"$GPUSORT" --header "$WORK/empty" >"$WORK/out"
check "an empty input: an empty output" test ! -s "$WORK/out"
printf 'x\n' | "$GPUSORT" --header "$WORK/empty" - >"$WORK/out"
check "an empty first input: no header; stdin's first line dropped" test ! -s "$WORK/out"

# -m: sorted inputs under their headers; in passes with --batch-size
for f in small big other; do
	{ head -n 1 "$WORK/$f"; tail -n +2 "$WORK/$f" | sort; } >"$WORK/$f.sorted"
done
want 1 -- "$WORK/big.sorted" "$WORK/small.sorted" "$WORK/other.sorted"
"$GPUSORT" -m --header "$WORK/big.sorted" "$WORK/small.sorted" "$WORK/other.sorted" >"$WORK/out"
check "-m: the first input's header, then the merge" cmp "$WORK/out" "$WORK/want"
"$GPUSORT" -m --header --batch-size=2 -o "$WORK/out" "$WORK/big.sorted" "$WORK/small.sorted" "$WORK/other.sorted"
check "-m --batch-size=2: in passes" cmp "$WORK/out" "$WORK/want"
cat "$WORK/small.sorted" | "$GPUSORT" -m --header - "$WORK/other.sorted" >"$WORK/out"
want 1 -- "$WORK/small.sorted" "$WORK/other.sorted"
check "-m from stdin and a file" cmp "$WORK/out" "$WORK/want"

# -c and -C look at the lines after the header; a disorder's line counts it
expect_status 0 "-c: sorted lines under an unsorted header" "$GPUSORT" -c --header "$WORK/big.sorted"
expect_status 1 "-c without --header: the header is out of order" "$GPUSORT" -c "$WORK/big.sorted"
printf 'z header\na\nc\nb\n' >"$WORK/disorder"
expect_status 1 "-c: a disorder after the header" "$GPUSORT" -c --header "$WORK/disorder"
check "-c: the disorder's line number counts the header" \
	grep -q -x "gpusort: $WORK/disorder:4: disorder: b" "$WORK/stderr"
expect_status 1 "-C --header=2: silent disorder" "$GPUSORT" -C --header=2 "$WORK/disorder"
check "-C: nothing said" test ! -s "$WORK/stderr"
expect_status 0 "-c --header=3: one line after the header is in order" "$GPUSORT" -c --header=3 "$WORK/disorder"

# under mpirun with 2 ranks: rank 0 sorts a job with a header alone, the same output
if [ "${GPUSORT_MPI:-no}" = yes ] && command -v mpirun >/dev/null 2>&1; then
	[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export OMPI_MCA_btl_vader_single_copy_mechanism=none
	# Open MPI's own allocations at exit are leaks to LeakSanitizer (as in test_mpi.sh)
	export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
	want 1 -t, -k2,2n -- "$WORK/big" "$WORK/other"
	timeout 120 mpirun --oversubscribe -np 2 "$GPUSORT" --header -t, -k2,2n -S 64K "$WORK/big" "$WORK/other" \
		-o "$WORK/out" 2>"$WORK/err"
	tap_result $? "mpirun -np 2: exits 0"
	check "mpirun -np 2: the header first, the rest sorted" cmp "$WORK/out" "$WORK/want"
	check "mpirun -np 2: no temp file left" no_temp
else
	skip_test "mpirun -np 2: gpusort was built without MPI, or mpirun is missing"
	skip_test "mpirun -np 2: the output"
	skip_test "mpirun -np 2: temp files"
fi

# errors: exit 2, a message, the output untouched
echo old >"$WORK/old"
expect_status 2 "--header=x: exit 2" "$GPUSORT" --header=x -o "$WORK/old" "$WORK/small"
check "--header=x: its message" grep -q "gpusort: invalid --header argument 'x'" "$WORK/stderr"
expect_status 2 "--header=1k: exit 2" "$GPUSORT" --header=1k "$WORK/small"
check "--header=1k: its message" grep -q "invalid suffix in --header argument '1k'" "$WORK/stderr"
expect_status 2 "--header with a binary key: exit 2" "$GPUSORT" --header --type=u64 -o "$WORK/old" "$WORK/small"
check "--header with a binary key: its message" \
	grep -q "option '--header' applies to text lines, not binary records" "$WORK/stderr"
check "the old output untouched" test "$(cat "$WORK/old")" = old
expect_status 2 "--header on a missing input: exit 2" "$GPUSORT" --header -o "$WORK/old" "$WORK/missing"
check "a missing input: GNU's message" grep -q "cannot read: $WORK/missing: No such file or directory" "$WORK/stderr"
check "no temp file left after the errors" no_temp

done_testing
