# SPDX-License-Identifier: MIT
# TAP helpers for the shell tests: each test script sources this file.
# $GPUSORT, $TESTS_SRCDIR and $TESTS_BUILDDIR come from the test environment.
: "${GPUSORT:=$(pwd)/gpusort}"
: "${TESTS_BUILDDIR:=$(pwd)/tests}"
: "${TESTS_SRCDIR:=$(dirname "$0")}"
export LC_ALL=C
tap_count=0
tap_failed=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# ok CONDITION_STATUS DESCRIPTION
tap_result() {
	tap_count=$((tap_count + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_count - $2"
	else
		echo "not ok $tap_count - $2"
		tap_failed=1
	fi
}

# check DESCRIPTION COMMAND...: passes when the command exits 0.
check() {
	desc=$1
	shift
	"$@" >"$WORK/check.out" 2>&1
	status=$?
	tap_result $status "$desc"
	[ $status -eq 0 ] || sed 's/^/# /' "$WORK/check.out" | head -20
}

# expect_status CODE DESCRIPTION COMMAND...: passes when the command exits with CODE;
# its stderr is kept in $WORK/stderr.
expect_status() {
	code=$1
	desc=$2
	shift 2
	"$@" >"$WORK/stdout" 2>"$WORK/stderr"
	status=$?
	[ $status -eq "$code" ]
	tap_result $? "$desc (exit $status, expected $code)"
	[ $status -eq "$code" ] || sed 's/^/# /' "$WORK/stderr" | head -10
}

# stderr_has TEXT DESCRIPTION: the last expect_status's stderr contains TEXT.
stderr_has() {
	grep -qF -- "$1" "$WORK/stderr"
	tap_result $? "$2"
	grep -qF -- "$1" "$WORK/stderr" || { echo "# stderr was:"; sed 's/^/#   /' "$WORK/stderr" | head -5; }
}

skip_test() {
	tap_count=$((tap_count + 1))
	echo "ok $tap_count # SKIP $1"
}

done_testing() {
	echo "1..$tap_count"
	exit $tap_failed
}

# kill_mid_sort SIGNAL FILE DELAY [NAME=VALUE...] COMMAND...: runs the command on FILE
# and then a pipe held open for 3 s (so that the signal surely comes mid-sort), with
# the signal's default action (a background job of a script starts with SIGINT
# ignored), sends SIGNAL after DELAY seconds and passes if the command died by it.
kill_mid_sort() {
	kill_signal=$1 kill_input=$2 kill_delay=$3
	shift 3
	(cat "$kill_input"; sleep 3) 2>/dev/null | env --default-signal="$kill_signal" "$@" 2>/dev/null &
	kill_pid=$!
	sleep "$kill_delay"
	kill -"$kill_signal" $kill_pid 2>/dev/null
	wait $kill_pid
	kill_status=$?
	test $kill_status -gt 128
	tap_result $? "SIG$kill_signal mid-sort: killed by the signal (status $kill_status)"
}

keygen() { "$TESTS_BUILDDIR/keygen" "$@"; }
sortcheck() { "$TESTS_BUILDDIR/sortcheck" "$@"; }
oracle() { python3 "$TESTS_SRCDIR/binary_oracle.py" "$@"; }

# need_mpi: skips the whole test unless gpusort has MPI and mpirun is here; lets Open MPI
# run as root, and keeps its shared-memory transport off the single-copy mode, whose
# ptrace rights containers often lack.
need_mpi() {
	if [ "${GPUSORT_MPI:-no}" != yes ]; then
		echo "1..0 # SKIP gpusort was built without MPI (configure --with-mpi)"
		exit 0
	fi
	if ! command -v mpirun >/dev/null 2>&1; then
		echo "1..0 # SKIP mpirun not found (Debian: openmpi-bin)"
		exit 0
	fi
	if [ "$(id -u)" = 0 ]; then
		export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	fi
	export OMPI_MCA_btl_vader_single_copy_mechanism=none
}

# limited N COMMAND...: runs it with the open-file limit N and no descriptor but 0, 1
# and 2 (the test harness may hand others down, which would count against N).
limited() {
	bash -c 'n=$1
shift
for fd in /proc/$$/fd/*; do
	fd=${fd##*/}
	[ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null
done
ulimit -n "$n" && exec "$@"' bash "$@"
}
