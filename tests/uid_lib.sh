# SPDX-License-Identifier: MIT
# A user of the test's own for limits that count a user's processes (RLIMIT_NPROC counts
# every process and thread of the real user id): a uid with no passwd entry and no
# process running as it, so that what else runs on the machine counts for nothing.
# Sourced after lib.sh by the tests of RLIMIT_NPROC; POSIX sh.
#
#   fresh_uid [BASE]     sets FRESH_UID to such a uid (tried from BASE, 54321 unless
#                        given, + PID % 1000 on: tests running at once take other
#                        bases), or returns 1
#   as_fresh_uid CMD...  runs CMD as that uid and gid, with no supplementary groups

fresh_uid() {
	FRESH_UID=
	candidate=$((${1:-54321} + $$ % 1000))
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		if ! getent passwd "$candidate" >/dev/null 2>&1 &&
			! ps -o pid= -u "$candidate" 2>/dev/null | grep -q .; then
			FRESH_UID=$candidate
			return 0
		fi
		candidate=$((candidate + 1000))
	done
	return 1
}

as_fresh_uid() { setpriv --reuid="$FRESH_UID" --regid="$FRESH_UID" --clear-groups "$@"; }
