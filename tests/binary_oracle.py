#!/usr/bin/env python3
"""The test oracle for binary sorts: a plain, stable Python sort of fixed-size records
by a little-endian key (floats: -0.0 == +0.0, NaN after every number), with -r and -u.
usage: binary_oracle.py --type=T [--record-size=R] [--key-offset=O] [--key-size=K] [-r] [-u] IN OUT"""
import argparse
import math
import struct

FORMATS = {"u32": "<I", "i32": "<i", "u64": "<Q", "i64": "<q", "f32": "<f", "f64": "<d"}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--type", default=None)
    p.add_argument("--record-size", type=int, default=0)
    p.add_argument("--key-offset", type=int, default=0)
    p.add_argument("--key-size", type=int, default=0)
    p.add_argument("-r", action="store_true")
    p.add_argument("-u", action="store_true")
    p.add_argument("input")
    p.add_argument("output")
    a = p.parse_args()
    if a.type is None:  # as gpusort: --key-size alone means bytes keys
        a.type = "bytes" if a.key_size else "u32"
    size = a.key_size or (struct.calcsize(FORMATS[a.type]) if a.type in FORMATS else 8)
    rec = a.record_size or a.key_offset + size
    data = open(a.input, "rb").read()
    records = [data[i:i + rec] for i in range(0, len(data), rec)]

    def key(r):
        raw = r[a.key_offset:a.key_offset + size]
        if a.type == "bytes":
            return (0, raw)
        v = struct.unpack(FORMATS[a.type], raw)[0]
        if isinstance(v, float):
            if math.isnan(v):
                return (1, 0.0)
            return (0, v + 0.0)  # -0.0 + 0.0 == 0.0
        return (0, v)

    ordered = sorted(records, key=key, reverse=a.r)
    if a.u:
        kept, last = [], None
        for r in ordered:
            k = key(r)
            if last is None or k != last:
                kept.append(r)
            last = k
        ordered = kept
    with open(a.output, "wb") as f:
        f.write(b"".join(ordered))


if __name__ == "__main__":
    main()
