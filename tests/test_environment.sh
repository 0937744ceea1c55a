#!/bin/sh
# SPDX-License-Identifier: MIT
# The environment matrix (issue 44, item 5): the cells the single-concern tests
# (test_output_targets, test_descriptors, test_limits, test_binary_pipe) leave out,
# crossed. Modes: text -u spilled (-S 64K -T), text -m, text -m -u spilled, u64 keys
# spilled, u64 -u in memory, 32-byte records -u spilled, records -m. Dimensions: every
# kind of -o target; descriptor 0, 1 or 2 closed; text input from a pipe, a FIFO,
# /dev/stdin and a socket; ulimit -n, ulimit -u (a uid of the test's own), ulimit -v and
# a memory cgroup; a full file system; SIGKILL at fixed points of the copy into a file.
# Each case names what must hold; text is checked against the system sort (its output,
# status and message with 'sort' read as 'gpusort'), binary against binary_oracle.py.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/uid_lib.sh"
. "$TESTS_SRCDIR/cgroup_lib.sh"
trap 'cgroup_remove; umount "$WORK/full" 2>/dev/null; rm -rf "$WORK"' EXIT

chmod 755 "$WORK"
mkdir -m 1777 "$WORK/tmp" "$WORK/t"
export TMPDIR="$WORK/tmp"
gnu=false
sort --version 2>/dev/null | head -1 | grep -q 'GNU coreutils' && gnu=true
root=false
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && root=true

# 150 KB of text with repeats (-u matters), 160 KB of u64 keys of few values, 5000
# records of 32 bytes with a u64 key first; each also split in two sorted halves for -m.
awk 'BEGIN { srand(44); for (i = 0; i < 12000; i++) printf "%d %s\n", int(rand() * 3000), substr("abcdefghij", 1 + int(rand() * 9)) }' \
	>"$WORK/text"
sort "$WORK/text" >"$WORK/text.sorted"
sort -u "$WORK/text" >"$WORK/text.unique"
head -n 6000 "$WORK/text" | sort >"$WORK/text.a"
tail -n +6001 "$WORK/text" | sort >"$WORK/text.b"
keygen --type=u64 --count=20000 --dist=few-unique --seed=44 -o "$WORK/keys"
oracle --type=u64 "$WORK/keys" "$WORK/keys.sorted"
oracle --type=u64 -u "$WORK/keys" "$WORK/keys.unique"
keygen --type=u64 --count=5000 --record-size=32 --dist=poisson --seed=45 -o "$WORK/recs"
oracle --type=u64 --record-size=32 -u "$WORK/recs" "$WORK/recs.unique"
head -c 80000 "$WORK/recs" >"$WORK/recs.a.in"
tail -c +80001 "$WORK/recs" >"$WORK/recs.b.in"
oracle --type=u64 --record-size=32 "$WORK/recs.a.in" "$WORK/recs.a"
oracle --type=u64 --record-size=32 "$WORK/recs.b.in" "$WORK/recs.b"
cat "$WORK/recs.a" "$WORK/recs.b" >"$WORK/recs.ab"
oracle --type=u64 --record-size=32 "$WORK/recs.ab" "$WORK/recs.merged"
find "$WORK" -maxdepth 1 -type f -exec chmod 644 {} +

