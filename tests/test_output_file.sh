#!/bin/sh
# SPDX-License-Identifier: MIT
# -o FILE towards the file it replaces, as GNU sort: a file the user may not write is
# refused before any input is read (exit 2, "Permission denied", file unchanged); mode,
# owner, group, extended attributes, ACLs and hard links are kept; a writable file in a
# read-only directory is written; a symbolic link stays a link; -o may name an input; a
# failure leaves the old file byte-identical and no temp file. Each case in text and in
# binary mode. The twin is renamed over the file only where that keeps every property
# (the inode changes), else copied into the file itself (the inode stays): the inode
# number tells which way each case went, as man/gpusort.1 states.
# As root the cases run as nobody (setpriv), since root may write anything; as another
# user they run as that user, and the cases that need a second user are skipped.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

mkdir "$WORK/tmp"
export TMPDIR="$WORK/tmp"
chmod 755 "$WORK"
chmod 1777 "$WORK/tmp"

# 200000 lines and 400000 keys: a few MB, so that -S 1M spills runs and merges them.
awk 'BEGIN { srand(5); for (i = 0; i < 200000; i++) printf "%d line %d\n", int(rand() * 100000), i }' \
	> "$WORK/text.in"
sort "$WORK/text.in" > "$WORK/text.expected"
keygen --type=u64 --count=400000 --seed=31 -o "$WORK/binary.in"
oracle --type=u64 "$WORK/binary.in" "$WORK/binary.expected"
chmod 644 "$WORK/text.in" "$WORK/binary.in"
mkfifo "$WORK/fifo"
chmod 666 "$WORK/fifo"

# RUN: how the unprivileged user runs a command; GROUP_RUN: the same user, also a
# member of $member_gid. owner: that user's uid:gid, for files the test makes for it.
me=$(id -u)
RUN= GROUP_RUN= unprivileged= second_user= member_gid= foreign_gid=
if [ "$me" -eq 0 ]; then
	RUN="setpriv --reuid=65534 --regid=65534 --clear-groups"
	if command -v setpriv >/dev/null 2>&1 && $RUN test -r "$WORK/text.in" &&
		$RUN "$GPUSORT" --version >/dev/null 2>&1; then
		unprivileged=yes second_user=yes
		member_gid=4242 foreign_gid=4243
		GROUP_RUN="setpriv --reuid=65534 --regid=65534 --groups=$member_gid"
		owner=65534:65534
	else
		why="running as root, and nobody (65534) cannot run $GPUSORT on $WORK with setpriv"
	fi
else
	unprivileged=yes GROUP_RUN=
	owner=$me:$(id -g)
	for g in $(id -G); do
		[ "$g" != "$(id -g)" ] && member_gid=$g && break
	done
fi

mode_args() { [ "$1" = binary ] && echo --type=u64; }
# own FILE...: makes files the unprivileged user's.
own() { [ "$me" -eq 0 ] && chown "$owner" "$@"; return 0; }
# props FILE: mode, owner, group and link count, as stat prints them.
props() { stat -c '%a %u:%g %h' "$1"; }
inode() { stat -c %i "$1"; }
no_temp() {
	test -z "$(ls -A "$WORK/tmp")" && test -z "$(find "$WORK" -name '.gpusort-out*')"
}
# old FILE MODE: a fresh old output of the unprivileged user, its bytes kept in FILE.old.
old() {
	rm -f "$1" "$1.old"
	printf 'old output of %s\n' "$1" > "$1"
	own "$1"
	chmod "$2" "$1"
	cp "$1" "$1.old"
}
unchanged() { cmp -s "$1" "$1.old"; }
# sorted MODE FILE: FILE holds MODE's expected output.
sorted() { cmp -s "$2" "$WORK/$1.expected"; }

# (Variables: lib.sh's check and expect_status set desc and status, so not those.)
# replaced MODE DESCRIPTION FILE PROPS HOW [RUNNER]: sorts MODE's input into FILE, which must
# then hold the sorted input, show PROPS (mode owner:group links), and have been
# renamed over (HOW=rename: a new inode) or written in place (HOW=copy: the same inode).
replaced() {
	m=$1 what=$2 file=$3 want=$4 how=$5 runner=${6-$RUN}
	before=$(inode "$file")
	expect_status 0 "$m: $what: sorts" $runner "$GPUSORT" $(mode_args "$m") "$WORK/$m.in" -o "$file"
	check "$m: $what: holds the sorted input" sorted "$m" "$file"
	got=$(props "$file")
	test "$got" = "$want"
	tap_result $? "$m: $what: keeps mode, owner, group and links ($got, expected $want)"
	after=$(inode "$file")
	if [ "$how" = rename ]; then
		test "$after" != "$before"
		tap_result $? "$m: $what: the twin is renamed over it (inode $before -> $after)"
	else
		test "$after" = "$before"
		tap_result $? "$m: $what: the twin is copied into it (inode $before -> $after)"
	fi
	check "$m: $what: no temp file left" no_temp
}

