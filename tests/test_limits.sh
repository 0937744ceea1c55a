#!/bin/sh
# SPDX-License-Identifier: MIT
# The system's limits, as GNU sort meets them: RLIMIT_NPROC (ulimit -u 1, 2, 3, 10, as a
# uid no other process runs as: the limit counts every process and thread of the real
# user), where gpusort carries on with the threads it can start, down to the calling
# thread alone, and --compress-program's runs are stored when no process is left for it;
# RLIMIT_AS (ulimit -v), within which the default -S and an -S too large for it fit; a
# memory cgroup, whose limit the default -S follows; and --parallel=1000 on two lines,
# which starts no thread the work has no piece for. Each output is compared with the
# system sort or tests/sortcheck.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/uid_lib.sh"
. "$TESTS_SRCDIR/cgroup_lib.sh"
trap 'cgroup_remove; rm -rf "$WORK"' EXIT

chmod 755 "$WORK"
"$TESTS_BUILDDIR/textgen" 120000 8 3 100 12 >"$WORK/ties"
sort "$WORK/ties" >"$WORK/ties.sorted"
keygen --type=u64 --count=300000 --seed=31 -o "$WORK/keys"
printf 'b\na\n' >"$WORK/two"
printf 'a\nb\n' >"$WORK/two.sorted"
chmod 644 "$WORK"/*

# sorted_as KIND INPUT OUTPUT: OUTPUT is INPUT sorted (text: the system sort's bytes).
sorted_as() {
	case $1 in
	text) cmp -s "$2.sorted" "$3" ;;
	binary) sortcheck --type=u64 "$2" "$3" >/dev/null 2>&1 ;;
	esac
}

# RLIMIT_NPROC: text and binary, in memory and spilled, and spilled through a PROG
# (gzip), under each limit. A PROG -d refused past the limit is GNU's failure too (its
# merge takes a -d child per run): there, exit 2 in GNU's words, the old output kept.
if [ "$(id -u)" != 0 ]; then
	skip_test "RLIMIT_NPROC needs root to run as another user (it does not bind root)"
elif ! command -v setpriv >/dev/null || ! command -v prlimit >/dev/null; then
	skip_test "RLIMIT_NPROC needs setpriv and prlimit"
elif [ -n "${GPUSORT_SANITIZED:-}" ]; then
	skip_test "RLIMIT_NPROC under --enable-sanitizers: LeakSanitizer's exit check needs a thread of its own"
elif ! fresh_uid 74321; then
	skip_test "RLIMIT_NPROC: no uid without processes found to run as"
else
	user_dir="$WORK/user"
	mkdir -m 777 "$user_dir" "$user_dir/tmp"
	for limit in 1 2 3 10; do
		failures="" tried=0
		for case in text: text:-S1M binary: binary:-S512K text:-S1M:gzip; do
			kind=${case%%:*} rest=${case#*:}
			size=${rest%%:*} prog=${rest#*:}
			[ "$prog" = "$rest" ] && prog=
			set -- ${size:+"$size"} ${prog:+--compress-program=$prog}
			[ "$kind" = binary ] && set -- --type=u64 "$@"
			input="$WORK/ties"
			[ "$kind" = binary ] && input="$WORK/keys"
			rm -f "$user_dir/out"
			as_fresh_uid sh -c 'echo "old output" >"$1"' sh "$user_dir/out"
			as_fresh_uid env TMPDIR="$user_dir/tmp" GPUSORT_FAULT=spawn_wait:SHORT \
				prlimit --nproc=$limit "$GPUSORT" "$@" "$input" -o "$user_dir/out" 2>"$WORK/nproc.err"
			status=$?
			tried=$((tried + 1))
			if [ $status -eq 0 ] && sorted_as $kind "$input" "$user_dir/out" && ! [ -s "$WORK/nproc.err" ]; then
				:
			elif [ -n "$prog" ] && [ $limit -gt 1 ] && [ $status -eq 2 ] &&
				[ "$(cat "$user_dir/out")" = "old output" ] &&
				[ "$(cat "$WORK/nproc.err")" = "gpusort: couldn't create process for 'gzip' -d: Resource temporarily unavailable" ]; then
				:
			else
				failures="$failures $case:status-$status"
				sed 's/^/# /' "$WORK/nproc.err" | head -2
			fi
			if [ -n "$(ls -A "$user_dir/tmp")" ]; then
				failures="$failures $case:temp-left"
				rm -f "$user_dir/tmp"/*
			fi
		done
		[ -z "$failures" ]
		tap_result $? "ulimit -u $limit as uid $FRESH_UID: $tried sorts as the system sort's (text, u64 keys; in memory, spilled, through gzip), no temp file left${failures:+ (failed:$failures)}"
	done
fi

# RLIMIT_AS: 20 MB of text under ulimit -v 100000 with the default -S, and with -S 10G
# (more than the limit lets be had: halved until it fits, as GNU's buffer is); 20 MB of
# u64 keys under -v 60000; two lines under -v 30000. (GNU sort sorts all of them down
# to -v 10000.)
"$TESTS_BUILDDIR/textgen" 750000 7 >"$WORK/text20"
sort "$WORK/text20" >"$WORK/text20.sorted"
keygen --type=u64 --count=2621440 --seed=32 -o "$WORK/keys20"
# under_as KIB COMMAND...: COMMAND under ulimit -v KIB
under_as() { kib=$1; shift; prlimit --as=$((kib * 1024)) "$@"; }
# ASan reserves terabytes of address space and its shadow memory counts in a cgroup:
# under the sanitizers these limits test ASan, not gpusort.
if [ -n "${GPUSORT_SANITIZED:-}" ]; then
	for limit in 1 2 3 4 5; do skip_test "ulimit -v: address-space limits under ASan"; done
else
	under_as 100000 "$GPUSORT" "$WORK/text20" -o "$WORK/out20" 2>"$WORK/as.err"
	check "ulimit -v 100000: 20 MB of text, the default -S, to a file: as the system sort" cmp "$WORK/text20.sorted" "$WORK/out20"
	under_as 100000 "$GPUSORT" <"$WORK/text20" >"$WORK/out20" 2>"$WORK/as.err"
	check "ulimit -v 100000: 20 MB of text from a pipe to stdout: as the system sort" cmp "$WORK/text20.sorted" "$WORK/out20"
	under_as 100000 "$GPUSORT" -S 10G "$WORK/text20" -o "$WORK/out20" 2>"$WORK/as.err"
	check "ulimit -v 100000: -S 10G on 20 MB of text: as the system sort" cmp "$WORK/text20.sorted" "$WORK/out20"
	under_as 60000 "$GPUSORT" --type=u64 "$WORK/keys20" -o "$WORK/out20" 2>"$WORK/as.err"
	check "ulimit -v 60000: 20 MB of u64 keys, the default -S: sorted" sortcheck --type=u64 "$WORK/keys20" "$WORK/out20"
	under_as 30000 "$GPUSORT" "$WORK/two" >"$WORK/out2" 2>"$WORK/as.err"
	check "ulimit -v 30000: two lines sorted" cmp "$WORK/two.sorted" "$WORK/out2"
fi
rm -f "$WORK/out20" "$WORK/keys20"

# A memory cgroup of 64 MiB: the default -S is half of it, so the sort spills as many
# runs as under -S 32M outside it (--stats counts them), and sorts.
runs_of() { sed -n 's/.*records [0-9]*, runs \([0-9]*\),.*/\1/p' "$1"; }
if [ -n "${GPUSORT_SANITIZED:-}" ]; then
	skip_test "a memory cgroup: ASan's shadow memory counts in it"
