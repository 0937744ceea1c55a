#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Differential fuzzing of text mode: random inputs and random GNU option sets, each run
by gpusort and by the system `LC_ALL=C sort`; stdout bytes and exit status must be
identical (and -c's disorder message, program name aside), and gpusort must leave no
temp file behind. Prints TAP, one line per case.

Environment: GPUSORT (the binary, required), GPUSORT_FUZZ_SEED (default 1),
GPUSORT_FUZZ_COUNT (random cases, default 500), GPUSORT_FUZZ_CASE (run only that case
of the seed), GPUSORT_FUZZ_KEEP (a directory that keeps each failing case's inputs),
GPUSORT_FUZZ_LOCALE (the LC_ALL both run in, default C; e.g. en_US.UTF-8 by hand).
Every case draws from its own generator seeded by (seed, case number), so a failure is
reproduced by its seed and number alone; the failing command line is printed too.

Left out on purpose, as their output differs between coreutils versions: -R, --debug,
NaNs under -g (their order among themselves changed after 9.1) and the R and Q
suffixes of -h (9.2 and later)."""
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile

GPUSORT = os.environ["GPUSORT"]
SEED = int(os.environ.get("GPUSORT_FUZZ_SEED", "1"))
COUNT = int(os.environ.get("GPUSORT_FUZZ_COUNT", "500"))
ONLY = os.environ.get("GPUSORT_FUZZ_CASE")
KEEP = os.environ.get("GPUSORT_FUZZ_KEEP")
ENV = dict(os.environ, LC_ALL=os.environ.get("GPUSORT_FUZZ_LOCALE", "C"))
ENV.pop("POSIXLY_CORRECT", None)

# Findings of this fuzzer and of the issues, run first in every seed: (options, input).
FIXED = [
    (["-u"], b"\n"),
    (["-u", "-S", "100b"], b"\n\n"),
    (["-c"], b"\nb\n"),
    (["-n"], b"\x801\n1\n"),
    (["-n"], b"1\x802\n13\n11\n"),
    (["-h"], b"1\x801K\n99\n"),
    (["-z", "-h"], b"1\x802\x0013\x0011\x00"),
    (["-k1bn,1"], b" \x801\n1\n"),
    (["-nf"], b"1\x802\n13\n"),
    (["-V"], b".a\n.5\n"),
    (["-V"], b".n\n.0\n"),
    (["-V"], b".ab\n.5\n"),
    (["-k1V,2"], b".0\n.T\n"),
]

MONTHS = ["jan", "FEB", "Mar", "apr", "MAY", "jun", "JUL", "aug", "Sep", "oct", "NOV", "dec",
          "janu", "ja", "xyz", "DECEMBER"]
SUFFIXES = ["", "", "", "K", "k", "M", "G", "T", "P", "E", "Z", "Y", "Ki", "B", "x", "e3"]


class Case:
    def __init__(self, rng):
        self.rng = rng

    def pick(self, seq):
        return self.rng.choice(seq)

    def chance(self, p):
        return self.rng.random() < p

    def number(self):
        r = self.rng
        sign = self.pick(["", "", "", "-", "+", "--"])
        digits = self.pick(["", "0", "00", str(r.randint(0, 9)), str(r.randint(0, 99999)),
                            str(r.randint(0, 10 ** 25)), "1,000", "12,34"])
        if self.chance(0.1):  # byte 0x80, a thousands separator to sort 9.1
            at = r.randint(0, len(digits))
            digits = digits[:at] + "\x80" + digits[at:]
        frac = self.pick(["", "", "", "." + str(r.randint(0, 9999)).zfill(r.randint(1, 5)), ".", ".50"])
        exponent = self.pick(["", "", "", "", "e" + str(r.randint(-400, 400)), "E+5", "e"])
        if self.chance(0.05):
            return self.pick(["inf", "-inf", "INFINITY", "0x1p3", "0x1A", "-0x.8p1", "0x", "1e5000", "-0"])
        return sign + digits + frac + exponent + self.pick(SUFFIXES)

    def version(self):
        r = self.rng
        if self.chance(0.2):
            return self.pick(["", ".", "..", ".hidden", ".a.b", ".5", ".a", "~", "a~", "1.0~rc1",
                              "1.0.tar.gz", "a.tar", "00", "01", "1.01", "1.1", ".tar.gz"])
        parts = [str(r.randint(0, 30)).zfill(self.pick([1, 1, 2])) for _ in range(r.randint(1, 4))]
        return (self.pick(["", "", "v", "lib", "pkg-", "."]) + ".".join(parts)
                + self.pick(["", "", "a", "~rc1", "-2", ".tar.gz", ".txt", "b3", "~"]))

    def word(self):
        r = self.rng
        letters = self.pick(["abcABC", "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
                             "aA0-._~", "xyz\x01\x7f\x80\xe9\xff"])
        return "".join(self.pick(letters) for _ in range(r.randint(0, 8)))

    def random_bytes(self):
        r = self.rng
        pool = [0, 1, 9, 10, 11, 12, 13, 32, 43, 45, 46, 48, 49, 65, 97, 126, 127, 128, 129, 200, 255]
        return "".join(chr(self.pick(pool) if self.chance(0.7) else r.randint(0, 255))
                       for _ in range(r.randint(0, 12)))

    def field(self):
        kind = self.rng.random()
        if kind < 0.3:
            return self.number()
        if kind < 0.45:
            return self.version()
        if kind < 0.55:
            return self.pick(MONTHS) + self.pick(["", "", " 1", "uary"])
        if kind < 0.8:
            return self.word()
        return self.random_bytes()

    def line(self, separator):
        r = self.rng
        if self.chance(0.05):
            return ""
        if self.chance(0.02):  # a long line
            return self.pick("abc\x80") * r.randint(300, 70000)
        fields = [self.field() for _ in range(r.randint(1, 4))]
        if separator is not None and self.chance(0.8):
            text = separator.join(fields)
        else:
            text = "".join(f + self.pick([" ", " ", "  ", "\t", " \t"]) for f in fields).rstrip(" \t")
        if self.chance(0.15):  # blanks, and bytes that only strtold (-g) skips
            text = self.pick([" ", "  ", "\t", " \t ", "\v", "\r ", "\f"]) + text
        return text

    def input_lines(self, separator, count):
        # Sometimes a common start longer than the 8-byte prefix images, so that the
        # full comparator decides; numbers and versions then share long leading digits.
        common = ""
        if self.chance(0.15):
            common = self.pick(["", " ", "-", "0"]) + "".join(
                self.pick("1234567890") for _ in range(self.rng.randint(8, 20)))
        lines = []
        for _ in range(count):
            if lines and self.chance(0.15):  # duplicates, for -u and -s
                lines.append(self.pick(lines))
            else:
                line = self.line(separator)
                lines.append(common + line if common and self.chance(0.8) else line)
        return lines

    def keydef(self):
        r = self.rng
        key = str(r.randint(1, 4))
        if self.chance(0.3):
            key += "." + str(r.randint(1, 5))
        key += self.ordering_letters(0.25)
        if self.chance(0.7):
            key += "," + str(r.randint(1, 5))
            if self.chance(0.3):
                key += "." + str(r.randint(0, 6))
            key += self.ordering_letters(0.15)
        return key

    def ordering_letters(self, p):
        letters = ""
        if self.chance(p):
            letters += "".join(c for c in "bdfir" if self.chance(0.3))
            if self.chance(0.6):
                kind = self.pick("nghMV")
                if kind != "V" and not self.chance(0.05):  # -d and -i exclude n g h M
                    letters = letters.replace("d", "").replace("i", "")
                letters += kind
            if self.chance(0.03):  # an incompatible pair: both must refuse it
                letters += self.pick("nghMV")
        return letters

    def options(self):
        """The option words; also returns the -t separator (None for blanks) and -z."""
        opts = []
        global_letters = self.ordering_letters(0.5)
        if global_letters:
            opts.append("-" + global_letters)
        for flag, p in (("-s", 0.2), ("-u", 0.25), ("-r", 0.1)):
            if self.chance(p):
                opts.append(flag)
        zero = self.chance(0.15)
        if zero:
            opts.append("-z")
        separator = None
        if self.chance(0.35):
            separator = self.pick([",", ":", " ", "\t", "a", ".", "-", "\x80", "\xff", "\\0"])
            opts += ["-t", separator]
            if separator == "\\0":
                separator = "\0"
        for _ in range(self.pick([0, 0, 1, 1, 2, 3])):
            opts.append("-k" + self.keydef())
        return opts, separator, zero


def encode(text):
    return text.encode("latin-1")


def run(argv, stdin_bytes, tmpdir):
    env = dict(ENV, TMPDIR=tmpdir)
    argv = [w.encode("latin-1") for w in argv]  # bytes such as -t $'\x80' as they are
    try:
        p = subprocess.run(argv, input=stdin_bytes, capture_output=True, env=env, timeout=120)
    except subprocess.TimeoutExpired:
        return None, b"", b"timed out"
    return p.returncode, p.stdout, p.stderr


def shell_words(argv):
    def one(word):
        if all(32 < ord(c) < 127 for c in word):
            return shlex.quote(word)
        return "$'" + "".join(c if 32 <= ord(c) < 127 and c not in "'\\" else "\\x%02x" % ord(c)
                              for c in word) + "'"
    return " ".join(one(w) for w in argv)


def make_case(number, workdir):
    """Writes the case's inputs under workdir; returns (options, files, stdin, kind)."""
    rng = random.Random("%d:%d" % (SEED, number))
    case = Case(rng)
    opts, separator, zero = case.options()
    kind = case.pick(["sort"] * 14 + ["check"] * 3 + ["merge"] * 3)
    spill = kind == "sort" and case.chance(0.1)
    if spill:  # beyond gpusort's 64 KiB text chunks, so that runs are spilled and merged
        opts = ["-S", case.pick(["1K", "100K"])] + opts
    count = rng.randint(1500, 3000) if spill else case.pick([0, 1, 2, 5, 20, 50, 100, 200, 500, 1000, 2000])
    lines = case.input_lines(separator, count)
    letters = "".join(w for w in opts if w.startswith("-") and not w.startswith("-t"))
    if "g" in letters:  # no NaN: see the docstring
        lines = [l for l in lines if "nan" not in l.lower()]
    if "h" in letters:  # no R/Q suffix, even folded by -f: see the docstring
        lines = [l.translate({ord(c): None for c in "RrQq"}) for l in lines]
    eol = "\0" if zero else "\n"
    if not zero:
        lines = [l.replace("\n", " ") for l in lines]
    else:
        lines = [l.replace("\0", "\n") for l in lines]
    if kind == "check":
        opts = [case.pick(["-c", "-C"])] + opts
    pieces = [lines]
    if kind == "merge":
        opts = ["-m"] + opts
    if kind == "merge" or (kind == "sort" and case.chance(0.2)):  # several inputs
        cut = sorted(rng.randint(0, len(lines)) for _ in range(rng.randint(0, 2)))
        bounds = [0] + cut + [len(lines)]
        pieces = [lines[a:b] for a, b in zip(bounds, bounds[1:])]
    files = []
    for i, piece in enumerate(pieces):
        data = encode(eol.join(piece) + (eol if piece and not case.chance(0.1) else ""))
        name = os.path.join(workdir, "in%d" % i)
        with open(name, "wb") as f:
            f.write(data)
        files.append(name)
    presort = kind == "merge" or (kind == "check" and case.chance(0.5))
    if presort:  # -m takes sorted inputs; -c then also sees sorted ones
        sort_opts = [w for w in opts if w not in ("-m", "-c", "-C")]
        for name in files:
            subprocess.run([w.encode("latin-1") for w in ["sort"] + sort_opts + ["-o", name, name]],
                           env=ENV, capture_output=True)
    stdin = None
    if len(files) == 1 and case.chance(0.3):
        with open(files[0], "rb") as f:
            stdin = f.read()
        files = case.pick([[], ["-"]])
    return opts, files, stdin, kind


def compare(opts, files, stdin, kind, tmpdir):
    """Returns None when gpusort agrees with sort, else what differs."""
    want = run(["sort"] + opts + files, stdin, tmpdir)
    got = run([GPUSORT] + opts + files, stdin, tmpdir)
    left = os.listdir(tmpdir)
    for name in left:
        path = os.path.join(tmpdir, name)
        shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    if got[0] != want[0]:
        return "exit %s, sort %s; gpusort said %r" % (got[0], want[0], got[2][:200])
    if got[1] != want[1]:
        at = next((i for i, (a, b) in enumerate(zip(got[1], want[1])) if a != b),
                  min(len(got[1]), len(want[1])))
        return "stdout differs at byte %d (gpusort %d bytes, sort %d)" % (at, len(got[1]), len(want[1]))
    if kind == "check" and got[2].replace(b"gpusort:", b"sort:", 1) != want[2]:
        return "stderr %r, sort %r" % (got[2][:200], want[2][:200])
    if left:
        return "temp files left behind: %s" % left
    return None


def sort_orders_dot_names_as_91():
    """coreutils 9.1 (Debian 12, whose sort gpusort follows) lets a dot name's suffix be
    the whole name under -V, so '.a' sorts before '.5'; later releases (9.4 on Ubuntu
    24.04) put '.5' first. Where the system sort is of the later kind, -V cases with dot
    names are skipped, not compared."""
    got = subprocess.run(["sort", "-V"], input=b".a\n.5\n", stdout=subprocess.PIPE,
                         env=dict(os.environ, LC_ALL="C")).stdout
    return got == b".a\n.5\n"


def dot_version_case(opts, files, stdin):
    """Whether a case sorts by -V (or a V key) and some line starts with a dot."""
    if not any(o.startswith("-") and not o.startswith("--") and "V" in o for o in opts) and \
            not any(o.startswith("--sort=v") for o in opts):
        return False
    datas = [stdin or b""] + [open(f, "rb").read() for f in files if f != "-" and os.path.isfile(f)]
    return any(line.lstrip(b" \t").startswith(b".") for data in datas for line in data.split(b"\n") + data.split(b"\0"))


def main():
    skip_dot_versions = not sort_orders_dot_names_as_91()
    root = tempfile.mkdtemp(prefix="gpusort-fuzz.")
    tmpdir = os.path.join(root, "tmp")
    os.mkdir(tmpdir)
    numbers = [int(ONLY)] if ONLY is not None else list(range(COUNT))
    fixed = FIXED if ONLY is None else []
    print("1..%d" % (len(fixed) + len(numbers)))
    print("# seed %d, %d random cases (GPUSORT_FUZZ_SEED, GPUSORT_FUZZ_COUNT)" % (SEED, len(numbers)))
    failed = 0
    n = 0
    try:
        for opts, data in fixed:
            n += 1
            if skip_dot_versions and dot_version_case(opts, [], data):
                print("ok %d # SKIP the system sort orders -V dot names as coreutils after 9.1" % n)
                continue
            why = compare(opts, [], data, "check" if "-c" in opts else "sort", tmpdir)
            label = "fixed: printf %s | gpusort %s" % (shell_words([data.decode("latin-1")]), shell_words(opts))
            print(("ok %d - %s" if why is None else "not ok %d - %s") % (n, label))
            if why:
                failed += 1
                print("# " + why)
        for number in numbers:
            n += 1
            workdir = os.path.join(root, "case%d" % number)
            os.mkdir(workdir)
            opts, files, stdin, kind = make_case(number, workdir)
            if skip_dot_versions and dot_version_case(opts, files, stdin):
                print("ok %d # SKIP case %d: the system sort orders -V dot names as coreutils after 9.1" % (n, number))
                shutil.rmtree(workdir)
                continue
            why = compare(opts, files, stdin, kind, tmpdir)
            shown = [os.path.basename(f) if f != "-" else f for f in files]
            command = "gpusort " + shell_words(opts + shown) + (" < STDIN" if stdin is not None else "")
            if why is None:
                print("ok %d - case %d: %s" % (n, number, command))
                shutil.rmtree(workdir)
                continue
            failed += 1
            print("not ok %d - case %d: %s" % (n, number, command))
            print("# " + why)
            print("# reproduce: GPUSORT_FUZZ_SEED=%d GPUSORT_FUZZ_CASE=%d GPUSORT_FUZZ_KEEP=DIR tests/test_text_fuzz.sh"
                  % (SEED, number))
            if KEEP:
                kept = os.path.join(KEEP, "seed%d-case%d" % (SEED, number))
                shutil.rmtree(kept, ignore_errors=True)
                shutil.copytree(workdir, kept)
                if stdin is not None:
                    with open(os.path.join(kept, "STDIN"), "wb") as f:
                        f.write(stdin)
                with open(os.path.join(kept, "command"), "w") as f:
                    f.write(command + "\n")
                print("# inputs kept in %s" % kept)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