# refused MODE DESCRIPTION FILE: exit 2 with "FILE: Permission denied" before any input is
# read (the input is a FIFO nobody writes: reading it would hang until the timeout), the
# file unchanged (or still absent), no temp file.
refused() {
	m=$1 what=$2 file=$3
	expect_status 2 "$m: $what: refused before the input is read" \
		timeout 20 $RUN "$GPUSORT" $(mode_args "$m") "$WORK/fifo" -o "$file"
	stderr_has "gpusort: open failed: $file: Permission denied" "$m: $what: the file is named with the reason, in GNU sort's words"
	if [ -e "$file.old" ]; then
		check "$m: $what: the file is unchanged" unchanged "$file"
	else
		check "$m: $what: no file is created" test ! -e "$file"
	fi
	check "$m: $what: no temp file left" no_temp
}

skip_n() {
	for _ in $(seq "$1"); do skip_test "$2"; done
}

xattrs=
if command -v setfattr >/dev/null 2>&1 && command -v getfattr >/dev/null 2>&1 &&
	: > "$WORK/probe" && setfattr -n user.gpusort -v probe "$WORK/probe" 2>/dev/null; then
	xattrs=yes
fi
acls=
if command -v setfacl >/dev/null 2>&1 && command -v getfacl >/dev/null 2>&1 &&
	setfacl -m u:4244:r "$WORK/probe" 2>/dev/null; then
	acls=yes
fi
rm -f "$WORK/probe"

