#!/bin/sh
# SPDX-License-Identifier: MIT
# The distributed sort (src/distributed/): mpirun --oversubscribe -np 1..4 gpusort
# writes, byte for byte, what one gpusort process writes, for binary keys of each type,
# 100-byte records, composite keys and text with -k/-n/-u/-r/-s/-z, all eight key
# distributions (all-equal and few-unique among them), an empty input, fewer records
# than ranks, standard input and output, and a -S that makes every rank spill; -c, -C
# and -m on rank 0; and a failure on one rank (the fault hooks, io/fault_inject.h) or a
# rank killed: every rank ends, exit 2 with one message, the old output untouched and
# no temp file left. Skips when gpusort was built without MPI or mpirun is missing.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

need_mpi
# more ranks than cores: a rank waiting in MPI gives its core up instead of spinning
export OMPI_MCA_mpi_yield_when_idle=1
# Under --enable-sanitizers: Open MPI leaves its allocations to the exit, which
# LeakSanitizer would count against every rank; the other findings still fail.
if [ -n "${GPUSORT_SANITIZED:-}" ]; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
fi
TMP=$WORK/tmp
mkdir -p "$TMP"
# A rank whose share is sorted in memory keeps its own files (its sorted share, what it
# receives) in a memory file system: here a folder of /dev/shm of this test's own, so
# that what is left there can be checked; none where /dev/shm is no tmpfs.
MEM=
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && MEM=$(mktemp -d /dev/shm/gpusort-test.XXXXXX); then
	trap 'rm -rf "$WORK" "$MEM"' EXIT
fi
export GPUSORT_MEMORY_DIR="$MEM"
# leftovers: the temp files left in $TMP and in $MEM
leftovers() { ls -A "$TMP"; [ -z "$MEM" ] || ls -A "$MEM"; }

# mpi N ARGS...: gpusort on N ranks (temp files in $TMP).
mpi() {
	n=$1
	shift
	timeout 120 mpirun --oversubscribe -np "$n" "$GPUSORT" -T "$TMP" "$@"
}