MODES="text-u-spilled text-m text-mu-spilled u64-spilled u64-u rec-u-spilled rec-m"
# mode NAME: sets args, inputs, want (the expected bytes) and is_text.
mode() {
	spill="-S 64K -T ${temp_dir:-$WORK/t}" is_text=false
	case $1 in
	text-u-spilled) args="-u $spill" inputs=$WORK/text want=$WORK/text.unique is_text=true ;;
	text-m) args=-m inputs="$WORK/text.a $WORK/text.b" want=$WORK/text.sorted is_text=true ;;
	text-mu-spilled) args="-m -u $spill" inputs="$WORK/text.a $WORK/text.b" want=$WORK/text.unique is_text=true ;;
	u64-spilled) args="--type=u64 $spill" inputs=$WORK/keys want=$WORK/keys.sorted ;;
	u64-u) args="--type=u64 -u" inputs=$WORK/keys want=$WORK/keys.unique ;;
	rec-u-spilled) args="--type=u64 --record-size=32 -u $spill" inputs=$WORK/recs want=$WORK/recs.unique ;;
	rec-m) args="--type=u64 --record-size=32 -m" inputs="$WORK/recs.a $WORK/recs.b" want=$WORK/recs.merged ;;
	esac
}
# pick I: the mode at place I (mod 7) of MODES; the matrix takes a text and a binary
# mode per cell, rotating, so that every mode meets every dimension at least once.
pick() { set -- $((($1) % 7)) $MODES; shift $(($1 + 1)); echo "$1"; }
no_temp() { test -z "$(ls -A "$WORK/tmp"; ls -A "$WORK/t")" && test -z "$(find "$WORK" -name '.gpusort-out*')"; }

# run REDIRECTIONS COMMAND...: stdout to $WORK/stdout, stderr to $WORK/stderr, then
# REDIRECTIONS; sets status and said (stderr, 'sort:' read as 'gpusort:').
run() {
	run_redirections=$1
	shift
	eval '"$@" >"$WORK/stdout" 2>"$WORK/stderr" '"$run_redirections"
	status=$?
	said=$(sed -e 's/^sort: /gpusort: /' -e "s|$WORK/g/|$WORK/p/|g" "$WORK/stderr")
}
# result OK DESCRIPTION: a TAP line, with what happened when it failed.
result() {
	tap_result "$1" "$2"
	[ "$1" -eq 0 ] || echo "# got exit $status, said '$said'"
}

# --- -o targets x modes ----------------------------------------------------------------
# prepare KIND DIR: makes the target in DIR; sets out (the -o name), seen (where the
# result must be read), how (runner prefix), expect_status, expect_said.
prepare() {
	d=$2 out=$2/out seen=$2/out how= expect_status=0 expect_said= redir=
	rm -rf "$d" && mkdir -m 777 "$d"
	case $1 in
	new) ;;
	mode-0600) printf 'old\n' >"$out" && chmod 600 "$out" ;;
	hard-linked) printf 'old\n' >"$out" && ln "$out" "$d/out.2" ;;
	symlink) printf 'old\n' >"$d/target" && ln -s target "$out" && seen=$d/target ;;
	dangling) ln -s new-target "$out" && seen=$d/new-target ;;
	into-missing) ln -s missing/target "$out" && seen=/dev/null expect_status=2 \
		expect_said="gpusort: open failed: $out: No such file or directory" ;;
	stdout-pipe) out=/dev/stdout seen=$d/piped ;;
	dev-null) out=/dev/null seen=/dev/null ;;
	fifo) mkfifo "$out" && seen=$d/from-fifo ;;
	readonly-dir)
		printf 'old\n' >"$out" && chown "$FRESH_UID:$FRESH_UID" "$out" && chmod 555 "$d"
		how=as_fresh_uid ;;
	theirs-0444)
		printf 'old\n' >"$out" && chown 65534:65534 "$out" && chmod 444 "$out"
		how=as_fresh_uid seen=/dev/null expect_status=2
		expect_said="gpusort: open failed: $out: Permission denied" ;;
	esac
}
# sort_into KIND DIR PROGRAM: PROGRAM (mode's args) into the KIND of target in DIR;
# leaves what the result's reader got in DIR/got.
sort_into() {
	prepare "$1" "$2"
	[ "$1" = fifo ] && { cat "$out" >"$seen" & reader=$!; }
	if [ "$1" = stdout-pipe ]; then
		# shellcheck disable=SC2086
		$3 $args $inputs -o /dev/stdout 2>"$WORK/stderr" | cat >"$seen"
		status=$?
		said=$(sed -e 's/^sort: /gpusort: /' -e "s|$WORK/g/|$WORK/p/|g" "$WORK/stderr")
	else
		# shellcheck disable=SC2086
		run "" $how $3 $args $inputs -o "$out"
	fi
	[ "$1" = fifo ] && wait $reader
	cp "$seen" "$2/got" 2>/dev/null || : >"$2/got"
	[ "$1" = into-missing ] && { test -L "$out" && test ! -e "$2/missing" || status=99; }
	[ "$1" = theirs-0444 ] && { test "$(cat "$out")" = old || status=98; }
	[ "$1" = hard-linked ] && [ $status -eq 0 ] && { cmp -s "$out" "$2/out.2" || status=97; }
	[ "$1" = mode-0600 ] && [ $status -eq 0 ] && { test "$(stat -c %a "$out")" = 600 || status=96; }
	[ "$1" = dev-null ] && { test -c /dev/null || status=95; }
	chmod 755 "$2"
}
expectation() {
	case $1 in
	into-missing) echo "exit 2, '$expect_said', nothing created" ;;
	theirs-0444) echo "exit 2, Permission denied, old file intact" ;;
	dev-null) echo "exit 0, still the null device" ;;
	*) echo "exit 0, new file complete" ;;
	esac
}

