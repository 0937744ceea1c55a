# SPDX-License-Identifier: MIT
"""gpusort --csv beside DuckDB on CSV with quoted fields, file to file.

    python3 bench/duckdb_csv_bench.py GPUSORT LIBDUCKDB_SO RECORDS DIR [THREADS [tsv]]

Generates RECORDS records `id,"name, first",amount,note,"address"` (about 100
bytes; the name, the address and some notes quoted, with "" and newlines inside) under DIR, then sorts them by the name
(text) and by the amount (numeric): gpusort --csv --header -k2,2 / -k3,3n, and
DuckDB's COPY (SELECT * FROM read_csv(...) ORDER BY ...) TO ... with THREADS threads
(default: the cores), through its C library (libduckdb.so, as the npm package
@duckdb/node-bindings-linux-x64 ships it) by ctypes. Prints the best of three wall
times of each. gpusort runs in the C locale, as DuckDB's ORDER BY compares strings byte
by byte (in the environment's locale gpusort would collate: another order, and the
locale's cost). DuckDB re-quotes what it writes and its ORDER BY is not stable, so the
outputs are compared as the sequence of their sort keys, read back with Python's csv
module. With `tsv`, the file is RECORDS lines `16 letters<TAB>number` instead, no header,
sorted by the letters (-t TAB -k1,1) and by the number (-t TAB -k2,2n). Nothing here is
needed to build or test gpusort.
"""
import csv
import ctypes
import os
import random
import subprocess
import sys
import time


def generate(path, count):
    rng = random.Random(11)
    names = ["Smith", "Jones", "Ng", "Garcia", "Okafor", "Muller", "Rossi", "Kim", "Dubois", "Ivanova"]
    notes = ['"said ""hi"", then left"', '"two\nlines"', "plain", '"a, b, c"', ""]
    with open(path, "w", newline="") as f:
        f.write("id,name,amount,note,address\n")
        for _ in range(count):
            f.write('%d,"%s%d, %s",%d.%02d,%s,"%d %s Street, apt %d, ""%s"""\n'
                    % (rng.randrange(10**9), rng.choice(names), rng.randrange(10**6), rng.choice(names),
                       rng.randrange(10**6), rng.randrange(100), rng.choice(notes), rng.randrange(10**4),
                       rng.choice(names), rng.randrange(999), rng.choice(names)))


class DuckDB:
    def __init__(self, library, threads):
        self.lib = ctypes.CDLL(library)
        self.lib.duckdb_result_error.restype = ctypes.c_char_p
        self.db, self.con = ctypes.c_void_p(), ctypes.c_void_p()
        if self.lib.duckdb_open(None, ctypes.byref(self.db)) or \
                self.lib.duckdb_connect(self.db, ctypes.byref(self.con)):
            raise SystemExit("duckdb: cannot open an in-memory database")
        self.query("SET threads = %d" % threads)

    def query(self, sql):
        result = ctypes.create_string_buffer(512)  # duckdb_result, larger than it is
        state = self.lib.duckdb_query(self.con, sql.encode(), result)
        error = self.lib.duckdb_result_error(result) if state else None
        self.lib.duckdb_destroy_result(result)
        if state:
            raise SystemExit("duckdb: %s" % (error or b"error").decode())


def best(run):
    times = []
    for _ in range(3):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def keys(path, column, numeric):
    with open(path, newline="") as f:
        rows = csv.reader(f)
        next(rows)
        return [float(r[column]) if numeric else r[column] for r in rows]


def generate_tsv(path, count):
    rng = random.Random(13)
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    with open(path, "w") as f:
        for start in range(0, count, 100000):
            f.write("".join("%s\t%d\n" % ("".join(rng.choices(letters, k=16)), rng.randrange(10**9))
                            for _ in range(min(100000, count - start))))


def tsv_keys(path, column, numeric):
    with open(path) as f:
        values = [line.rstrip("\n").split("\t")[column] for line in f]
    return [int(v) for v in values] if numeric else values


def main_tsv(gpusort, library, count, work, threads):
    source = os.path.join(work, "lines.tsv")
    generate_tsv(source, count)
    print("# %d TSV lines, %.0f MB, %d threads" % (count, os.path.getsize(source) / 1e6, threads))
    duck = DuckDB(library, threads)
    for name, column, key in (("letters", 0, "-k1,1"), ("number", 1, "-k2,2n")):
        ours, theirs = os.path.join(work, "gpusort.tsv"), os.path.join(work, "duckdb.tsv")
        g = best(lambda: subprocess.run([gpusort, "-t", "\t", key, source, "-o", ours], check=True,
                                        env=dict(os.environ, LC_ALL="C")))
        sql = ("COPY (SELECT * FROM read_csv('%s', header = false, delim = '\t', quote = '', "
               "columns = {'letters': 'VARCHAR', 'number': 'BIGINT'}) ORDER BY %s) TO '%s' "
               "(HEADER false, DELIMITER '\t', QUOTE '')" % (source, name, theirs))
        d = best(lambda: duck.query(sql))
        same = tsv_keys(ours, column, column == 1) == tsv_keys(theirs, column, column == 1)
        print("by %-7s gpusort -t TAB %s %.3f s  DuckDB %.3f s  (%.2fx)  sort keys identical: %s"
              % (name, key, g, d, d / g, "yes" if same else "NO"))


def main():
    gpusort, library, count, work = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    threads = int(sys.argv[5]) if len(sys.argv) > 5 else os.cpu_count()
    if len(sys.argv) > 6 and sys.argv[6] == "tsv":
        return main_tsv(gpusort, library, count, work, threads)
    source = os.path.join(work, "quoted.csv")
    generate(source, count)
    print("# %d records, %.0f MB, %d threads" % (count, os.path.getsize(source) / 1e6, threads))
    duck = DuckDB(library, threads)
    for name, column, key, order in (("name", 1, "-k2,2", "name"), ("amount", 2, "-k3,3n", "amount")):
        ours, theirs = os.path.join(work, "gpusort.csv"), os.path.join(work, "duckdb.csv")
        g = best(lambda: subprocess.run([gpusort, "--csv", "--header", key, source, "-o", ours], check=True,
                                        env=dict(os.environ, LC_ALL="C")))
        sql = ("COPY (SELECT * FROM read_csv('%s', header = true, quote = '\"', escape = '\"') ORDER BY %s) "
               "TO '%s' (HEADER, DELIMITER ',')" % (source, order, theirs))
        d = best(lambda: duck.query(sql))
        same = keys(ours, column, column == 2) == keys(theirs, column, column == 2)
        print("by %-6s gpusort --csv %s %.3f s  DuckDB %.3f s  (%.2fx)  sort keys identical: %s"
              % (name, key, g, d, d / g, "yes" if same else "NO"))


main()