elif ! cgroup_create gpusort-limits $((64 << 20)); then
	skip_test "a memory cgroup: $CGROUP_SKIP"
else
	cgroup_exec "$GPUSORT" --stats "$WORK/text20" -o "$WORK/out20" 2>"$WORK/cgroup.err"
	cgroup_remove
	"$GPUSORT" --stats -S 32M "$WORK/text20" -o "$WORK/out32" 2>"$WORK/explicit.err"
	inside=$(runs_of "$WORK/cgroup.err") explicit=$(runs_of "$WORK/explicit.err")
	[ -n "$inside" ] && [ "$inside" = "$explicit" ] && [ "$explicit" -gt 0 ] && cmp -s "$WORK/text20.sorted" "$WORK/out20"
	tap_result $? "a 64 MiB memory cgroup (v$CGROUP_VERSION): the default -S spills $inside runs, as -S 32M does ($explicit), and sorts"
fi

# --parallel=1000 on two lines and on two records: the output, and the tasks gpusort
# made, counted in a PID namespace of its own (its PIDs are handed out in turn: the
# shell after it gets 2 + the tasks it made).
check "--parallel=1000 on two lines: sorted" sh -c '"$1" --parallel=1000 "$2" | cmp "$2.sorted"' sh "$GPUSORT" "$WORK/two"
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
	skip_test "counting threads in a PID namespace needs root and unshare"
else
	# tasks ARGS...: the tasks (threads included) a gpusort run made
	tasks() {
		last=$(unshare --pid --fork sh -c '"$@" >/dev/null 2>&1; sh -c "echo \$\$"' sh "$GPUSORT" "$@")
		echo $((last - 2))
	}
	text_tasks=$(tasks --parallel=1000 "$WORK/two")
	head -c 16 "$WORK/keys" >"$WORK/two.u64"
	binary_tasks=$(tasks --parallel=1000 --type=u64 "$WORK/two.u64" -o "$WORK/two.u64.out")
	[ "$text_tasks" -le 8 ] && [ "$binary_tasks" -le 8 ]
	tap_result $? "--parallel=1000 on two lines starts $text_tasks tasks, on two records $binary_tasks (8 at most)"
fi
done_testing
