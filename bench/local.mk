# bench/: benchmark scripts (never run by make check) and their results.
EXTRA_DIST += bench/demo.sh bench/RESULTS.md
EXTRA_DIST += bench/text_bench.sh
EXTRA_DIST += bench/cpu_vs_numpy.sh bench/numpy_sort.py
EXTRA_DIST += bench/e2e_bench.sh
EXTRA_DIST += bench/device_check.sh
EXTRA_DIST += bench/external_bench.sh
