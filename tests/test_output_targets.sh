#!/bin/sh
# SPDX-License-Identifier: MIT
# Where the output goes, for every kind of -o target and with standard input, output or
# error closed, in text and binary mode, sorted in memory and (-S 1M) from spilled runs.
# Each case states what must hold: the new file complete, or the old one byte-identical;
# the exit status; the exact message, GNU sort's words (compared with the system sort
# where GNU defines the case). No file gpusort opens may take descriptor 0, 1 or 2: a
# closed stdout is a write error (not a temp run that receives the output), a closed
# stdin is "stat failed: -". A symbolic link is written through, never replaced;
# /dev/stdout and /dev/fd/N are the descriptor itself, written in place; a copy into a
# hard-linked file reserves its room first (a full file system leaves it as it was) and
# holds a lock, so two sorts into one file leave one whole result.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

mkdir "$WORK/tmp"
export TMPDIR="$WORK/tmp"

# 120000 lines and 250000 keys: 2 MB, so that -S 1M spills runs and merges them.
awk 'BEGIN { srand(7); for (i = 0; i < 120000; i++) printf "%d line %d\n", int(rand() * 100000), i }' \
	> "$WORK/text.in"
sort "$WORK/text.in" > "$WORK/text.expected"
keygen --type=u64 --count=250000 --seed=17 -o "$WORK/binary.in"
oracle --type=u64 "$WORK/binary.in" "$WORK/binary.expected"
printf 'b\na\n' > "$WORK/small.in"
printf 'a\nb\n' > "$WORK/small.expected"

# The system sort is GNU's: its messages are the oracle for the text cases.
gnu= gnu_runner=
sort --version 2>/dev/null | head -1 | grep -q 'GNU coreutils' && gnu=yes

mode_args() { [ "$1" = binary ] && echo --type=u64; }
no_temp() { test -z "$(ls -A "$WORK/tmp")" && test -z "$(find "$WORK" -name '.gpusort-out*')"; }
sorted() { cmp -s "$2" "$WORK/$1.expected"; }

# run REDIRECTIONS COMMAND...: runs COMMAND with its stdout in $WORK/stdout and its
# stderr in $WORK/stderr, then REDIRECTIONS (">&-" closes stdout); sets status.
run() {
	run_redirections=$1
	shift
	: > "$WORK/stdout"
	: > "$WORK/stderr"
	eval '"$@" >"$WORK/stdout" 2>"$WORK/stderr" '"$run_redirections"
	status=$?
}
# verdict STATUS MESSAGE DESCRIPTION: the last run exited with STATUS and its stderr is
# exactly MESSAGE ("" for none).
verdict() {
	got=$(cat "$WORK/stderr")
	test "$status" -eq "$1" && test "$got" = "$2"
	tap_result $? "$3: exit $1, message '$2' (got exit $status, '$got')"
}
# gnu_agrees REDIRECTIONS STATUS MESSAGE DESCRIPTION SORT-ARGS...: the system sort, run
# the same way, exits with STATUS and says MESSAGE, in its words ("sort:").
gnu_agrees() {
	g_redirections=$1 g_status=$2 g_message=$3 g_what=$4
	shift 4
	if [ -z "$gnu" ]; then
		skip_test "$g_what: the system sort is not GNU's"
		return
	fi
	run "$g_redirections" $gnu_runner sort "$@"
	said=$(sed 's/^sort: /gpusort: /' "$WORK/stderr")
	test "$status" -eq "$g_status" && test "$said" = "$g_message"
	tap_result $? "$g_what: GNU sort agrees (exit $status, '$said')"
}

