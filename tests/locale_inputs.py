#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Inputs for tests/test_locale.sh: lines where the locale's collation and byte order
disagree (upper and lower case, accented UTF-8 letters, punctuation, digits, blanks,
empty lines), fields for -k and -t, numbers for -n -h -g with '.' and ',', and month names of
three locales for -M. Seeded,
so every run sorts the same bytes. Usage: locale_inputs.py DIR [SPILL_LINES]."""
import os
import random
import sys

LETTERS = "aAbBcCeEoOsSzZ" + "äÄöÖüÜßéÉèàçñÑåø" + "æœ"
PUNCT = "-_.,;:!?'\"()/@#&*+="
DIGITS = "0123456789"


def word(rng):
    pool = rng.choice([LETTERS, LETTERS + DIGITS, LETTERS + PUNCT, LETTERS + PUNCT + DIGITS])
    return "".join(rng.choice(pool) for _ in range(rng.randint(0, 7)))


def mixed_line(rng):
    shape = rng.random()
    if shape < 0.05:
        return ""
    if shape < 0.1:
        return rng.choice([" ", "\t", "  x", "x ", "-", "--", "a-b", "a b", "ab"])
    words = [word(rng) for _ in range(rng.randint(1, 4))]
    blanks = [rng.choice([" ", " ", "  ", "\t"]) for _ in words]
    line = "".join(b + w for b, w in zip(blanks, words))
    return line if rng.random() < 0.5 else line.lstrip()


def number(rng):
    sign = rng.choice(["", "", "-", "+"])
    whole = str(rng.randint(0, 10 ** rng.randint(0, 7)))
    if rng.random() < 0.3 and len(whole) > 3:
        sep = rng.choice([",", "."])
        whole = f"{int(whole):,}".replace(",", sep)
    frac = ""
    if rng.random() < 0.5:
        frac = rng.choice([".", ","]) + str(rng.randint(0, 999))
    unit = rng.choice(["", "", "", "K", "M", "G", "k", "e3", " x", "a"])
    return rng.choice(["", " ", "  "]) + sign + whole + frac + unit


# abbreviated month names of C/en_US, de_DE and fr_FR, some in other cases or misspelt
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
          "Mär", "MÄR", "Mai", "Okt", "Dez", "janv.", "févr.", "FÉVR.", "mars", "avr.",
          "juin", "juil.", "août", "sept.", "oct.", "déc.", "Ma", "", "Ju", "xyz"]


def month_line(rng):
    name = rng.choice(MONTHS)
    name = rng.choice([name, name.upper(), name.lower()])
    return rng.choice(["", " ", "\t"]) + name + rng.choice(["", " 1", "x", " " + word(rng)])


def write(path, lines):
    with open(path, "w", encoding="utf-8") as out:
        for line in lines:
            out.write(line + "\n")


def main():
    rng = random.Random(20261125)
    directory = sys.argv[1]
    spill_lines = int(sys.argv[2]) if len(sys.argv) > 2 else 60000
    write(os.path.join(directory, "mixed"), [mixed_line(rng) for _ in range(3000)])
    # few distinct lines: many ties, equal keys and case-only differences for -u and -s
    small = [mixed_line(rng) for _ in range(40)]
    write(os.path.join(directory, "ties"),
          [rng.choice(small) if rng.random() < 0.7 else rng.choice(small).upper()
           for _ in range(2000)])
    # runs of hundreds of lines whose keys share their first level's first 8 bytes
    # (accents, case and punctuation apart), told apart later or not at all
    heads = ["Ivanova-", "ivanová ", "IVANOVA,", "Müller, M", "muller m", "Garcia  ", "García, "]
    write(os.path.join(directory, "longties"),
          ["%s%s%d\t%s" % (rng.choice(heads), rng.choice(["", "é", "E", "-", " "]), rng.randrange(40),
                           rng.choice(["x", "Y", "é"])) for _ in range(12000)])
    # short runs (under a few hundred lines) tied in their first level's first 8 bytes,
    # some tied in the next 8 as well, told apart by accents, case, punctuation or not
    bases = ["abcdefgh", "Abcdéfgh", "ABCDEFGH", "mnopqrst", "Mnöpqrst", "zzzzzzzz", "ßßßß"]
    bases += ["".join(rng.choice("abcdeosz") for _ in range(8)) for _ in range(30)]
    middles = ["ijklmnop", "ijklmnöp", "IJKLMNOP", "ijkl", "ijkl-mnop", "", "ij kl"]
    write(os.path.join(directory, "midties"),
          ["%s%s%s%s %s" % (rng.choice(bases), rng.choice(middles), rng.choice(["", "q", "Q", "é", "e", "-", "qr"]),
                            rng.choice(["", "s", "S", " "]), rng.choice(["x", "Y", "é", "1", ""]))
           for _ in range(5000)])
    write(os.path.join(directory, "numbers"),
          [number(rng) + rng.choice(["", " " + word(rng)]) for _ in range(2000)])
    write(os.path.join(directory, "months"), [month_line(rng) for _ in range(2000)])
    write(os.path.join(directory, "spill"), [mixed_line(rng) for _ in range(spill_lines)])


if __name__ == "__main__":
    main()
