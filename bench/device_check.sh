#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs the TAP tests from a build directory without make (the GPU machine has no
# liburing headers to rebuild with, so the build made here travels and runs as it is),
# then compute-sanitizer on the GPU tests at small sizes. Ends with "N passed, N failed".
# usage: bench/device_check.sh BUILD_DIR [TEST...]
set -u
build=$(cd "${1:?usage: device_check.sh BUILD_DIR [TEST...]}" && pwd)
shift
src=$(cd "$(dirname "$0")/.." && pwd)
export GPUSORT="$build/gpusort" TESTS_SRCDIR="$src/tests" TESTS_BUILDDIR="$build/tests" LC_ALL=C
# the CUDA backend's module, for the tests that open the engine without the command
[ -e "$build/.libs/gpusort-cuda.so" ] && export GPUSORT_CUDA_MODULE="$build/.libs/gpusort-cuda.so"
# a build with the distributed sort: test_mpi.sh (and the sweep's ranks) run it
if [ -e "$build/.libs/gpusort-mpi.so" ]; then
	export GPUSORT_MPI=yes GPUSORT_MPI_MODULE="$build/.libs/gpusort-mpi.so"
fi
tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then
	for t in "$build"/tests/test_*; do [ -x "$t" ] && [ -f "$t" ] && tests+=("$t"); done
	for t in "$src"/tests/test_*.sh; do tests+=("$t"); done
fi
passed=0 failed=0 skipped=0
for t in "${tests[@]}"; do
	case $t in *.sh) out=$(bash "$t" 2>/dev/null) ;; *) out=$("$t" 2>/dev/null) ;; esac
	p=$(grep -c '^ok' <<<"$out"); s=$(grep -c '^ok.*# SKIP' <<<"$out"); f=$(grep -c '^not ok' <<<"$out")
	if grep -q '^1\.\.0 # SKIP' <<<"$out"; then s=$((s + 1)); fi
	printf '%-40s %5d ok %4d not ok %4d skip\n' "$(basename "$t")" "$p" "$f" "$s"
	grep '^not ok' <<<"$out" | head -5 | sed 's/^/    /'
	passed=$((passed + p - s)); failed=$((failed + f)); skipped=$((skipped + s))
done
if [ -z "${NO_SANITIZER:-}" ] && command -v compute-sanitizer >/dev/null; then
	for tool in memcheck racecheck; do
		for t in "$build"/tests/test_gpu_steps "$build"/tests/test_gpu_sort "$build"/tests/test_gpu_algorithms; do
			[ -x "$t" ] || continue
			GPUSORT_TEST_SMALL=1 compute-sanitizer --tool $tool --error-exitcode 9 "$t" >/tmp/san.log 2>&1
			rc=$?
			printf 'compute-sanitizer %-9s %-22s exit %d: %s\n' "$tool" "$(basename "$t")" $rc \
				"$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san.log | tail -1)"
			[ $rc -eq 0 ] && passed=$((passed + 1)) || failed=$((failed + 1))
		done
	done
fi
echo "$passed passed, $failed failed, $skipped skipped"