# --- Standard descriptors closed -------------------------------------------------------
for m in text binary; do
	for memory in "" "-S 1M"; do
		how="$m, ${memory:-in memory}"
		args="$(mode_args $m) $memory"
		# A closed stdout: a write error, never a temp run that takes descriptor 1 and
		# receives the output (which was then deleted, exit 0).
		message=$(printf '%s\n%s' "gpusort: write failed: 'standard output': Bad file descriptor" "gpusort: write error")
		run ">&-" "$GPUSORT" $args "$WORK/$m.in"
		verdict 2 "$message" "$how: stdout closed"
		check "$how: stdout closed: no temp file left" no_temp
		[ $m = text ] && gnu_agrees ">&-" 2 "$message" "$how: stdout closed" $memory "$WORK/$m.in"

		# A closed stdin, as input: GNU's "stat failed: -".
		message="gpusort: stat failed: -: Bad file descriptor"
		run "<&-" "$GPUSORT" $args
		verdict 2 "$message" "$how: stdin closed"
		[ $m = text ] && gnu_agrees "<&-" 2 "$message" "$how: stdin closed" $memory
		# ... after a file that would have taken descriptor 0: "-" is still the closed
		# stdin, not that file read again (GNU sort reads it twice there).
		run "<&-" "$GPUSORT" $args "$WORK/$m.in" -
		verdict 2 "$message" "$how: stdin closed, a file and -"
		test ! -s "$WORK/stdout"
		tap_result $? "$how: stdin closed, a file and -: nothing is written"

		# A closed stderr: the sort goes on, silent; its output complete.
		run "2>&-" "$GPUSORT" $args "$WORK/$m.in"
		verdict 0 "" "$how: stderr closed"
		check "$how: stderr closed: the output is complete" sorted $m "$WORK/stdout"
		run "2>&-" "$GPUSORT" $args --stats "$WORK/$m.in" -o "$WORK/out"
		verdict 0 "" "$how: stderr closed, --stats, -o"
		check "$how: stderr closed, --stats: no message in the output" sorted $m "$WORK/out"

		# -o FILE with stdout closed, and with all three closed: works, exit 0.
		rm -f "$WORK/out"
		run ">&-" "$GPUSORT" $args "$WORK/$m.in" -o "$WORK/out"
		verdict 0 "" "$how: stdout closed, -o FILE"
		check "$how: stdout closed, -o FILE: the file is complete" sorted $m "$WORK/out"
		[ $m = text ] && gnu_agrees ">&-" 0 "" "$how: stdout closed, -o FILE" $memory "$WORK/$m.in" -o "$WORK/gnu.out"
		rm -f "$WORK/out"
		run "<&- >&- 2>&-" "$GPUSORT" $args "$WORK/$m.in" -o "$WORK/out"
		verdict 0 "" "$how: 0, 1 and 2 closed, -o FILE"
		check "$how: 0, 1 and 2 closed, -o FILE: the file is complete" sorted $m "$WORK/out"
		check "$how: 0, 1 and 2 closed: no temp file left" no_temp
	done
done
# A budget so small that runs are merged in passes: a pass's run made before the output
# is opened took the free descriptor 1 (and received the output, deleted, exit 0).
message=$(printf '%s\n%s' "gpusort: write failed: 'standard output': Bad file descriptor" "gpusort: write error")
run ">&-" "$GPUSORT" -S 512K "$WORK/text.in"
verdict 2 "$message" "text, -S 512K (merge passes): stdout closed"
check "text, -S 512K: stdout closed: no temp file left" no_temp
gnu_agrees ">&-" 2 "$message" "text, -S 512K: stdout closed" -S 512K "$WORK/text.in"

