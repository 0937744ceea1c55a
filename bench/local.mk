# bench/: benchmark scripts (never run by make check) and their results.
EXTRA_DIST += bench/demo.sh bench/RESULTS.md
