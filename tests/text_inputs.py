#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the generated inputs of the text differential tests into a directory:
random bytes, words, numbers in every -n/-g/-h form, months, versions, fields, huge
lines, a missing final newline. Deterministic (fixed seed) so failures reproduce."""
import os
import random
import sys

out = sys.argv[1]
rng = random.Random(20240501)


def write(name, lines, final_newline=True, eol=b"\n"):
    data = eol.join(lines)
    if lines and final_newline:
        data += eol
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


def pick(choices):
    return rng.choice(choices)


def word():
    letters = "abcXYZ" if rng.random() < 0.5 else "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"
    return "".join(pick(letters) for _ in range(rng.randint(0, 6)))


# Bytes of every value except the terminator, short lines so prefixes often tie.
write("bytes", [bytes(rng.choice([0, 1, 9, 32, 65, 97, 127, 128, 200, 255, rng.randint(0, 255)])
                      for _ in range(rng.randint(0, 12))).replace(b"\n", b"N")
                for _ in range(3000)])

# Words and punctuation with blanks, for -f -d -i -b and keys.
def word_line():
    parts = []
    for _ in range(rng.randint(0, 5)):
        w = word()
        if rng.random() < 0.2:
            w += pick(["-", ".", "!", "\x01", "\x7f", "\xe9", "_", "~"])
        parts.append(w)
    seps = [" ", "  ", "\t", " \t"]
    line = "".join(p + pick(seps) for p in parts).rstrip(" \t") if parts else ""
    if rng.random() < 0.2:
        line = pick([" ", "  ", "\t"]) + line
    return line.encode("latin-1")
write("words", [word_line() for _ in range(3000)])

# -n: signs, leading blanks and zeros, decimals, non-numbers, long numbers.
def number():
    kind = rng.random()
    if kind < 0.1:
        return pick(["", "-", ".", "-.", "+5", "abc", "-0", "0", "00", "-0.0", ".0", "0.", "1e3", " 7", "\t-3", "- 4", "--5", "1,000"])
    sign = pick(["", "", "-"])
    integer = pick(["", "0", "00", str(rng.randint(0, 9)), str(rng.randint(0, 1000)), str(rng.randint(0, 10**30))])
    frac = pick(["", "", "." + str(rng.randint(0, 999)).zfill(rng.randint(1, 4)), ".", ".50", ".000"])
    lead = pick(["", "", " ", "  ", "\t"])
    tail = pick(["", "", "x", " 5", "a"])
    return lead + sign + integer + frac + tail
write("numbers", [number().encode() for _ in range(3000)])

# -h: the same with SI suffixes. R and Q (coreutils 9.2+) are left to test_text_compare,
# as the oracle may be an older sort that does not know them.
def human():
    n = number() if rng.random() < 0.3 else pick(["", "-"]) + str(rng.randint(0, 2000)) + pick(["", ".5", ".25"])
    return (n + pick(["", "", "K", "k", "M", "G", "T", "P", "E", "Z", "Y", "m", "Ki", "KB", "x"])).encode()
write("human", [human() for _ in range(3000)])

# Byte 0x80 in numbers, which sort 9.1 skips among integer digits as a thousands
# separator (but not in -h's unit scan).
def with_0x80(n):
    for _ in range(rng.randint(1, 3)):
        at = rng.randint(0, len(n))
        n = n[:at] + b"\x80" + n[at:]
    return n
numbers_0x80 = [with_0x80(human()) for _ in range(2000)]
write("numbers80", numbers_0x80)
write("numbers80z", numbers_0x80, eol=b"\0")

# -g: floats, exponents, hex, inf, nan, junk.
def general():
    kind = rng.random()
    if kind < 0.25:
        return pick(["inf", "-inf", "+inf", "INF", "infinity", "0x1p3", "0x10", "-0x1.8p1",
                     "1e5000", "-1e5000", "1e-5000", "4.9e-324", "", "abc", " 3", "\t-2.5e1", "+7", "-0", "0", ".e1", "1e", "1e+", "0x", "--1"])
    return "%s%.*g%s" % (pick(["", " ", "-"]), rng.randint(1, 17), rng.uniform(-1e6, 1e6) * 10 ** rng.randint(-30, 30), pick(["", "", "x", "e"]))
# One NaN line: how GNU orders NaNs among themselves (sign, payload, even two equal
# NaNs under -u: it compares their padding bytes) changed between coreutils 9.1 and
# 9.4, so only the place of NaN among the numbers and the junk is compared here.
write("general", [general().encode() for _ in range(3000)] + [b"nan"])

# -M: months in any case, with blanks and junk.
months = ["jan", "FEB", "Mar", "apr", "MAY", "jun", "JUL", "aug", "Sep", "oct", "NOV", "dec"]
write("months", [(pick(["", " ", "\t"]) + pick(months + ["", "xyz", "ja", "j", "Janu", "decx", "0"]) + pick(["", " 1", "uary", " x"])).encode()
                 for _ in range(2000)])

# -V: versions and file names.
def version():
    if rng.random() < 0.15:
        return pick(["", ".", "..", ".hidden", ".a.b", "~", "a~", "a~b", "1.0~rc1", "1.0", "1.0.tar.gz", "a.tar", "a.b.c", "0", "00", "01", "1.01", "1.1"]).encode()
    parts = [str(rng.randint(0, 20)).zfill(rng.choice([1, 1, 2])) for _ in range(rng.randint(1, 4))]
    return (pick(["", "v", "lib", "pkg-"]) + ".".join(parts) + pick(["", "", "a", "~rc1", "-2", ".tar.gz", ".txt", "b3"])).encode()
write("versions", [version() for _ in range(2000)])
# Dot names, whose suffix (.a, .tar.gz) may be the whole name.
write("dotnames", [("." + "".join(pick(".aZ50~-") for _ in range(rng.randint(0, 6)))).encode()
                   for _ in range(1500)])

# Fields separated by tabs, colons and blanks; some fields missing, some lines empty.
def fields_line():
    count = rng.randint(0, 5)
    fs = [pick([word(), str(rng.randint(-50, 50)), pick(months), " " + word(), ""]) for _ in range(count)]
    return pick(["\t", ":", " "]).join(fs).encode()
write("fields", [fields_line() for _ in range(3000)])

# Many duplicates (for -u and -s): few distinct keys, distinct tails.
write("dups", [("%s %s%d" % (pick(["a", "A", "b", "B", " a", "10", "9", "010"]), pick(["x", "X", "y"]), rng.randint(0, 3))).encode()
               for _ in range(2000)])

# Huge lines among short ones.
write("huge", [(pick("abc") * rng.randint(1, 3)).encode() * (rng.choice([1, 1, 1, 30000, 100000])) for _ in range(40)])

# No final newline; an empty file; a file of one empty line; an empty first line (the
# line -c and -u keep a copy of is then empty).
write("nonl", [word_line() for _ in range(50)], final_newline=False)
write("empty", [])
write("oneempty", [b""])
write("emptyfirst", [b"", b"b"])

# NUL-terminated records that contain newlines.
write("zero", [word_line().replace(b" ", b"\n") for _ in range(2000)], eol=b"\0")
write("zeronl", [b"b\nx", b"a", b"c"], final_newline=False, eol=b"\0")

# Lines with NUL bytes inside, for -t '\0' and byte comparisons.
write("nulfields", [b"\0".join(word().encode() for _ in range(rng.randint(0, 3))) for _ in range(2000)])

# Tie runs longer than one thread's share (LARGE_RUN_LINES, 65536): shared 8-byte
# prefixes told apart in later bytes, with a field after them and repeats; in
# "longties" each run holds under half the lines, in "onetie" one run holds them all.
def long_tie_line(heads):
    head = pick(heads) + "".join(pick("ab") for _ in range(rng.randint(0, 9)))
    return ("%s%d,%s%d" % (head, rng.randint(0, 50), pick(["key0000", "key0001"]), rng.randint(0, 20))).encode()
write("longties", [long_tie_line(["prefix00"] * 9 + ["Zeta_Run"] * 8 + ["Mid_Tie_"] * 3) for _ in range(200000)])
write("onetie", [long_tie_line(["prefix00"]) for _ in range(80000)])
