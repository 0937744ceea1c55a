# SPDX-License-Identifier: MIT
# bench/: benchmark scripts and programs (never run by make check) and their results.
EXTRA_DIST += bench/RESULTS.md bench/demo.sh bench/device_check.sh bench/verify_bench.sh bench/compare_builds.sh \
	bench/cpu_vs_numpy.sh bench/numpy_sort.py \
	bench/external_bench.sh bench/gensort_records.c bench/cpu_sample.c bench/records_spill_bench.sh \
	bench/text_bench.sh bench/locale_bench.sh bench/random_bench.sh bench/small_bench.sh \
	bench/e2e_bench.sh bench/page_cache_writes.c \
	bench/gpu_kernels.cu bench/gpu_bench.sh \
	bench/seeds.cu bench/seeds.sh \
	bench/mpi_bench.sh bench/multi_gpu_bench.sh bench/multi_gpu_check.sh bench/distributed_lib.sh \
	bench/multi_gpu_floor.sh bench/cuda_start.cu bench/gpu_hold.cu bench/host_register_probe.cu bench/cgroup_bench.sh \
	bench/output_forms_check.sh bench/output_write_bench.sh bench/pipe_bench.sh bench/cancel_latency.c \
	bench/csv_bench.sh bench/duckdb_csv_bench.py