# GNU's stdio meets a failed write of an output no larger than its buffer (4096 bytes) in
# the final flush ("fflush failed"), of a larger one in a write ("write failed"), and
# close_stdout adds "write error": at 4095, 4096 and 4097 bytes, sorted and merged, to a
# closed stdout and to a full device.
for bytes in 4095 4096 4097; do
	awk -v n=$bytes 'BEGIN { for (i = 0; i + 10 <= n; i += 10) printf "%09d\n", (i * 7919) % 1000003;
		if (n % 10) { for (j = 1; j < n % 10; j++) printf "z"; printf "\n" } }' >"$WORK/edge.in"
	how=fflush
	[ $bytes -gt 4096 ] && how=write
	for target in ">&-" ">/dev/full"; do
		[ "$target" = ">/dev/full" ] && [ ! -w /dev/full ] && continue
		reason="Bad file descriptor"
		[ "$target" = ">/dev/full" ] && reason="No space left on device"
		message=$(printf '%s\n%s' "gpusort: $how failed: 'standard output': $reason" "gpusort: write error")
		for merge in "" -m; do
			run "$target" "$GPUSORT" $merge "$WORK/edge.in"
			verdict 2 "$message" "$bytes bytes${merge:+, $merge}, stdout $target"
			gnu_agrees "$target" 2 "$message" "$bytes bytes${merge:+, $merge}, stdout $target" $merge "$WORK/edge.in"
		done
	done
	b=$(((bytes + 7) / 8 * 8))
	head -c $b "$WORK/binary.in" >"$WORK/edge.bin"
	[ $b -gt 4096 ] && how=write || how=fflush
	run ">&-" "$GPUSORT" --type=u64 "$WORK/edge.bin"
	verdict 2 "$(printf '%s\n%s' "gpusort: $how failed: 'standard output': Bad file descriptor" "gpusort: write error")" \
		"binary, $b bytes, stdout closed"
done

message="gpusort: stat failed: -: Bad file descriptor"
run "<&-" "$GPUSORT" -m "$WORK/small.in" -
verdict 2 "$message" "-m a file and a closed stdin"
test ! -s "$WORK/stdout"
tap_result $? "-m a file and a closed stdin: the file is not merged twice"
message="gpusort: read failed: -: Bad file descriptor"
run "<&-" "$GPUSORT" -c
verdict 2 "$message" "-c on a closed stdin"
gnu_agrees "<&-" 2 "$message" "-c on a closed stdin" -c