TARGETS="new mode-0600 hard-linked symlink dangling into-missing stdout-pipe dev-null fifo"
if $root && fresh_uid 64321; then
	TARGETS="$TARGETS readonly-dir theirs-0444"
else
	skip_test "targets readonly-dir and theirs-0444: need root, setpriv and a free uid"
fi
i=0
for kind in $TARGETS; do
	i=$((i + 1))
	for m in $(pick $i) $(pick $((i + 3))); do
		mode $m
		sort_into $kind "$WORK/p" "$GPUSORT"
		expectation $kind >/dev/null
		ok=1
		[ $status -eq $expect_status ] && [ "$said" = "$expect_said" ] && no_temp &&
			{ [ $expect_status -ne 0 ] || [ $kind = dev-null ] || cmp -s "$WORK/p/got" "$want"; } && ok=0
		result $ok "$m, -o $kind: $(expectation $kind)"
		if $is_text && $gnu; then
			p_status=$status p_said=$said
			cp "$WORK/p/got" "$WORK/p.got"
			sort_into $kind "$WORK/g" sort
			rm -f "$WORK/t"/* "$WORK/tmp"/*
			[ $status -eq $p_status ] && [ "$said" = "$p_said" ] && cmp -s "$WORK/g/got" "$WORK/p.got"
			result $? "$m, -o $kind: as GNU sort (bytes, exit $p_status, message)"
		fi
	done
done

# -o /dev/stdout with stdout closed, in a mount namespace of our own with a /dev of
# ours (so that a build that replaced the link could not replace the system's).
if $root && unshare --mount true 2>/dev/null; then
	for m in text-u-spilled rec-m; do
		mode $m
		for prog in "$GPUSORT" sort; do
			# shellcheck disable=SC2086
			unshare --mount sh -c 'mount -t tmpfs tmpfs /dev && ln -s /proc/self/fd/1 /dev/stdout &&
				{ "$@" >&-; echo $? >/dev/stderr.status; } 2>/dev/stderr.said
				cat /dev/stderr.status /dev/stderr.said; test -L /dev/stdout || echo replaced' \
				sh $prog $args $inputs -o /dev/stdout >"$WORK/ns" 2>&1
			sed 's/^sort: /gpusort: /' "$WORK/ns" >"$WORK/ns.$(basename $prog)"
		done
		printf '2\ngpusort: open failed: /dev/stdout: No such file or directory\n' >"$WORK/ns.want"
		cmp -s "$WORK/ns.gpusort" "$WORK/ns.want"
		result $? "$m, -o /dev/stdout with stdout closed: exit 2, open failed: No such file or directory, the link kept"
		$is_text && $gnu && { cmp -s "$WORK/ns.sort" "$WORK/ns.want"; result $? "$m, -o /dev/stdout, stdout closed: as GNU sort"; }
	done
	rm -f "$WORK/t"/*
else
	skip_test "-o /dev/stdout with stdout closed: needs root and a mount namespace"
fi

# --- descriptor 0, 1 or 2 closed x modes -------------------------------------------------
for fd in 0 1 2; do
	for m in $(pick $fd) $(pick $((fd + 3))) $(pick $((fd + 5))); do
		mode $m
		case $fd in
		0) expect_status=0 expect_said= what="stdin closed, files named: exit 0, output complete" ;;
		# (an output no larger than GNU's stdio buffer fails in the final flush)
		1) failed=write
		   [ "$(wc -c <"$want")" -le 4096 ] && failed=fflush
		   expect_status=2 expect_said=$(printf '%s\n%s' "gpusort: $failed failed: 'standard output': Bad file descriptor" "gpusort: write error")
		   what="stdout closed: exit 2, '$expect_said'" ;;
		2) expect_status=0 expect_said= what="stderr closed: exit 0, output complete" ;;
		esac
		: >"$WORK/stdout"
		# shellcheck disable=SC2086
		run "$fd>&-" "$GPUSORT" $args $inputs
		got_status=$status got_said=$said
		{ [ $fd = 1 ] || cmp -s "$WORK/stdout" "$want"; } && [ $status -eq $expect_status ] &&
			[ "$said" = "$expect_said" ] && no_temp
		result $? "$m, $what"
		if $is_text && $gnu; then
			cp "$WORK/stdout" "$WORK/p.stdout"
			# shellcheck disable=SC2086
			run "$fd>&-" sort $args $inputs
			rm -f "$WORK/t"/*
			[ $status -eq $got_status ] && [ "$said" = "$got_said" ] && cmp -s "$WORK/stdout" "$WORK/p.stdout"
			result $? "$m, descriptor $fd closed: as GNU sort"
		fi
	done
done

# --- text input from a pipe, a FIFO, /dev/stdin, a socket ----------------------------
mkfifo "$WORK/fifo"
# from HOW PROGRAM ARGS...: PROGRAM reading $WORK/text.a (as "-" or a name) from HOW,
# and $WORK/text.b as a file after it; output to $WORK/stdout.
from() {
	from_how=$1
	shift
	case $from_how in
	pipe) cat "$WORK/text.a" | "$@" - "$WORK/text.b" ;;
	dev-stdin) cat "$WORK/text.a" | "$@" /dev/stdin "$WORK/text.b" ;;
	fifo) cat "$WORK/text.a" >"$WORK/fifo" & "$@" "$WORK/fifo" "$WORK/text.b"; wait ;;
	socket) python3 -c 'import os, socket, subprocess, sys
ours, theirs = socket.socketpair()
child = subprocess.Popen(sys.argv[2:], stdin=theirs)
theirs.close()
ours.sendall(open(sys.argv[1], "rb").read())
ours.shutdown(socket.SHUT_WR)
sys.exit(child.wait())' "$WORK/text.a" "$@" - "$WORK/text.b" ;;
	esac >"$WORK/stdout" 2>"$WORK/stderr"
}
for how in pipe fifo dev-stdin socket; do
	m=text-u-spilled
	[ $how = fifo ] || [ $how = socket ] && m=text-mu-spilled
	for m in $m; do
		mode $m
		# shellcheck disable=SC2086
		from $how "$GPUSORT" $args
		status=$?
		cp "$WORK/stdout" "$WORK/p.stdout"
		[ $status -eq 0 ] && cmp -s "$WORK/stdout" "$want" && ! [ -s "$WORK/stderr" ] && no_temp
		result $? "$m, one input from a $how, one a file: exit 0, output complete"
		if $gnu; then
			# shellcheck disable=SC2086
			from $how sort $args
			g=$?
			rm -f "$WORK/t"/*
			[ $g -eq $status ] && cmp -s "$WORK/stdout" "$WORK/p.stdout"
			result $? "$m, from a $how: as GNU sort"
		fi
	done
done
# An input named /dev/fd/N is that descriptor as it is (where GNU sort opens the name
# again): a socket is read as a stream (GNU: "open failed: ...: No such device or
# address"), a file from its offset, which is left where it was.
python3 -c 'import os, socket, subprocess, sys
def sorted_lines(data):
    return b"".join(line + b"\n" for line in sorted(data.split(b"\n")[:-1]))
data = open(sys.argv[1], "rb").read()
part = data[:data.index(b"\n", 20000) + 1]
ours, theirs = socket.socketpair()
ours.sendall(part)
ours.shutdown(socket.SHUT_WR)
a = subprocess.run([sys.argv[2], "/dev/fd/%d" % theirs.fileno()], pass_fds=(theirs.fileno(),), capture_output=True)
fd = os.open(sys.argv[1], os.O_RDONLY)
skip = data.index(b"\n", len(data) // 2) + 1
os.lseek(fd, skip, 0)
b = subprocess.run([sys.argv[2], "/dev/fd/%d" % fd], pass_fds=(fd,), capture_output=True)
ok_socket = a.returncode == 0 and not a.stderr and a.stdout == sorted_lines(part)
ok_file = b.returncode == 0 and b.stdout == sorted_lines(data[skip:]) and os.lseek(fd, 0, 1) == skip
sys.exit(0 if ok_socket and ok_file else 1 if not ok_socket else 2)' "$WORK/text.a" "$GPUSORT" 2>"$WORK/stderr"
status=$?
[ $status -ne 1 ]
result $? "text, /dev/fd/N of a socket: read as a stream, exit 0, output complete"
[ $status -eq 0 ]
result $? "text, /dev/fd/N of a file at an offset: read from there, the offset kept"

# --- limits x modes -------------------------------------------------------------------
# Open files: a hard-linked output (the copy keeps the target open beside the twin).
i=0
for n in 8 16 64 1024; do
	i=$((i + 1))
	for m in $(pick $i) $(pick $((i + 3))); do
		mode $m
		prepare hard-linked "$WORK/p"
		# shellcheck disable=SC2086
		run "" limited $n "$GPUSORT" $args $inputs -o "$out"
		[ $status -eq 0 ] && [ -z "$said" ] && cmp -s "$out" "$want" && cmp -s "$d/out.2" "$want" && no_temp
		result $? "$m, ulimit -n $n, -o a hard-linked file: exit 0, new file complete"
	done
done

# Processes: ulimit -u 1 and 3 as a uid of our own, output into a file in a directory
# it may not write (the copy path; temp files in a directory of its own).
if $root && command -v prlimit >/dev/null && [ -z "${GPUSORT_SANITIZED:-}" ] && fresh_uid 64321; then
	for limit in 1 3; do
		for m in $(pick $limit) $(pick $((limit + 2))); do
			mode $m
			prepare readonly-dir "$WORK/p"
			# shellcheck disable=SC2086
			run "" as_fresh_uid env GPUSORT_FAULT=spawn_wait:SHORT prlimit --nproc=$limit \
				"$GPUSORT" $args $inputs -o "$out"
			chmod 755 "$WORK/p"
			[ $status -eq 0 ] && [ -z "$said" ] && cmp -s "$out" "$want" && no_temp
			result $? "$m, ulimit -u $limit as uid $FRESH_UID, a file in a read-only directory: exit 0, new file complete"
		done
	done
else
	skip_test "ulimit -u: needs root, setpriv, prlimit, a free uid and no sanitizer"
fi

# Address space: ulimit -v 100000 (GNU sort needs far less), output through a symlink.
if [ -n "${GPUSORT_SANITIZED:-}" ] || ! command -v prlimit >/dev/null; then
	skip_test "ulimit -v: ASan's shadow memory does not fit, or no prlimit"
else
	for m in text-mu-spilled u64-u rec-u-spilled; do
		mode $m
		prepare symlink "$WORK/p"
		# shellcheck disable=SC2086
		run "" prlimit --as=$((100000 * 1024)) "$GPUSORT" --parallel=2 $args $inputs -o "$out"
		[ $status -eq 0 ] && [ -z "$said" ] && cmp -s "$seen" "$want" && test -L "$out" && no_temp
		result $? "$m, ulimit -v 100000, -o a symlink: exit 0, its target complete"
	done
fi

# A 48 MiB memory cgroup, the default -S within it, output to a 0600 file.
if ! cgroup_create gpusort-environment $((48 << 20)); then
	skip_test "a memory cgroup: $CGROUP_SKIP"
else
	for m in text-u-spilled u64-spilled rec-m; do
		mode $m
		prepare mode-0600 "$WORK/p"
		# shellcheck disable=SC2086
		run "" cgroup_exec "$GPUSORT" $args $inputs -o "$out"
		[ $status -eq 0 ] && [ -z "$said" ] && cmp -s "$out" "$want" && no_temp
		result $? "$m, a 48 MiB memory cgroup (v$CGROUP_VERSION), -o a 0600 file: exit 0, new file complete"
	done
	kills=$(cgroup_oom_kills)
	cgroup_remove
	test "${kills:-0}" -eq 0
	tap_result $? "the memory cgroup: no process killed for memory ($kills)"
fi

# --- a full file system ---------------------------------------------------------------
# A 1 MiB tmpfs with no room left: a new file (rename of a twin), a hard-linked file (the
# copy), and -T on it (a run): exit 2, 'write failed: NAME: No space left on device',
# the old file intact, nothing left behind.
full=$WORK/full
mkdir "$full"
if $root && mount -t tmpfs -o size=1m tmpfs "$full" 2>/dev/null; then
	printf 'old\n' >"$full/out"
	head -c 2M /dev/zero >"$full/filler" 2>/dev/null
	# modes whose output (150 KB and more) cannot fit, and one whose runs cannot: text
	# -u under -S 64K, five times the text (the smallest chunk holds the text once)
	for cell in text-m:regular text-m:hard-linked u64-spilled:regular u64-spilled:hard-linked \
		rec-m:regular rec-m:hard-linked text-u-spilled:temp-dir; do
		m=${cell%%:*} kind=${cell#*:}
		for kind in $kind; do
			temp_dir=
			[ $kind = temp-dir ] && temp_dir=$full
			mode $m
			temp_dir=
			printf 'old\n' >"$full/out"
			rm -f "$full/out.2"
			[ $kind = hard-linked ] && ln "$full/out" "$full/out.2"
			target=$full/out extra=
			case $kind in
			temp-dir)
				target=$WORK/p/out
				cat "$inputs" "$inputs" "$inputs" "$inputs" "$inputs" >"$WORK/five"
				inputs=$WORK/five
				case $args in *-S*) ;; *) extra="-S 64K -T $full" ;; esac
				printf 'old\n' >"$target" ;;
			esac
			# shellcheck disable=SC2086
			run "" "$GPUSORT" $args $extra $inputs -o "$target"
			name=$target
			[ $kind = temp-dir ] && said=$(echo "$said" | sed "s|$full/gpusort\.[A-Za-z0-9]*|$full/TEMP|")
			[ $kind = temp-dir ] && name=$full/TEMP
			want_said="gpusort: write failed: $name: No space left on device"
			[ $kind = temp-dir ] || want_said=$(printf '%s\n%s' "$want_said" "gpusort: write error")
			[ $status -eq 2 ] && [ "$said" = "$want_said" ] &&
				[ "$(cat "$target")" = old ] && [ "$(ls -A "$full" | tr '\n' ' ')" = "filler out $( [ $kind = hard-linked ] && echo 'out.2 ')" ] &&
				no_temp
			result $? "$m, ENOSPC ($kind): exit 2, 'write failed: ...: No space left on device', old file intact"
		done
	done
	umount "$full"
else
	skip_test "a full file system: needs root to mount a 1 MiB tmpfs"
fi

# --- SIGKILL at fixed points of the copy into a hard-linked file ------------------------
# The fault point output_copy:STOP:N stops gpusort at the Nth step of the copy, where it
# is killed: at the reservation (1) and just after it (2), the old file is intact through
# both links; after the first 4 MiB piece (3), before the cut to the new length, it is
# what the manual says a SIGKILL in the copy may leave: the new bytes up to some offset,
# the old after it, the old length.
awk 'BEGIN { srand(5); for (i = 0; i < 400000; i++) printf "%06d line\n", int(rand() * 1e6) }' >"$WORK/big"
LC_ALL=C sort "$WORK/big" >"$WORK/big.sorted"
awk 'BEGIN { for (i = 0; i < 500000; i++) print "old-old-old" }' >"$WORK/big.old"
# mixed FILE: FILE is new up to a byte k > 1 (cmp says "byte" or "char") and old from k on, as long as the old file.
mixed() {
	k=$(cmp "$1" "$WORK/big.sorted" 2>&1 | sed -n -e 's/.* differ: [a-z]* \([0-9]*\),.*/\1/p' \
		-e 's/.*EOF on .* after [a-z]* \([0-9]*\).*/\1+1/p')
	[ -n "$k" ] && k=$((k))
	[ -n "$k" ] && [ "$k" -gt 1 ] && [ "$(stat -c %s "$1")" -eq "$(stat -c %s "$WORK/big.old")" ] &&
		tail -c +"$k" "$1" | cmp -s - "$WORK/big.old" -i 0:$((k - 1))
}
for point in 1:reservation:intact 2:reservation-made:intact 3:first-piece:mixed; do
	step=${point%%:*} where=${point#*:} expect=${where#*:}
	where=${where%%:*}
	rm -rf "$WORK/k" && mkdir "$WORK/k"
	cp "$WORK/big.old" "$WORK/k/out"
	ln "$WORK/k/out" "$WORK/k/out.2"
	LC_ALL=C GPUSORT_FAULT=output_copy:STOP:$step "$GPUSORT" "$WORK/big" -o "$WORK/k/out" 2>/dev/null &
	victim=$!
	state=
	for _ in $(seq 200); do
		state=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' /proc/$victim/status 2>/dev/null)
		[ "$state" = T ] || [ -z "$state" ] && break
		sleep 0.05
	done
	kill -KILL $victim 2>/dev/null
	wait $victim 2>/dev/null
	rm -f "$WORK/k/.gpusort-out".*
	if [ "$state" != T ]; then
		result 1 "SIGKILL at the copy's $where: the sort never stopped there (state '$state')"
	elif [ $expect = intact ]; then
		cmp -s "$WORK/k/out" "$WORK/big.old" && cmp -s "$WORK/k/out.2" "$WORK/big.old"
		result $? "SIGKILL at the copy's $where: the old file intact through both links"
	else
		mixed "$WORK/k/out" && cmp -s "$WORK/k/out" "$WORK/k/out.2"
		status=$?
		result $status "SIGKILL after the copy's $where: new bytes up to an offset, old after it, the old length, as the manual says"
		[ $status -eq 0 ] || echo "# new up to byte ${k:-none}; $(stat -c %s "$WORK/k/out") bytes; $(cmp "$WORK/k/out" "$WORK/big.sorted" 2>&1)"
	fi
done
rm -f "$WORK/tmp"/*
done_testing
