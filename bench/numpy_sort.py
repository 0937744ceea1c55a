#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""numpy's sort of a file of little-endian u64 keys, timed the way gpusort is used:
prints 'sort SECONDS total SECONDS' (the sort alone; read + sort + write)."""
import sys
import time

import numpy as np


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: numpy_sort.py INPUT OUTPUT")
    start = time.perf_counter()
    keys = np.fromfile(sys.argv[1], dtype="<u8")
    sort_start = time.perf_counter()
    keys = np.sort(keys)
    sort_end = time.perf_counter()
    keys.tofile(sys.argv[2])
    end = time.perf_counter()
    print(f"sort {sort_end - sort_start:.3f} total {end - start:.3f}")


if __name__ == "__main__":
    main()
