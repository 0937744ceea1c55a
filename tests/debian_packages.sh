#!/bin/sh
# SPDX-License-Identifier: MIT
# The Debian packages, end to end: builds gpusort, gpusort-mpi, libgpusort1 and libgpusort-dev with
# dpkg-buildpackage -us -uc -b from this checkout, in a scratch directory (its tracked
# files, with uncommitted changes to them: git stash create; untracked files are left
# out), runs lintian on them (errors fail, warnings are listed), unpacks the .debs with
# dpkg-deb -x into a scratch root, runs the packaged gpusort there, and builds and runs
# tests/client against the packaged header, pkg-config file and libraries. The scratch
# directory is removed at the end in every case; OUT_DIR gets copies of the .debs and
# the logs.
#
#   tests/debian_packages.sh [OUT_DIR]     # OUT_DIR keeps the .debs and the logs
#
# Not part of make check: it takes minutes (about 2.5 on 2 cores, most of it the test
# suite, which the package build runs as Debian's builders do; DEB_BUILD_OPTIONS=nocheck
# skips it). Needs git, dpkg-dev, debhelper, lintian and the Build-Depends of
# debian/control (as root on Debian 12: apt-get install dpkg-dev debhelper lintian
# libtool pkg-config libzstd-dev liburing-dev libopenmpi-dev openmpi-bin python3). TAP
# output.
set -u
srcdir=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-deb.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
count=0 failed=0

result() {
	count=$((count + 1))
	if [ "$1" -eq 0 ]; then echo "ok $count - $2"; else echo "not ok $count - $2"; failed=1; fi
}
finish() {
	echo "1..$count"
	[ -z "$out" ] || { mkdir -p "$out" && cp "$scratch"/*.deb "$scratch"/*.log "$out"/ 2>/dev/null; echo "# kept in $out"; }
	exit $failed
}

for tool in git dpkg-buildpackage dpkg-deb lintian; do
	command -v $tool >/dev/null 2>&1 || { echo "1..0 # SKIP $tool is not installed"; exit 0; }
done
version=$(cd "$srcdir" && dpkg-parsechangelog -S Version)
tree=$(git -C "$srcdir" stash create 2>/dev/null)
git -C "$srcdir" archive --prefix="gpusort-$version/" "${tree:-HEAD}" | tar -x -C "$scratch"
result $? "the source of $version ($(git -C "$srcdir" rev-parse --short "${tree:-HEAD}")) in $scratch"

cd "$scratch/gpusort-$version" || finish
if ! dpkg-checkbuilddeps >"$scratch/builddeps.log" 2>&1; then
	result 1 "the Build-Depends are installed"
	sed 's/^/# /' "$scratch/builddeps.log"
	finish
fi
DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS-"parallel=$(nproc)"} \
	dpkg-buildpackage -us -uc -b >"$scratch/build.log" 2>&1
status=$?
result $status "dpkg-buildpackage -us -uc -b (DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS-parallel=$(nproc)})"
[ $status -eq 0 ] || { tail -40 "$scratch/build.log" | sed 's/^/# /'; finish; }
cd "$scratch" || finish
for package in gpusort gpusort-mpi libgpusort1 libgpusort-dev; do
	deb=$(ls "${package}_${version}_"*.deb 2>/dev/null)
	result "$(test -n "$deb"; echo $?)" "built $package: $deb"
done

! grep -q 'dpkg-gensymbols: warning' build.log
result $? "debian/libgpusort1.symbols lists every exported symbol (dpkg-gensymbols warns of none)"
grep 'dpkg-gensymbols: warning' -A12 build.log | sed 's/^/# /'
depends=$(dpkg-deb -f gpusort_"$version"_*.deb Depends)
case $depends in *mpi*) false ;; *) true ;; esac
result $? "the gpusort package needs no MPI library (Depends: $depends)"
dpkg-deb -c gpusort-mpi_"$version"_*.deb | grep -q 'gpusort/gpusort-mpi\.so$'
result $? "the MPI module is in gpusort-mpi"

changes=$(ls gpusort_"$version"_*.changes)
lintian --info "$changes" >lintian.log 2>&1
errors=$(grep -c '^E: ' lintian.log)
result "$errors" "lintian reports no errors ($(grep -c '^W: ' lintian.log) warnings, $(grep -c '^I: ' lintian.log) notes)"
grep '^[EW]: ' lintian.log | sed 's/^/# /'

mkdir root
for deb in *.deb; do
	dpkg-deb -x "$deb" root || result 1 "dpkg-deb -x $deb"
done
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
for file in usr/bin/gpusort usr/share/man/man1/gpusort.1.gz usr/include/gpusort.h \
	"usr/lib/$multiarch/libgpusort.so.1" "usr/lib/$multiarch/libgpusort.so" \
	"usr/lib/$multiarch/libgpusort.a" "usr/lib/$multiarch/pkgconfig/gpusort.pc" \
	usr/share/man/man3/gpusort.3.gz usr/share/man/man3/gpusort_run.3.gz \
	usr/share/bash-completion/completions/gpusort "usr/lib/$multiarch/gpusort/gpusort-mpi.so" \
	usr/share/man/man3/gpusort_sort_records.3.gz; do
	result "$(test -e "root/$file"; echo $?)" "unpacked: /$file"
done
result "$(dpkg-deb -c libgpusort1_"$version"_*.deb | grep -q 'libgpusort\.la'; test $? -ne 0; echo $?)" \
	"no libtool archive (.la) in the packages"

printf '10\n9\n-1\n2.5\n' >numbers
root/usr/bin/gpusort -n numbers >sorted 2>&1
result "$(printf -- '-1\n2.5\n9\n10\n' | cmp -s - sorted; echo $?)" "the packaged gpusort sorts"
root/usr/bin/gpusort --version | sed -n 1p | grep -q "gpusort (gpusort) $version"
result $? "the packaged gpusort is version $version"

PKG_CONFIG_PATH="$scratch/root/usr/lib/$multiarch/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$scratch/root" \
	sh "$srcdir/tests/client/run_client.sh" >client.log 2>&1
status=$?
sed 's/^/# client: /' client.log
result $status "tests/client builds and passes against the unpacked libgpusort-dev and libgpusort1"
finish
