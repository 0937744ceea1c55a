#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The test oracle for binary sorts: a plain, stable Python sort of fixed-size records
by a little-endian key (floats: -0.0 == +0.0, NaN after every number), with -r and -u;
or by a composite key, --key-field=TYPE:OFFSET[:SIZE][:asc|:desc] repeated, compared as a
tuple of the fields' values (a descending field's negated), -r flipping every field.
usage: binary_oracle.py --type=T [--record-size=R] [--key-offset=O] [--key-size=K] [-r] [-u] IN OUT
       binary_oracle.py --record-size=R --key-field=F [--key-field=F]... [-r] [-u] IN OUT
       binary_oracle.py --batch=LIST: each line of LIST is the arguments of one sort as
       above (split as the shell would), so that a test starts one Python for them all;
       sorts that differ only in -u share one sorted list."""
import argparse
import math
import shlex
import struct
import sys

FORMATS = {"u32": "<I", "i32": "<i", "u64": "<Q", "i64": "<q", "f32": "<f", "f64": "<d"}


def field_value(ftype, raw, descending):
    """A field's value as Python orders it, in the field's direction."""
    if ftype == "bytes":
        return bytes(255 - b for b in raw) if descending else raw
    v = struct.unpack(FORMATS[ftype], raw)[0]
    sign = -1 if descending else 1
    if isinstance(v, float):
        if math.isnan(v):
            return (sign, 0.0)  # NaN after every number, first when descending
        return (0, sign * (v + 0.0))  # -0.0 + 0.0 == 0.0
    return sign * v


def composite_key(specs, reverse):
    """The key function of --key-field specs (with -r: every direction flipped)."""
    fields = []
    for spec in specs:
        parts = spec.split(":")
        ftype, offset = parts[0], int(parts[1])
        rest = parts[2:]
        size = int(rest.pop(0)) if rest and rest[0].isdigit() else 0
        descending = bool(rest) and rest[0] == "desc"
        if ftype != "bytes":
            size = struct.calcsize(FORMATS[ftype])
        fields.append((ftype, offset, size, descending != reverse))
    return lambda r: tuple(field_value(t, r[o:o + (s or len(r) - o)], d) for t, o, s, d in fields)


def parser():
    p = argparse.ArgumentParser()
    p.add_argument("--type", default=None)
    p.add_argument("--record-size", type=int, default=0)
    p.add_argument("--key-offset", type=int, default=0)
    p.add_argument("--key-size", type=int, default=0)
    p.add_argument("--key-field", action="append", default=[])
    p.add_argument("-r", action="store_true")
    p.add_argument("-u", action="store_true")
    p.add_argument("input")
    p.add_argument("output")
    return p


def sort_records(a, cache):
    """The records of a.input sorted as a says (without -u), and the key function;
    cache maps the options but -u and the output to an earlier answer."""
    ident = (a.type, a.record_size, a.key_offset, a.key_size, tuple(a.key_field), a.r, a.input)
    if ident in cache:
        return cache[ident]
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

    if a.key_field:
        key = composite_key(a.key_field, a.r)
        ordered = sorted(records, key=key)
    else:
        ordered = sorted(records, key=key, reverse=a.r)
    if any(other[-1] != a.input for other in cache):
        cache.clear()  # one input's lists at a time: a batch lists an input's sorts together
    cache[ident] = (ordered, key)
    return ordered, key


def write_sorted(a, cache):
    ordered, key = sort_records(a, cache)
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


def main():
    if len(sys.argv) == 2 and sys.argv[1].startswith("--batch="):
        cache = {}
        with open(sys.argv[1][len("--batch="):]) as jobs:
            for line in jobs:
                if line.strip():
                    write_sorted(parser().parse_args(shlex.split(line)), cache)
    else:
        write_sorted(parser().parse_args(), {})


if __name__ == "__main__":
    main()