user_cases() {
	m=$1 d=$WORK/$m
	mkdir "$d"
	chmod 777 "$d"
	uid=${owner%%:*} gid=${owner##*:}

	old "$d/private" 600
	replaced "$m" "a 0600 file" "$d/private" "600 $owner 1" rename

	if [ -n "$member_gid" ]; then
		old "$d/shared" 640
		chgrp "$member_gid" "$d/shared"
		replaced "$m" "a 0640 file of a group we are in" "$d/shared" "640 $uid:$member_gid 1" \
			rename "${GROUP_RUN:-$RUN}"
	else
		skip_n 5 "$m: a 0640 file of a group we are in: the user is in no second group"
	fi

	old "$d/readonly" 444
	refused "$m" "a 0444 file of our own" "$d/readonly"

	old "$d/linked" 644
	ln "$d/linked" "$d/linked.2"
	replaced "$m" "a file with two hard links" "$d/linked" "644 $owner 2" copy
	check "$m: the other hard link sees the new content" sorted "$m" "$d/linked.2"

	old "$d/target" 600
	ln -s target "$d/symlink"
	expect_status 0 "$m: -o a symbolic link: sorts" $RUN "$GPUSORT" $(mode_args "$m") \
		"$WORK/$m.in" -o "$d/symlink"
	test -L "$d/symlink" && test "$(readlink "$d/symlink")" = target
	tap_result $? "$m: -o a symbolic link: the link stays"
	check "$m: -o a symbolic link: its target holds the sorted input" sorted "$m" "$d/target"
	check "$m: -o a symbolic link: the target keeps its mode" test "$(props "$d/target")" = "600 $owner 1"

	# -o naming an input, sorted in memory and (with -S 1M) from spilled runs, by rename
	# and by copy (a second link): the input is read whole before its file changes.
	for how in rename copy; do
		for memory in "" "-S 1M"; do
			rm -f "$d/self" "$d/self.2"
			cp "$WORK/$m.in" "$d/self"
			own "$d/self"
			chmod 600 "$d/self"
			[ $how = copy ] && ln "$d/self" "$d/self.2"
			what="-o naming the input (${memory:-in memory}, $how)"
			expect_status 0 "$m: $what: sorts" $RUN "$GPUSORT" $(mode_args "$m") $memory \
				"$d/self" -o "$d/self"
			check "$m: $what: the input is replaced by its sorted content" sorted "$m" "$d/self"
		done
	done
	rm -f "$d/self" "$d/self.2"

	# A writable file in a directory we may not write: the twin goes to $TMPDIR.
	r=$WORK/$m-readonly-dir
	mkdir "$r"
	old "$r/out" 644
	old "$r/readonly" 444
	if [ "$me" -eq 0 ]; then chmod 755 "$r"; else chmod 555 "$r"; fi
	replaced "$m" "a writable file in a read-only directory" "$r/out" "644 $owner 1" copy
	refused "$m" "a 0444 file in a read-only directory" "$r/readonly"
	refused "$m" "a new file in a read-only directory" "$r/new"

	# Failures after the sort started: the old file stays byte-identical, no temp file.
	for target in "$d/private:rename" "$d/linked:copy" "$r/out:copy"; do
		file=${target%:*} how=${target##*:}
		for fault in output_write:EIO temp_write:ENOSPC output_rename:EIO output_copy:EIO; do
			case $fault:$how in
			output_rename:*:copy|output_copy:*:rename) continue ;;
			esac
			chmod u+w "$(dirname "$file")" 2>/dev/null
			printf 'old output of %s\n' "$file" > "$file.old"
			cp "$file.old" "$file"
			[ "$r" = "$(dirname "$file")" ] && [ "$me" -ne 0 ] && chmod 555 "$r"
			GPUSORT_FAULT=$fault expect_status 2 "$m: $fault writing a file ($how): exit 2" \
				$RUN "$GPUSORT" $(mode_args "$m") -S 1M "$WORK/$m.in" -o "$file"
			case $fault in
			temp_write:*) stderr_has "No space left on device" "$m: $fault ($how): the reason is given" ;;
			*) stderr_has "gpusort: write failed: $file: Input/output error" "$m: $fault ($how): the file is named with the reason" ;;
			esac
			check "$m: $fault ($how): the old file is byte-identical" unchanged "$file"
			check "$m: $fault ($how): no temp file left" no_temp
		done
	done

	# SIGTERM mid-sort (the input pipe stays open a while, runs are spilled meanwhile):
	# killed by the signal, the old file byte-identical, no temp file.
	for file in "$d/linked" "$r/out"; do
		chmod u+w "$(dirname "$file")" 2>/dev/null
		printf 'old output of %s\n' "$file" > "$file.old"
		cp "$file.old" "$file"
		[ "$r" = "$(dirname "$file")" ] && [ "$me" -ne 0 ] && chmod 555 "$r"
		(cat "$WORK/$m.in"; sleep 3) 2>/dev/null |
			env --default-signal=TERM $RUN "$GPUSORT" $(mode_args "$m") -S 1M -o "$file" \
				2>/dev/null &
		pid=$!
		sleep 0.5
		kill -TERM $pid 2>/dev/null
		wait $pid
		killed=$?
		test $killed -gt 128
		tap_result $? "$m: SIGTERM mid-sort into ${file#"$WORK"/}: killed by the signal (status $killed)"
		check "$m: SIGTERM mid-sort: the old file is byte-identical" unchanged "$file"
		check "$m: SIGTERM mid-sort: no temp file left" no_temp
	done

	if [ -n "$xattrs" ]; then
		old "$d/xattr" 644
		setfattr -n user.gpusort -v kept "$d/xattr"
		replaced "$m" "a file with a user.* attribute" "$d/xattr" "644 $owner 1" rename
		check "$m: the user.* attribute is kept" \
			test "$(getfattr --absolute-names --only-values -n user.gpusort "$d/xattr" 2>/dev/null)" = kept
		# Write-only: the user may not read the attribute, so the twin could not take it.
		old "$d/writeonly" 644
		setfattr -n user.gpusort -v kept "$d/writeonly"
		chmod 220 "$d/writeonly"
		before=$(inode "$d/writeonly")
		expect_status 0 "$m: a write-only file with an attribute: sorts" $RUN "$GPUSORT" \
			$(mode_args "$m") "$WORK/$m.in" -o "$d/writeonly"
		check "$m: a write-only file: written in place, mode kept" \
			test "$(inode "$d/writeonly") $(props "$d/writeonly")" = "$before 220 $owner 1"
		chmod 620 "$d/writeonly"
		check "$m: a write-only file: holds the sorted input" sorted "$m" "$d/writeonly"
		check "$m: a write-only file: the attribute it could not copy is kept" \
			test "$(getfattr --absolute-names --only-values -n user.gpusort "$d/writeonly" 2>/dev/null)" = kept
	else
		skip_n 10 "$m: extended attributes: no setfattr/getfattr (package attr) or no user.* support here"
	fi
	if [ -n "$acls" ]; then
		old "$d/acl" 640
		setfacl -m u:4244:rw,g:4245:r "$d/acl"
		getfacl -n "$d/acl" 2>/dev/null | sed 1d > "$WORK/acl.before"
		replaced "$m" "a file with an ACL" "$d/acl" "660 $owner 1" rename
		getfacl -n "$d/acl" 2>/dev/null | sed 1d > "$WORK/acl.after"
		check "$m: the ACL is kept" cmp "$WORK/acl.before" "$WORK/acl.after"
	else
		skip_n 6 "$m: ACLs: no setfacl/getfacl (package acl) or no ACL support here"
	fi
	chmod u+w "$r"
}

# Cases that need a file of a second user: root makes it, nobody sorts.
second_user_cases() {
	m=$1 d=$WORK/$m
	old "$d/theirs" 444
	chown 0:0 "$d/theirs"
	refused "$m" "a 0444 file of another user" "$d/theirs"
	old "$d/theirs-writable" 666
	chown 0:0 "$d/theirs-writable"
	replaced "$m" "a writable file of another user" "$d/theirs-writable" "666 0:0 1" copy
	old "$d/foreign-group" 660
	chgrp "$foreign_gid" "$d/foreign-group"
	replaced "$m" "a file of a group we are not in" "$d/foreign-group" \
		"660 65534:$foreign_gid 1" copy
}

for m in text binary; do
	if [ -n "$unprivileged" ]; then
		user_cases "$m"
	else
		skip_test "$m: permission cases: $why"
	fi
	if [ -n "$second_user" ]; then
		second_user_cases "$m"
	else
		skip_test "$m: files of another user: not running as root with setpriv"
	fi
done
done_testing
