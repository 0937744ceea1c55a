#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds tests/client/client.c and threads.c against an INSTALLED libgpusort, found only through
# pkg-config, linked shared and (where libgpusort.a is installed) static, and runs it.
# TAP output; exit status 0 when all passed.
#
#   PKG_CONFIG_PATH=PREFIX/lib/pkgconfig tests/client/run_client.sh
#   PKG_CONFIG_PATH=ROOT/usr/lib/x86_64-linux-gnu/pkgconfig PKG_CONFIG_SYSROOT_DIR=ROOT \
#       tests/client/run_client.sh        # a tree unpacked from the .debs
#
# make installcheck (and so make distcheck) runs it on the installed tree. CC picks
# the compiler (default cc).
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${CC:=cc}"
: "${PKG_CONFIG:=pkg-config}"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-client.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
count=0 failed=0

result() {
	count=$((count + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $count - $2"
	else
		echo "not ok $count - $2"
		failed=1
	fi
}

# Runs a command; on failure its output becomes TAP comments.
step() {
	desc=$1
	shift
	"$@" >"$scratch/step.out" 2>&1
	status=$?
	result $status "$desc"
	[ $status -eq 0 ] || sed 's/^/# /' "$scratch/step.out" | head -40
	return $status
}

if ! $PKG_CONFIG --exists gpusort; then
	echo "not ok 1 - pkg-config finds gpusort.pc (PKG_CONFIG_PATH=${PKG_CONFIG_PATH:-})"
	echo "1..1"
	exit 1
fi
cflags=$($PKG_CONFIG --cflags gpusort)
libs=$($PKG_CONFIG --libs gpusort)
# A variable under a sysroot: pkgconf puts the sysroot before some and not others.
variable() {
	value=$($PKG_CONFIG --variable="$1" gpusort)
	case $value in
	"${PKG_CONFIG_SYSROOT_DIR:-}"/*) echo "$value" ;;
	*) echo "${PKG_CONFIG_SYSROOT_DIR:-}$value" ;;
	esac
}
libdir=$(variable libdir)
includedir=$(variable includedir)
echo "# gpusort $($PKG_CONFIG --modversion gpusort): cflags '$cflags', libs '$libs'"

result "$(test -f "$includedir/gpusort.h"; echo $?)" "the header is installed in $includedir"
# The client must not see gpusort's source tree: only what the flags name.
if step "the client compiles and links against the installed libgpusort.so" \
	$CC -std=c99 -Wall -Wextra -Werror $cflags "$here/client.c" -o "$scratch/client" $libs -lm; then
	step "it needs the library by its SONAME, libgpusort.so.1" \
		sh -c "readelf -d '$scratch/client' | grep -q 'NEEDED.*\[libgpusort\.so\.1\]'"
	mkdir "$scratch/shared"
	LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$scratch/client" "$scratch/shared" \
		>"$scratch/client.tap" 2>&1
	status=$?
	sed 's/^/# shared: /' "$scratch/client.tap"
	result $status "the client's checks pass with the shared library"
	step "it ran with the installed library" sh -c \
		"LD_LIBRARY_PATH='$libdir' ldd '$scratch/client' | grep -q '$libdir/libgpusort.so.1'"
fi

# Jobs on 8 threads at once, and jobs cancelled from another thread.
if step "threads.c compiles and links against the installed libgpusort.so" \
	$CC -std=c99 -Wall -Wextra -Werror -pthread $cflags "$here/threads.c" -o "$scratch/threads" $libs; then
	mkdir "$scratch/threads.dir"
	LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$scratch/threads" "$scratch/threads.dir" \
		>"$scratch/threads.tap" 2>&1
	status=$?
	sed 's/^/# threads: /' "$scratch/threads.tap"
	result $status "the threads client's checks pass"
fi

if [ -f "$libdir/libgpusort.a" ]; then
	# The static archive with what Requires.private and Libs.private say it needs.
	static_libs=$($PKG_CONFIG --static --libs gpusort | sed 's/-lgpusort\b/-l:libgpusort.a/')
	if step "the client links libgpusort.a with pkg-config --static --libs" \
		$CC -std=c99 $cflags "$here/client.c" -o "$scratch/client-static" $static_libs -lm; then
		step "it does not need libgpusort.so" sh -c \
			"! readelf -d '$scratch/client-static' | grep -q 'libgpusort'"
		mkdir "$scratch/static"
		"$scratch/client-static" "$scratch/static" >"$scratch/client.tap" 2>&1
		status=$?
		sed 's/^/# static: /' "$scratch/client.tap"
		result $status "the client's checks pass with the static library"
	fi
else
	echo "ok $((count += 1)) # SKIP no libgpusort.a installed"
fi

echo "1..$count"
exit $failed
