#!/bin/sh
# SPDX-License-Identifier: MIT
# Signals under mpirun (issue 44 part 3): mpirun -np 2 gpusort over an existing output,
# stopped mid-run as mpirun stops a job: SIGTERM to every rank (sent here at the moment
# chosen: mpirun's own comes a second after it is signalled, when a run this small is
# over) and SIGKILL a second later to a rank still there (mpirun's grace period), at the
# start of the local sort (reading), while it sorts, after it (the exchange and the
# merge) and while the output is written; and one rank killed outright (SIGKILL) mid-run,
# after which mpirun stops the other. Every time: the output is byte for byte what it
# was, and the job ends without success; or, where the signal came as the finished
# output replaced the old (a job then finishes that step), it is the whole sorted
# output, never a part of it. And no file of the job is left: no output twin
# beside it, nothing in -T (a private TMPDIR) and nothing in the memory folder (a folder
# of /dev/shm of this test's own, GPUSORT_MEMORY_DIR). Skips when gpusort was built
# without MPI or mpirun is missing.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

need_mpi
export OMPI_MCA_mpi_yield_when_idle=1
if [ -n "${GPUSORT_SANITIZED:-}" ]; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
fi
TMP=$WORK/tmp
mkdir -p "$TMP"
export TMPDIR=$TMP
# Open MPI's session folder apart, where what mpirun leaves is not counted as ours
mkdir -p "$WORK/ompi"
export OMPI_MCA_orte_tmpdir_base="$WORK/ompi"
MEM=
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && MEM=$(mktemp -d /dev/shm/gpusort-test.XXXXXX); then
	trap 'rm -rf "$WORK" "$MEM"' EXIT
fi
export GPUSORT_MEMORY_DIR="$MEM"
# what a job may leave: files in -T and in the memory folder, the output's twin
leftovers() { ls -A "$TMP"; [ -z "$MEM" ] || ls -A "$MEM"; ls -A "$WORK" | grep '^\.gpusort-out\.'; }
# where the ranks' own files are: the memory folder, else -T
RANKS_DIR=${MEM:-$TMP}

# 16M keys: each rank's share (64 MB) sorted in memory, its files in the memory folder
keygen --type=u64 --count=16000000 --seed=44 -o "$WORK/keys"
printf 'old output\n' >"$WORK/old"

# wait_for CONDITION...: polls (10 ms) until the condition holds or the job is over;
# status 0 when it held
wait_for() {
	tries=0
	until "$@"; do
		kill -0 "$launcher" 2>/dev/null && [ $tries -lt 3000 ] || return 1
		sleep 0.01
		tries=$((tries + 1))
	done
}
# the moments, each waited for: the local sort's output twin made in a rank's folder
# (its share being read); a tenth of a second later (being sorted); the local sorts
# done (their twins renamed: the exchange, then the merge); a little later (the merge
# writing its range into the output's twin)
local_twin() {
	[ -s "$WORK/pid.0" ] && [ -s "$WORK/pid.1" ] &&
		[ -n "$(find "$RANKS_DIR" -maxdepth 2 -name '.gpusort-out.*' 2>/dev/null)" ]
}
no_local_twin() { ! local_twin; }
reach_reading() { wait_for local_twin; }
reach_sorting() { wait_for local_twin && sleep 0.1; }
reach_merging() { wait_for local_twin && wait_for no_local_twin; }
reach_writing() { reach_merging && sleep 0.05; }

# start: the job in the background, each rank's pid in $WORK/pid.RANK, the old output
start() {
	cp "$WORK/old" "$WORK/out"
	rm -f "$WORK"/pid.*
	timeout 120 mpirun --oversubscribe -np 2 sh -c '
		echo $$ >"$1/pid.${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-x}}"
		shift
		exec "$@"' sh "$WORK" "$GPUSORT" -T "$TMP" --type=u64 "$WORK/keys" -o "$WORK/out" \
		>/dev/null 2>"$WORK/stderr" &
	launcher=$!
}

# finish DESCRIPTION: waits for the job and checks what it left
finish() {
	wait "$launcher"
	status=$?
	{ { [ "$status" -ne 0 ] && cmp -s "$WORK/old" "$WORK/out"; } || cmp -s "$WORK/one" "$WORK/out"; } &&
		[ -z "$(leftovers)" ]
	result=$?
	kept=$(cmp -s "$WORK/old" "$WORK/out" && echo "the old output kept" || echo "the whole sorted output")
	tap_result $result "$1: exit $status, $kept, no file of the job left"
	[ $result -eq 0 ] || leftovers | sed 's/^/#   left: /' | head -5
	find "$TMP" ${MEM:+"$MEM"} -mindepth 1 -delete
	rm -f "$WORK"/.gpusort-out.*
}

# terminate MOMENT: SIGTERM to mpirun and every rank at the moment, SIGKILL a second
# later to a rank that is still there
terminate() {
	start
	if ! "reach_$1" || ! kill -0 "$launcher" 2>/dev/null; then
		wait "$launcher"
		skip_test "SIGTERM while $1: the job was over before that moment came"
		return
	fi
	ranks="$(cat "$WORK"/pid.* 2>/dev/null)"
	kill -TERM "$launcher" $ranks 2>/dev/null
	sleep 1
	kill -KILL $ranks 2>/dev/null
	finish "SIGTERM while $1 (then SIGKILL after a second)"
}

# kill_rank RANK MOMENT: SIGKILL of one rank at the moment; mpirun stops the others
kill_rank() {
	start
	if ! "reach_$2" || ! kill -0 "$launcher" 2>/dev/null; then
		wait "$launcher"
		skip_test "SIGKILL of rank $1 while $2: the job was over before that moment came"
		return
	fi
	kill -KILL "$(cat "$WORK/pid.$1")" 2>/dev/null
	finish "SIGKILL of rank $1 while $2"
}

# the job as it runs undisturbed: the sorted keys, nothing left
cp "$WORK/old" "$WORK/out"
"$GPUSORT" --type=u64 "$WORK/keys" -o "$WORK/one"
timeout 120 mpirun --oversubscribe -np 2 "$GPUSORT" -T "$TMP" --type=u64 "$WORK/keys" -o "$WORK/out" 2>"$WORK/stderr"
status=$?
[ $status -eq 0 ] && cmp -s "$WORK/one" "$WORK/out" && [ -z "$(leftovers)" ]
tap_result $? "undisturbed: exit $status, one process's bytes, no file left"

for moment in reading sorting merging writing reading sorting; do
	terminate $moment
done
kill_rank 1 sorting
kill_rank 0 sorting
kill_rank 0 merging
kill_rank 1 writing

done_testing