# same N DESCRIPTION ARGS...: N ranks write what one process writes (file output), with
# the same exit status, and leave no temp file.
same() {
	n=$1 desc=$2
	shift 2
	"$GPUSORT" "$@" -o "$WORK/one" 2>"$WORK/one.err"
	one=$?
	mpi "$n" "$@" -o "$WORK/many" 2>"$WORK/many.err"
	many=$?
	[ $one -eq 0 ] && [ $many -eq 0 ] && cmp -s "$WORK/one" "$WORK/many" && [ -z "$(leftovers)" ]
	status=$?
	tap_result $status "$desc, $n ranks"
	if [ $status -ne 0 ]; then
		echo "# exit $one and $many; $(cmp "$WORK/one" "$WORK/many" 2>&1 | head -n 1); temp: $(leftovers | head -n 3)"
		sed 's/^/#   /' "$WORK/many.err" | head -5
	fi
	rm -f "$WORK/one" "$WORK/many" "$TMP"/*
}

# Binary keys: every distribution, ranks 1 to 4 in turn.
n=1
for dist in uniform normal poisson bucket sorted reverse all-equal few-unique; do
	keygen --type=u64 --count=30000 --dist=$dist --seed=3 -o "$WORK/keys.$dist"
	same $n "u64 keys, $dist" --type=u64 "$WORK/keys.$dist"
	n=$((n % 4 + 1))
done
keygen --type=u32 --count=20000 --dist=few-unique --seed=5 -o "$WORK/u32"
same 3 "u32 keys, -u across ranks" --type=u32 -u "$WORK/u32"
keygen --type=f64 --count=20000 --dist=normal --seed=6 -o "$WORK/f64"
same 4 "f64 keys, -r" --type=f64 -r "$WORK/f64"
keygen --type=i64 --count=20000 --dist=all-equal --seed=6 -o "$WORK/i64"
same 2 "i64 keys all equal, -u" --type=i64 -u "$WORK/i64"
# 100-byte records with 10-byte keys (gensort's shape); duplicates keep input order
keygen --type=bytes --key-size=10 --record-size=100 --count=20000 --dist=few-unique --seed=8 \
	-o "$WORK/records"
same 3 "100-byte records, 10-byte keys (stable)" --record-size=100 --key-size=10 "$WORK/records"
same 4 "100-byte records, -r -u" --record-size=100 --key-size=10 -r -u "$WORK/records"
# every rank's share (1.5 MB) over -S (raised to its 1 MiB floor): each spills runs and
# merges them, as its --stats shows
keygen --type=bytes --key-size=10 --record-size=100 --count=60000 --dist=few-unique --seed=10 \
	-o "$WORK/records6m"
same 4 "100-byte records, -S 1M: every rank spills" --record-size=100 --key-size=10 -S 1M "$WORK/records6m"
mpi 4 --stats --record-size=100 --key-size=10 -S 1M "$WORK/records6m" -o "$WORK/many" 2>"$WORK/stderr"
[ "$(grep -c '^gpusort: stats: rank [0-3]: records [0-9]*, runs [1-9]' "$WORK/stderr")" -eq 4 ]
tap_result $? "-S 1M: each of the 4 ranks' --stats shows spilled runs"
rm -f "$TMP"/*
# a rank's merge in parts on several threads (--parallel), ties across the parts
same 2 "100-byte records, the merge in 3 parts per rank" --parallel=3 --record-size=100 --key-size=10 "$WORK/records"
keygen --type=u64 --count=100000 --dist=all-equal --seed=3 -o "$WORK/equal"
same 3 "u64 all equal, the merge in 4 parts per rank" --parallel=4 --type=u64 "$WORK/equal"
# composite keys (database ORDER BY), over the records' position bytes too
keygen --type=u32 --count=20000 --dist=few-unique --record-size=48 --seed=9 -o "$WORK/wide"
same 2 "composite key u32, f64 desc, bytes" --record-size=48 --key-field=u32:0 --key-field=i64:8:desc \
	--key-field=bytes:16:10 "$WORK/wide"
# several inputs, cut across their boundaries
head -c 80000 "$WORK/keys.uniform" >"$WORK/part1"
same 3 "two inputs" --type=u64 "$WORK/part1" "$WORK/keys.normal"

# Text lines.
# words of 0 to 3 letters of abc, a tab, a number below 1000: many equal keys and lines
"$TESTS_BUILDDIR/textgen" 20000 11 3 1000 3 >"$WORK/text"
[ "$(wc -l <"$WORK/text")" -eq 20000 ]
tap_result $? "the text input has its 20000 lines"
same 2 "text" "$WORK/text"
same 3 "text -k2n" -k2n "$WORK/text"
same 4 "text -k1,1 -u: duplicates across ranks" -k1,1 -u "$WORK/text"
same 3 "text -k1,1 -s -r: stable" -k1,1 -s -r "$WORK/text"
same 4 "text -t TAB -k2,2n -k1,1r" -t "$(printf '\t')" -k2,2n -k1,1r "$WORK/text"
"$TESTS_BUILDDIR/textgen" 100000 14 3 1000 3 >"$WORK/text5"
same 2 "text, -S 64K: every rank spills" -S 64K "$WORK/text5"
mpi 2 --stats -S 64K "$WORK/text5" -o "$WORK/many" 2>"$WORK/stderr"
[ "$(grep -c '^gpusort: stats: rank [01]: records [0-9]*, runs [1-9]' "$WORK/stderr")" -eq 2 ]
tap_result $? "text, -S 64K: each of the 2 ranks' --stats shows spilled runs"
rm -f "$TMP"/*
"$TESTS_BUILDDIR/textgen" 60000 13 3 1000 3 >"$WORK/text3"
same 2 "text -k1,1 -s, the merge in 3 parts per rank" --parallel=3 -k1,1 -s "$WORK/text3"
tr '\n' '\0' <"$WORK/text" >"$WORK/text0"
same 3 "text -z" -z "$WORK/text0"
printf 'no terminator' >"$WORK/unterminated"
same 4 "an input whose last line has no terminator" "$WORK/text" "$WORK/unterminated"

# The exchange through MPI: ranks of one machine read each other's ranges in place (the
# runs are shared, src/distributed/exchange.h); GPUSORT_SHARED_RUNS=0 sends them, as
# ranks on machines that share no file system must.
export GPUSORT_SHARED_RUNS=0
same 3 "sent through MPI: u64 keys" --type=u64 "$WORK/keys.normal"
same 4 "sent through MPI: 100-byte records, -r -u" --record-size=100 --key-size=10 -r -u "$WORK/records"
same 2 "sent through MPI: text -k1,1 -s, the merge in 3 parts" --parallel=3 -k1,1 -s "$WORK/text3"
same 4 "sent through MPI: 100-byte records, -S 1M" --record-size=100 --key-size=10 -S 1M "$WORK/records6m"
unset GPUSORT_SHARED_RUNS
# shared or sent: what --stats says of the exchange
exchanged() {
	mpi 3 --stats "$@" -k2n "$WORK/text" -o "$WORK/many" 2>"$WORK/stderr" && "$GPUSORT" -k2n "$WORK/text" |
		cmp -s - "$WORK/many" && [ -z "$(leftovers)" ] && sed -n 's/^gpusort: stats: bytes exchanged [0-9]* //p' "$WORK/stderr"
}
case "$(exchanged)" in "in 0 rounds (read in place from the ranks' runs),"*) true ;; *) false ;; esac
tap_result $? "3 ranks of one machine: nothing sent, the ranges read in place ($(exchanged | cut -d, -f1))"
case "$(GPUSORT_SHARED_RUNS=0 exchanged)" in "in "[1-9]*" rounds,"*) true ;; *) false ;; esac
tap_result $? "GPUSORT_SHARED_RUNS=0: sent in rounds ($(GPUSORT_SHARED_RUNS=0 exchanged | cut -d, -f1))"
# one rank that cannot open the others' runs (as on another machine): all send, same output
one_rank_cannot() {
	timeout 120 mpirun --oversubscribe -np 3 sh -c '
		if [ "${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-}}" = 2 ]; then export GPUSORT_FAULT=run_share:EACCES; fi
		exec "$@"' sh "$GPUSORT" -T "$TMP" --stats -k2n "$WORK/text" -o "$WORK/many" 2>"$WORK/stderr" &&
		"$GPUSORT" -k2n "$WORK/text" | cmp -s - "$WORK/many" && [ -z "$(leftovers)" ] &&
		grep -q '^gpusort: stats: bytes exchanged [1-9][0-9]* in [1-9][0-9]* rounds,' "$WORK/stderr"
}
one_rank_cannot
tap_result $? "rank 2 cannot open the others' runs: every rank sends, the same output"

# Open MPI's messaging layer: the ranks of one machine start ob1 alone (the cm layer's
# fabric probes are not opened), unless the user named one in OMPI_MCA_pml.
pml_layers() {
	OMPI_MCA_pml_base_verbose=10 mpi 2 --type=u32 "$WORK/u32" -o "$WORK/many" >"$WORK/pml" 2>&1 &&
		"$GPUSORT" --type=u32 "$WORK/u32" | cmp -s - "$WORK/many"
}
if pml_layers && grep -q 'selected ob1' "$WORK/pml"; then
	! grep -q 'component cm' "$WORK/pml"
	tap_result $? "2 ranks of one machine: Open MPI's ob1 layer alone, the output the same"
	(export OMPI_MCA_pml=ob1,cm && pml_layers) && grep -q 'component cm' "$WORK/pml"
	tap_result $? "OMPI_MCA_pml=ob1,cm as the user set it: cm opened too, the output the same"
else
	skip_test "Open MPI's layers on one machine: no pml selection to read (another MPI?)"
	skip_test "a user's OMPI_MCA_pml: no pml selection to read (another MPI?)"
fi

# -R: with --random-source every rank has the salt one process has; without, rank 0's
# (a sort whose ranks disagreed would fail its self-check): equal keys together, the
# lines a permutation of the input's.
same 3 "text -R --random-source" -R --random-source="$WORK/keys.uniform" "$WORK/text"
same 4 "text -k1,1R -k2n --random-source" -k1,1R -k2n --random-source="$WORK/keys.normal" "$WORK/text"
mpi 3 -t "$(printf '\t')" -R -k1,1 "$WORK/text" -o "$WORK/many" 2>"$WORK/many.err"
status=$?
sort "$WORK/text" >"$WORK/one"
sort "$WORK/many" | cmp -s "$WORK/one" -
permutation=$?
runs=$(cut -f1 "$WORK/many" | uniq | sort | uniq -d | wc -l)
[ $status -eq 0 ] && [ $permutation -eq 0 ] && [ "$runs" -eq 0 ]
tap_result $? "text -t TAB -R -k1,1 with the kernel's salt, 3 ranks: a permutation, each key's lines together"
rm -f "$TMP"/*
# --debug annotates the output's lines (to standard output only): rank 0 alone, its notes
# said once
"$GPUSORT" --debug -k2n "$WORK/text" >"$WORK/one" 2>"$WORK/one.err"
mpi 2 --debug -k2n "$WORK/text" >"$WORK/many" 2>"$WORK/many.err"
cmp -s "$WORK/one" "$WORK/many" && cmp -s "$WORK/one.err" "$WORK/many.err"
tap_result $? "text --debug -k2n, 2 ranks: rank 0's output and notes, once"

# Edges: nothing, fewer records than ranks, one line.
: >"$WORK/empty"
same 3 "an empty input" --type=u64 "$WORK/empty"
same 2 "empty text" "$WORK/empty"
keygen --type=u64 --count=2 --seed=4 -o "$WORK/two"
same 4 "two records, four ranks" --type=u64 "$WORK/two"
printf 'one line\n' >"$WORK/line"
same 3 "one line, three ranks" "$WORK/line"

# Standard input (rank 0 reads it) and standard output (through rank 0).
"$GPUSORT" -k2n "$WORK/text" >"$WORK/one"
mpi 3 -k2n <"$WORK/text" >"$WORK/many" 2>"$WORK/many.err"
cmp -s "$WORK/one" "$WORK/many"
tap_result $? "standard input to standard output, 3 ranks"

# -c, -C and -m: rank 0 alone, one message, the same status on every rank.
"$GPUSORT" "$WORK/text" -o "$WORK/sorted"
expect_status 0 "-c on sorted text, 3 ranks" mpi 3 -c "$WORK/sorted"
expect_status 1 "-c on unsorted text, 3 ranks" mpi 3 -c "$WORK/text"
[ "$(grep -c 'disorder' "$WORK/stderr")" -eq 1 ]
tap_result $? "-c says disorder once"
expect_status 1 "-C on unsorted text, 2 ranks" mpi 2 -C "$WORK/text"
"$GPUSORT" "$WORK/unterminated" -o "$WORK/sorted2"
"$GPUSORT" -m "$WORK/sorted" "$WORK/sorted2" >"$WORK/one"
mpi 2 -m "$WORK/sorted" "$WORK/sorted2" >"$WORK/many" 2>/dev/null
cmp -s "$WORK/one" "$WORK/many"
tap_result $? "-m, 2 ranks"

# --stats: a line per rank and the totals.
mpi 3 --stats -k2n "$WORK/text" -o "$WORK/many" 2>"$WORK/stderr"
[ "$(grep -c '^gpusort: stats: [0-2] ' "$WORK/stderr")" -eq 3 ] && grep -q '^gpusort: stats: total ' "$WORK/stderr" &&
	grep -q 'bytes exchanged [0-9]* in [0-9]* rounds.*imbalance' "$WORK/stderr"
tap_result $? "--stats prints each rank, the totals, bytes exchanged and the imbalance"

# Faults on one rank: every rank ends with exit 2 (mpirun passes on the first nonzero
# status, and every rank's is 2), one message, the old output as it
# was, no temp file (GPUSORT_FAULT set in that rank's environment alone, or with RANK
# "all" in every rank's).
# fault RANK SPEC N DESCRIPTION ARGS...
fault() {
	rank=$1 spec=$2 n=$3 desc=$4
	shift 4
	echo "old output" >"$WORK/out"
	timeout 120 mpirun --oversubscribe -np "$n" sh -c '
		if [ "$1" = all ] || [ "${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-}}" = "$1" ]; then export GPUSORT_FAULT="$2"; fi
		shift 2
		exec "$@"' sh "$rank" "$spec" "$GPUSORT" -T "$TMP" "$@" -o "$WORK/out" >/dev/null 2>"$WORK/stderr"
	status=$?
	# (GNU's close_stdout line "write error" follows a failed write of the output)
	[ $status -eq 2 ] && [ "$(grep -v '^gpusort: write error$' "$WORK/stderr" | grep -c '^gpusort: ')" -eq 1 ] &&
		[ "$(cat "$WORK/out")" = "old output" ] && [ -z "$(leftovers)" ] &&
		[ -z "$(ls -a "$WORK" | grep gpusort-out)" ]
	result=$?
	tap_result $result "$desc: exit $status, one message, old output kept, no temp file"
	if [ $result -ne 0 ]; then
		sed 's/^/#   /' "$WORK/stderr" | head -8
		ls "$TMP" | sed 's/^/#   temp: /' | head -3
	fi
	rm -f "$TMP"/*
}
fault 1 input_read:EIO 3 "rank 1 cannot read its share" --type=u64 "$WORK/keys.uniform"
grep -q "keys.uniform: Input/output error" "$WORK/stderr"
tap_result $? "the message names the input and the reason"
fault 2 output_write:ENOSPC 3 "rank 2 cannot write its sorted share" --type=u64 "$WORK/keys.normal"
fault 2 range_write:ENOSPC 3 "rank 2 cannot write its range of the output" --type=u64 "$WORK/keys.normal"
grep -q "^gpusort: write failed: .*/out: No space left on device" "$WORK/stderr"
tap_result $? "the message is GNU's: write failed, the output's name, the reason"
fault 1 range_write:EIO 2 "rank 1 cannot write its range, written (not mapped: -S 1M)" --record-size=100 \
	--key-size=10 -S 1M "$WORK/records6m"
fault 1 temp_write:ENOSPC 2 "rank 1 cannot spill" -S 64K "$WORK/text5"
GPUSORT_SHARED_RUNS=0 fault 2 temp_write:ENOSPC:2 3 "rank 2 cannot write what it received" -k2n "$WORK/text"
fault 3 temp_create:EACCES 4 "rank 3 cannot create a temp file" "$WORK/text"
# every rank failing alike: the first of them speaks (cluster_agree), not each
fault all range_write:EIO 3 "no rank can write its range" --type=u64 "$WORK/keys.normal"
fault all input_read:EIO 3 "no rank can read its share" --type=u64 "$WORK/keys.uniform"

# The self-check: a cut planted wrong on rank 2 (its first range sent to rank 1) is
# found, reported as an internal error, and nothing is committed.
fault 2 distributed_cut:SHORT 3 "a wrong cut planted on rank 2" --type=u64 "$WORK/keys.uniform"
grep -q "internal error: distributed self-check: rank 1's range does not follow rank 0's" "$WORK/stderr"
tap_result $? "the self-check names what it found"
fault 2 distributed_cut:SHORT 3 "the same, text" -k2n "$WORK/text"

# Where the ranks' own files go: into the memory folder when the share fits -S (its
# default here), into the -T directory when it does not, or when there is no such folder.
if [ -z "$MEM" ]; then
	skip_test "/dev/shm is no tmpfs here: the ranks' files always go to -T"
elif ! strace -f -o /dev/null true 2>/dev/null; then
	skip_test "no strace that may trace here: cannot watch where the ranks' files are made"
else
	# traced ARGS...: 2 ranks sort the records, traced; prints where they created files,
	# how often they allocated a range of the output (to map it) and how often a merge
	# mapped a range of a rank's file to read it: "MEMORY_COUNT TMP_COUNT
	# FALLOCATE_COUNT READ_MAPS", or nothing when the output is wrong or files are left
	traced() {
		strace -f -qq -y -e trace=openat,fallocate,mmap -o "$WORK/trace" timeout 120 mpirun --oversubscribe -np 2 \
			"$GPUSORT" -T "$TMP" "$@" --record-size=100 --key-size=10 "$WORK/records" -o "$WORK/many" \
			2>/dev/null && cmp -s "$WORK/many" "$WORK/records.sorted" && [ -z "$(leftovers)" ] &&
			{ for dir in "$MEM" "$TMP"; do
				grep -c "\"$dir/gpusort-job\.[^/\"]*/gpusort\.[^\"]*\", O_RDWR|O_CREAT|O_EXCL" "$WORK/trace"
			done; grep -c " fallocate([0-9]*<$WORK/\.gpusort-out\." "$WORK/trace"
			grep -c "mmap(.*PROT_READ, MAP_SHARED, [0-9]*<\($MEM\|$TMP\)/gpusort-job\.[^/]*/gpusort\." "$WORK/trace"; } |
				paste -s -d ' '
	}
	"$GPUSORT" --record-size=100 --key-size=10 "$WORK/records" -o "$WORK/records.sorted"
	# each rank makes its run, which the other reads in place (shared runs), or with
	# GPUSORT_SHARED_RUNS=0 its run and the file of what the other rank sent; the
	# output's ranges are mapped unless the output is on a tmpfs (see distributed_output.h):
	# each rank's once, about where it will be while the rank sorts (its pages faulted in
	# ahead; the room either side holds where it turns out to be, so the merge takes that
	# mapping over)
	maps=2
	[ "$(stat -f -c %T "$WORK")" = tmpfs ] && maps=0
	set -- $(traced) x x x x; in_memory=$1 in_tmp=$2 mapped=$3 read_maps=$4
	[ "$in_memory" != x ] && [ "$in_memory" -eq 2 ] && [ "$in_tmp" -eq 0 ] && [ "$mapped" -eq $maps ]
	tap_result $? "in memory: the ranks' runs in the memory folder ($in_memory), none in -T ($in_tmp), nothing received into files; both ranks map their output range once, ahead, and write it there ($mapped)"
	# each merge maps both ranges it reads (its own run's and the other's) instead of
	# reading them into buffers: at least one map per rank and run
	[ "$read_maps" != x ] && [ "$read_maps" -ge 4 ]
	tap_result $? "in memory: the merges read the ranks' runs through mappings ($read_maps)"
	set -- $(traced --device=cpu) x x x; in_memory=$1 in_tmp=$2 mapped=$3
	[ "$in_memory" != x ] && [ "$in_memory" -eq 2 ] && [ "$mapped" -eq $maps ]
	tap_result $? "--device=cpu: the ranges mapped in place only ($mapped), none ahead beside a sort on the CPU threads"
	set -- $(GPUSORT_SHARED_RUNS=0 traced) x x x; in_memory=$1 in_tmp=$2 mapped=$3
	[ "$in_memory" != x ] && [ "$in_memory" -ge 4 ] && [ "$in_tmp" -eq 0 ] && [ "$mapped" -eq $maps ]
	tap_result $? "in memory, sent through MPI: the runs and what was received in the memory folder ($in_memory), none in -T ($in_tmp)"
	set -- $(traced -S 1M) x x x x; in_memory=$1 in_tmp=$2 mapped=$3 read_maps=$4
	[ "$in_memory" != x ] && [ "$in_memory" -eq 0 ] && [ "$in_tmp" -ge 4 ] && [ "$mapped" -eq 0 ]
	tap_result $? "spilled (-S 1M): the ranks' files in -T ($in_tmp), none in the memory folder ($in_memory); output by pwrite ($mapped mapped)"
	[ "$read_maps" != x ] && { [ "$(stat -f -c %T "$TMP")" = tmpfs ] || [ "$read_maps" -eq 0 ]; }
	tap_result $? "spilled (-S 1M): runs in -T on a disk are read, not mapped ($read_maps maps)"
	set -- $(GPUSORT_MEMORY_DIR= GPUSORT_OUTPUT_MAP=0 GPUSORT_SHARED_RUNS=0 traced) x x x; in_memory=$1 in_tmp=$2 mapped=$3
	[ "$in_memory" != x ] && [ "$in_memory" -eq 0 ] && [ "$in_tmp" -ge 4 ] && [ "$mapped" -eq 0 ]
	tap_result $? "GPUSORT_MEMORY_DIR empty, GPUSORT_OUTPUT_MAP=0, GPUSORT_SHARED_RUNS=0: files in -T ($in_tmp), output by pwrite ($mapped mapped), the same output"
fi

# An output file system without room for the ranges (a 1 MiB tmpfs in a mount namespace
# of the test's own, as root): allocating them fails, one message, exit 2, the old
# output kept and no twin left.
mkdir "$WORK/full"
if [ "$(id -u)" -eq 0 ] && unshare -m sh -c "mount -t tmpfs -o size=1m tmpfs '$WORK/full'" 2>/dev/null; then
	unshare -m sh -c 'mount -t tmpfs -o size=1m tmpfs "$1/full" && echo "old output" >"$1/full/out" &&
		{ timeout 120 mpirun --oversubscribe -np 2 "$2" -T "$3" --record-size=100 --key-size=10 \
			"$1/records" -o "$1/full/out" 2>"$1/stderr"; echo $? >"$1/status"; } &&
		cat "$1/full/out" >"$1/kept" && ls -A "$1/full" >"$1/left"' sh "$WORK" "$GPUSORT" "$TMP"
	[ "$(cat "$WORK/status")" = 2 ] && [ "$(cat "$WORK/kept")" = "old output" ] && [ "$(cat "$WORK/left")" = out ] &&
		[ "$(grep -c '^gpusort: ' "$WORK/stderr")" -eq 2 ] &&
		grep -q "^gpusort: write failed: .*/full/out: No space left on device" "$WORK/stderr" &&
		grep -qx "gpusort: write error" "$WORK/stderr" &&
		[ -z "$(leftovers)" ]
	tap_result $? "an output file system without room: exit $(cat "$WORK/status"), $(grep '^gpusort: ' "$WORK/stderr")"
else
	skip_test "cannot mount a small tmpfs here (needs root and unshare -m)"
fi

# An output its owner may write but not read (mode 0200), sorted by that owner (an
# unprivileged uid through setpriv, when the test runs as root; not nobody's, whose
# processes test_compress_fallback.sh counts against its RLIMIT_NPROC meanwhile): its
# twin takes that mode, so the ranks cannot map it (they open it write-only); the
# output still holds the one process's bytes, and keeps its mode.
RUN=
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	RUN="setpriv --reuid=65533 --regid=65533 --clear-groups"
	mkdir -p "$WORK/owner/tmp" && cp "$WORK/records" "$WORK/records.sorted" "$WORK/owner/" &&
		chown -R 65533:65533 "$WORK/owner" && chmod 755 "$WORK"
	$RUN "$GPUSORT" --version >/dev/null 2>&1 && $RUN test -r "$WORK/owner/records" &&
		{ [ -z "${GPUSORT_MPI_MODULE:-}" ] || $RUN test -r "$GPUSORT_MPI_MODULE"; } || RUN=no
fi
if [ "$RUN" = no ]; then
	skip_test "uid 65533 cannot run $GPUSORT on $WORK with setpriv"
else
	nb=$WORK/owner
	[ -d "$nb" ] || { mkdir -p "$nb/tmp"; cp "$WORK/records" "$WORK/records.sorted" "$nb/"; }
	: >"$nb/out" && chown --reference="$nb" "$nb/out" && chmod 0200 "$nb/out"
	GPUSORT_MEMORY_DIR= TMPDIR=$nb/tmp $RUN timeout 120 mpirun --oversubscribe -np 2 "$GPUSORT" -T "$nb/tmp" \
		--record-size=100 --key-size=10 "$nb/records" -o "$nb/out" 2>"$WORK/stderr"
	status=$?
	[ $status -eq 0 ] && cmp -s "$nb/out" "$nb/records.sorted" && [ "$(stat -c %a "$nb/out")" = 200 ] &&
		[ -z "$(ls -A "$nb/tmp" | grep gpusort)" ]
	tap_result $? "an output of mode 0200, its owner sorting on 2 ranks: exit $status, the right bytes, mode kept"
	sed 's/^/#   /' "$WORK/stderr" | head -3
fi

# Bare keys beside GPUs (src/distributed/resident_sort.h): the shares stay on the GPUs
# and the ranges go GPU to GPU; only where a GPU is there (--device=0: every rank on GPU
# 0 plus its local rank, round the GPUs, so ranks may share one).
if "$GPUSORT" --device=0 --type=u64 "$WORK/keys.uniform" -o "$WORK/gpu.probe" 2>/dev/null; then
	for args in "--type=u64 $WORK/keys.uniform" "--type=i64 -r $WORK/i64" "--type=u32 $WORK/u32" \
		"--type=i32 -r $WORK/u32"; do
		# shellcheck disable=SC2086
		"$GPUSORT" --device=cpu $args -o "$WORK/one" &&
			timeout 120 mpirun --oversubscribe -np 3 "$GPUSORT" --device=0 --stats -T "$TMP" $args \
				-o "$WORK/three" 2>"$WORK/stderr" && cmp -s "$WORK/one" "$WORK/three" &&
			grep -q "GPU to GPU" "$WORK/stderr" && [ -z "$(leftovers)" ]
		tap_result $? "bare keys on the GPUs, 3 ranks, ${args%% /*}: the ranges GPU to GPU, one process's bytes"
	done
	GPUSORT_RESIDENT=0 timeout 120 mpirun --oversubscribe -np 2 "$GPUSORT" --device=0 --stats -T "$TMP" \
		--type=u64 "$WORK/keys.uniform" -o "$WORK/three" 2>"$WORK/stderr"
	status=$?
	"$GPUSORT" --device=cpu --type=u64 "$WORK/keys.uniform" -o "$WORK/one"
	[ $status -eq 0 ] && cmp -s "$WORK/one" "$WORK/three" && ! grep -q "GPU to GPU" "$WORK/stderr"
	tap_result $? "GPUSORT_RESIDENT=0: the same bytes through files"
	fault 1 range_write:ENOSPC 2 "on the GPUs: rank 1 cannot write its range" --device=0 --type=u64 \
		"$WORK/keys.normal"
	fault all input_read:EIO 2 "on the GPUs: no rank can read its share" --device=0 --type=u64 "$WORK/keys.uniform"
	fault 1 distributed_cut:SHORT 3 "on the GPUs: a wrong cut planted on rank 1" --device=0 --type=u64 \
		"$WORK/keys.uniform"
	grep -q "internal error: distributed self-check" "$WORK/stderr"
	tap_result $? "the self-check finds it"
else
	skip_test "no GPU: bare keys kept on the GPUs need one"
fi

# A rank killed mid-sort (SIGKILL once the ranks' temp files show the sort under way)
# ends the job: no output file, no output twin; the other ranks, stopped by mpirun,
# remove their temp files and the killed one's (in the job's directory of -T).
"$TESTS_BUILDDIR/textgen" 300000 12 >"$WORK/big"
rm -f "$WORK/killed" "$WORK"/pid.*
timeout 120 mpirun --oversubscribe -np 3 sh -c '
	echo $$ >"$1/pid.${OMPI_COMM_WORLD_RANK:-x}"
	shift
	exec "$@"' sh "$WORK" "$GPUSORT" -T "$TMP" -S 64K "$WORK/big" -o "$WORK/killed" >/dev/null 2>&1 &
launcher=$!
tries=0
while [ -z "$(ls -A "$TMP"/gpusort-job.* 2>/dev/null | grep '^gpusort\.')" ] && [ $tries -lt 400 ] &&
	kill -0 $launcher 2>/dev/null; do
	sleep 0.05
	tries=$((tries + 1))
done
[ -s "$WORK/pid.1" ] && kill -9 "$(cat "$WORK/pid.1")" 2>/dev/null
killed=$?
wait $launcher
status=$?
[ $killed -eq 0 ] && [ $status -ne 0 ] && [ ! -e "$WORK/killed" ] && [ -z "$(ls -a "$WORK" | grep gpusort-out)" ] &&
	[ -z "$(leftovers)" ]
tap_result $? "a rank killed mid-sort: the job ends (exit $status) without an output file, no temp file left"
rm -rf "$TMP"/*

done_testing
