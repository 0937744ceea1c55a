# SPDX-License-Identifier: MIT
# Memory cgroups for the test and the bench that run gpusort with less memory than its
# input: a child cgroup whose hard limit counts the page cache as well as the process's
# own memory (cgroup v2's memory.max; v1's memory.limit_in_bytes where the memory
# controller sits on a v1 hierarchy, as in many containers), a command run inside it,
# and what the kernel recorded there. Sourced by tests/test_memory_cgroup.sh and
# bench/cgroup_bench.sh; POSIX sh.
#
#   cgroup_create NAME BYTES  0 and CGROUP (its directory), CGROUP_VERSION (1 or 2); or 1
#                             and CGROUP_SKIP saying why no such cgroup can be made here
#   cgroup_exec COMMAND...    runs COMMAND inside it (a shell joins it, then execs)
#   cgroup_oom_kills          processes the kernel's OOM killer ended in it
#   cgroup_peak_bytes         its memory high-water mark (empty where the kernel keeps none)
#   cgroup_file_bytes         page cache charged to it now
#   cgroup_remove             removes it (once nothing runs in it)

# The first line of a failed write's stderr, for a skip reason.
cgroup_why() { sed -n '1s/^.*: //p' "$1" 2>/dev/null; }

# cgroup_make VERSION DIR FILE LIMIT: makes the cgroup DIR and writes LIMIT into its
# FILE; sets CGROUP and CGROUP_VERSION, or CGROUP_SKIP (and returns 1) saying what failed.
cgroup_make() {
	if ! mkdir "$2" 2>"$cgroup_errors"; then
		CGROUP_SKIP="cgroup v$1: cannot make $2 ($(cgroup_why "$cgroup_errors"))"
		return 1
	fi
	if ! echo "$4" 2>"$cgroup_errors" > "$2/$3"; then
		CGROUP_SKIP="cgroup v$1: cannot set $3 ($(cgroup_why "$cgroup_errors"))"
		rmdir "$2"
		return 1
	fi
	CGROUP=$2 CGROUP_VERSION=$1
}

cgroup_create() {
	CGROUP= CGROUP_VERSION= CGROUP_SKIP=
	if [ "$(id -u)" -ne 0 ]; then
		CGROUP_SKIP="not root: making a memory cgroup needs root"
		return 1
	fi
	cgroup_errors=$(mktemp)
	v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	v1=$(awk '$3 == "cgroup" && ("," $4 ",") ~ /,memory,/ { print $2; exit }' /proc/mounts)
	if [ -n "$v2" ] && grep -qw memory "$v2/cgroup.controllers" 2>/dev/null; then
		# A child of the hierarchy's root: only the root may hold processes and still
		# hand the memory controller to its children.
		if ! grep -qw memory "$v2/cgroup.subtree_control" &&
			! echo +memory 2>"$cgroup_errors" > "$v2/cgroup.subtree_control"; then
			CGROUP_SKIP="cgroup v2 at $v2: the memory controller cannot be enabled for children ($(cgroup_why "$cgroup_errors"))"
		elif cgroup_make 2 "$v2/$1.$$" memory.max "$2"; then
			# No swap either: what does not fit must be written back or reclaimed.
			[ -f "$CGROUP/memory.swap.max" ] && echo 0 > "$CGROUP/memory.swap.max" 2>/dev/null
		fi
	elif [ -n "$v1" ]; then
		# Under the cgroup this shell is in, where a container's own limit also applies.
		own=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3; exit }' /proc/self/cgroup)
		parent=$v1$own
		[ -d "$parent" ] || parent=$v1
		if cgroup_make 1 "$parent/$1.$$" memory.limit_in_bytes "$2" &&
			[ -f "$CGROUP/memory.memsw.limit_in_bytes" ]; then
			echo "$2" > "$CGROUP/memory.memsw.limit_in_bytes" 2>/dev/null
		fi
	else
		CGROUP_SKIP="no cgroup hierarchy here has the memory controller"
	fi
	rm -f "$cgroup_errors"
	[ -n "$CGROUP" ]
}

cgroup_exec() {
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CGROUP" "$@"
}

cgroup_oom_kills() {
	if [ "$CGROUP_VERSION" = 2 ]; then
		awk '$1 == "oom_kill" { print $2 }' "$CGROUP/memory.events"
	else
		awk '$1 == "oom_kill" { print $2 }' "$CGROUP/memory.oom_control"
	fi
}

cgroup_peak_bytes() {
	if [ "$CGROUP_VERSION" = 2 ]; then
		cat "$CGROUP/memory.peak" 2>/dev/null
	else
		cat "$CGROUP/memory.max_usage_in_bytes"
	fi
}

cgroup_file_bytes() {
	if [ "$CGROUP_VERSION" = 2 ]; then
		awk '$1 == "file" { print $2 }' "$CGROUP/memory.stat"
	else
		awk '$1 == "cache" { print $2 }' "$CGROUP/memory.stat"
	fi
}

# A process that just exited may still be leaving the cgroup for a moment.
cgroup_remove() {
	[ -n "$CGROUP" ] || return 0
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		rmdir "$CGROUP" 2>/dev/null && break
		sleep 0.2
	done
	CGROUP=
}