# --- -o FILE: regular files, links, descriptors, devices -------------------------------
d=$WORK/targets
mkdir "$d" "$d/sub"
for m in text binary; do
	args=$(mode_args $m)
	rm -rf "${d:?}"/* && mkdir "$d/sub"

	printf 'old\n' > "$d/regular"
	chmod 600 "$d/regular"
	run "" "$GPUSORT" $args "$WORK/$m.in" -o "$d/regular"
	verdict 0 "" "$m: a 0600 file"
	check "$m: a 0600 file: complete, still 0600" \
		sh -c "cmp -s '$d/regular' '$WORK/$m.expected' && test \$(stat -c %a '$d/regular') = 600"

	printf 'old\n' > "$d/linked"
	ln "$d/linked" "$d/linked.2"
	run "" "$GPUSORT" $args "$WORK/$m.in" -o "$d/linked"
	verdict 0 "" "$m: a hard-linked file"
	check "$m: a hard-linked file: both links see the complete output" \
		sh -c "cmp -s '$d/linked' '$WORK/$m.expected' && cmp -s '$d/linked.2' '$WORK/$m.expected'"

	# Symbolic links: written through, the link kept; a missing target is created.
	printf 'old\n' > "$d/target"
	ln -s target "$d/link"
	run "" "$GPUSORT" $args "$WORK/$m.in" -o "$d/link"
	verdict 0 "" "$m: a symlink"
	check "$m: a symlink: it stays a link, its target complete" \
		sh -c "test \"\$(readlink '$d/link')\" = target && cmp -s '$d/target' '$WORK/$m.expected'"
	ln -s new-target "$d/dangling"
	run "" "$GPUSORT" $args "$WORK/$m.in" -o "$d/dangling"
	verdict 0 "" "$m: a dangling symlink"
	check "$m: a dangling symlink: it stays a link, its target is created, complete" \
		sh -c "test \"\$(readlink '$d/dangling')\" = new-target && cmp -s '$d/new-target' '$WORK/$m.expected'"
	# A relative target is taken from the link's directory, through a chain of links.
	ln -s ../relative-target "$d/sub/relative"
	ln -s sub/relative "$d/chain"
	run "" "$GPUSORT" $args "$WORK/$m.in" -o "$d/chain"
	verdict 0 "" "$m: a chain to a relative symlink in another directory"
	check "$m: a relative symlink: both links stay, the target beside sub/ is complete" \
		sh -c "test -L '$d/chain' && test -L '$d/sub/relative' && test ! -e '$d/sub/relative-target' &&
			cmp -s '$d/relative-target' '$WORK/$m.expected'"
	# A link into a missing directory: what open(2) says, nothing changed or created.
	# (GNU sort first, so that it meets the link as it was made.)
	ln -s missing/target "$d/into-missing"
	message="gpusort: open failed: $d/into-missing: No such file or directory"
	[ $m = text ] && gnu_agrees "" 2 "$message" "$m: a symlink into a missing directory" \
		"$WORK/$m.in" -o "$d/into-missing"
	run "" "$GPUSORT" $args "$WORK/$m.in" -o "$d/into-missing"
	verdict 2 "$message" "$m: a symlink into a missing directory"
	check "$m: a symlink into a missing directory: the link stays, nothing is created" \
		sh -c "test \"\$(readlink '$d/into-missing')\" = missing/target && test ! -e '$d/missing'"

	# /dev/stdout is stdout: written in place at its offset, nothing renamed over the
	# file the caller holds open. (GNU sort opens it again and truncates: under > the
	# caller's next write lands over the result, under >> the old bytes are lost.)
	cat "$WORK/$m.expected" > "$d/expected-done"
	echo done >> "$d/expected-done"
	{ "$GPUSORT" $args "$WORK/$m.in" -o /dev/stdout; echo done; } > "$d/stdout-file"
	check "$m: -o /dev/stdout, stdout a file (>): the result, then what the caller wrote after" \
		cmp -s "$d/stdout-file" "$d/expected-done"
	printf 'before\n' > "$d/appended"
	{ cat "$d/appended"; cat "$d/expected-done"; } > "$d/expected-appended"
	{ "$GPUSORT" $args "$WORK/$m.in" -o /dev/stdout; echo done; } >> "$d/appended"
	check "$m: -o /dev/stdout, stdout a file (>>): the old bytes, the result, the caller's" \
		cmp -s "$d/appended" "$d/expected-appended"
	printf 'old\n' > "$d/fd7"
	{ "$GPUSORT" $args "$WORK/$m.in" -o /dev/fd/7; echo done >&7; } 7>> "$d/fd7"
	{ echo old; cat "$d/expected-done"; } > "$d/expected-fd7"
	check "$m: -o /dev/fd/7, 7>> a file: appended in place" cmp -s "$d/fd7" "$d/expected-fd7"
	"$GPUSORT" $args "$WORK/$m.in" -o /dev/stdout | cat > "$d/piped"
	check "$m: -o /dev/stdout, stdout a pipe: complete" sorted $m "$d/piped"
	run "" "$GPUSORT" $args "$WORK/$m.in" -o /dev/null
	verdict 0 "" "$m: -o /dev/null"
	check "$m: -o /dev/null: still the null device" test -c /dev/null
	# A closed stdout named as /dev/fd/1, or by a link of ours to /proc/self/fd/1 (not
	# /dev/stdout itself: a build that replaced the link would replace the system's).
	ln -s /proc/self/fd/1 "$d/stdout-link"
	for name in /dev/fd/1 "$d/stdout-link"; do
		message="gpusort: open failed: $name: No such file or directory"
		[ $m = text ] && gnu_agrees ">&-" 2 "$message" "$m: -o $name, stdout closed" "$WORK/$m.in" -o "$name"
		run ">&-" "$GPUSORT" $args "$WORK/$m.in" -o "$name"
		verdict 2 "$message" "$m: -o $name, stdout closed"
	done
	check "$m: -o a link to /proc/self/fd/1, stdout closed: the link stays" \
		test "$(readlink "$d/stdout-link")" = /proc/self/fd/1

	# A FIFO: written in place, for the reader at its other end.
	mkfifo "$d/fifo"
	cat "$d/fifo" > "$d/from-fifo" &
	reader=$!
	run "" "$GPUSORT" $args "$WORK/$m.in" -o "$d/fifo"
	wait $reader
	verdict 0 "" "$m: a FIFO"
	check "$m: a FIFO: still a FIFO, the reader got the complete output" \
		sh -c "test -p '$d/fifo' && cmp -s '$d/from-fifo' '$WORK/$m.expected'"
done

# Names open(2) refuses, in GNU sort's words.
printf 'file\n' > "$d/file"
mkdir -p "$d/dir"
ln -sf loop-b "$d/loop-a"
ln -sf loop-a "$d/loop-b"
for case in "$d/new/:Is a directory" ":No such file or directory" "$d/dir:Is a directory" \
	"$d/file/x:Not a directory" "$d/loop-a:Too many levels of symbolic links"; do
	name=${case%:*} why=${case##*:}
	quoted=$name
	[ -z "$name" ] && quoted="''"
	message="gpusort: open failed: $quoted: $why"
	run "" "$GPUSORT" "$WORK/small.in" -o "$name"
	verdict 2 "$message" "-o '$name'"
	gnu_agrees "" 2 "$message" "-o '$name'" "$WORK/small.in" -o "$name"
done

# --- Permissions (as nobody) -----------------------------------------------------------
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	RUN="setpriv --reuid=65534 --regid=65534 --clear-groups"
	p=$WORK/perm
	mkdir "$p" "$p/readonly-dir"
	chmod 755 "$WORK"
	chmod 1777 "$WORK/tmp" "$p"
	printf 'theirs\n' > "$p/theirs"
	chmod 444 "$p/theirs"
	cp "$p/theirs" "$p/theirs.old"
	message="gpusort: open failed: $p/theirs: Permission denied"
	run "" $RUN "$GPUSORT" "$WORK/text.in" -o "$p/theirs"
	verdict 2 "$message" "a 0444 file of another owner, as nobody"
	check "a 0444 file of another owner: byte-identical" cmp -s "$p/theirs" "$p/theirs.old"
	gnu_runner=$RUN
	gnu_agrees "" 2 "$message" "a 0444 file of another owner, as nobody" "$WORK/text.in" -o "$p/theirs"
	gnu_runner=
	check "a 0444 file of another owner: still byte-identical" cmp -s "$p/theirs" "$p/theirs.old"
	printf 'old\n' > "$p/readonly-dir/out"
	chown 65534:65534 "$p/readonly-dir/out"
	chmod 755 "$p/readonly-dir"
	for m in text binary; do
		run "" $RUN "$GPUSORT" $(mode_args $m) "$WORK/$m.in" -o "$p/readonly-dir/out"
		verdict 0 "" "$m: a writable file in a read-only directory, as nobody"
		check "$m: a file in a read-only directory: complete" sorted $m "$p/readonly-dir/out"
	done
	check "permissions: no temp file left" no_temp
else
	skip_test "permission cases: not root, or no setpriv"
fi

# --- A full file system during the copy into a hard-linked file ------------------------
# 11 MB of output into a 1 MiB file with two links on a 20 MiB tmpfs: the twin and the
# grown file do not both fit. ENOSPC before one old byte changes: exit 2, GNU's words
# for a failed write naming the file, the old file byte-identical through both links;
# also where the file system cannot reserve (fallocate EOPNOTSUPP: the free space is
# checked instead).
full=$WORK/full
mkdir "$full"
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=20m tmpfs "$full" 2>/dev/null; then
	awk 'BEGIN { srand(9); for (i = 0; i < 220000; i++) printf "%08d some text to make the line longer %d\n", int(rand() * 1e8), i }' \
		> "$WORK/large.in"
	keygen --type=u64 --count=1400000 --seed=5 -o "$WORK/large.bin"
	head -c 1048576 "$WORK/binary.in" > "$WORK/full.old"
	for case in text: binary:--type=u64 text-fallback: binary-fallback:--type=u64; do
		what=${case%%:*} args=${case#*:}
		input=$WORK/large.in
		[ -n "$args" ] && input=$WORK/large.bin
		fault=
		case $what in *fallback) fault=output_copy:95:1 ;; esac
		cp "$WORK/full.old" "$full/out"
		ln -f "$full/out" "$full/out.2"
		message=$(printf '%s\n%s' "gpusort: write failed: $full/out: No space left on device" "gpusort: write error")
		GPUSORT_FAULT=$fault run "" "$GPUSORT" $args -T "$WORK/tmp" "$input" -o "$full/out"
		verdict 2 "$message" "$what: ENOSPC copying into a hard-linked file"
		check "$what: ENOSPC during the copy: the old file is byte-identical" \
			sh -c "cmp -s '$full/out' '$WORK/full.old' && cmp -s '$full/out.2' '$WORK/full.old'"
		check "$what: ENOSPC during the copy: no temp file left" \
			sh -c "test -z \"\$(ls -A '$WORK/tmp')\" && test -z \"\$(ls -A '$full' | grep -v '^out')\""
	done
	umount "$full"
else
	skip_test "full file system: needs root to mount a 20 MiB tmpfs"
fi

# --- Two sorts into one output at once -------------------------------------------------
# Deterministic: while another holds a lock on the hard-linked output, a sort waits
# before its copy (it shows as a blocked lock in /proc/locks) and the file stays as it
# was; once the lock is let go, the sort's copy makes the file complete.
printf 'old\n' > "$WORK/locked"
ln -f "$WORK/locked" "$WORK/locked.2"
cp "$WORK/locked" "$WORK/locked.old"
python3 - "$GPUSORT" "$WORK/text.in" "$WORK/locked" "$WORK/locked.old" > "$WORK/lock.result" <<'EOF'
import fcntl, os, subprocess, sys, time
gpusort, source, out, old = sys.argv[1:5]
fd = os.open(out, os.O_WRONLY)
fcntl.lockf(fd, fcntl.LOCK_EX)
inode = os.fstat(fd).st_ino
child = subprocess.Popen([gpusort, source, "-o", out])
waited = False
for _ in range(600):  # until the sort waits for the lock, or ends
    if child.poll() is not None:
        break
    with open("/proc/locks") as locks:
        # a waiter: "N: -> OFDLCK ADVISORY WRITE -1 MAJ:MIN:INODE 0 EOF"
        if any(line.split()[1:2] == ["->"] and line.split()[6].endswith(":%d" % inode)
               for line in locks):
            waited = True
            break
    time.sleep(0.05)
unchanged = open(out, "rb").read() == open(old, "rb").read()
os.close(fd)
print("waited" if waited else "did-not-wait", "unchanged" if unchanged else "changed", child.wait())
EOF
check "a locked output: the sort waits for the lock, the file unchanged meanwhile, then exit 0" \
	test "$(cat "$WORK/lock.result")" = "waited unchanged 0"
check "a locked output: complete once the lock is let go" \
	sh -c "cmp -s '$WORK/locked' '$WORK/text.expected' && cmp -s '$WORK/locked.2' '$WORK/text.expected'"

# And ten races of two sorts (of a smaller input), copying into one hard-linked file,
# or renaming over one file: each time one whole result, sorted, both exit 0.
head -50000 "$WORK/text.in" > "$WORK/race.in"
sort "$WORK/race.in" > "$WORK/race.expected"
sort -r "$WORK/race.in" > "$WORK/race.reverse"
for how in copy rename; do
	bad=0
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		printf 'old\n' > "$WORK/raced"
		[ $how = copy ] && ln -f "$WORK/raced" "$WORK/raced.2"
		"$GPUSORT" "$WORK/race.in" -o "$WORK/raced" & first=$!
		"$GPUSORT" -r "$WORK/race.in" -o "$WORK/raced" & second=$!
		wait $first; s1=$?
		wait $second; s2=$?
		{ [ $s1 -eq 0 ] && [ $s2 -eq 0 ] &&
			{ cmp -s "$WORK/raced" "$WORK/race.expected" || cmp -s "$WORK/raced" "$WORK/race.reverse"; }; } ||
			bad=$((bad + 1))
		rm -f "$WORK/raced.2"
	done
	test $bad -eq 0
	tap_result $? "two sorts at once into one file ($how), 10 tries: one whole result each time ($bad bad)"
done
check "races: no temp file left" no_temp

done_testing
