# SPDX-License-Identifier: MIT
"""CSV files and how they sort, with Python's csv module, for tests/test_csv_sort.sh.

    csv_sort_oracle.py generate FILE COUNT SEED [SEP [plain]]
        writes COUNT random records (and a header line) to FILE: quoted and unquoted
        fields, separators, quotes, LFs, CRLFs and TABs inside quotes, empty fields and
        lines, UTF-8, numbers; CRLF record ends now and then; sometimes a last record
        without its newline. "plain": no quotes at all, LF ends only.
    csv_sort_oracle.py generate-malformed FILE COUNT SEED
        the same, then in one record of three a quote put inside an unquoted field, a
        byte after a closing quote, or a CR inside a field (in pairs mostly, so that
        most records still end at their own line's end).
    csv_sort_oracle.py sort OUT SEP HEADER LOCALE FLAGS KEY... -- FILE...
        writes to OUT what `gpusort --csv -t SEP --header=HEADER FLAGS -k KEY...` must:
        the first file's HEADER records, then every file's other records in order.
        FLAGS: letters of r u s, L (--csv=lenient), or -. KEY: FIELD[,FIELD][n][r] (-k F,F with n and r).
        LOCALE: C (bytes) or a locale name (strcoll, as GNU sort).

Records are cut from the bytes by the RFC 4180 rule (a LF outside quotes ends one),
kept byte for byte for the output (a last one without LF gains one), and their fields
read by csv.reader in strict mode; under L by the quotes' parity instead (every quote
opens or closes a quoted part, "" inside quotes is one quote), which is what
--csv=lenient documents. A key is the fields' content joined by SEP; -n reads
its leading number as GNU sort does (blanks, '-', digits, one '.'), else 0.
"""
import csv
import functools
import locale
import random
import re
import sys

WORDS = ["a", "b", "zz", "42", "-3.5", "Ærø", "日本", "é", "x y", " pad ", "B", "0", "", "1.25", "-0"]


def random_field(rng, sep, plain):
    kind = rng.randrange(12)
    if kind == 0:
        return ""
    if kind == 1:
        return str(rng.randrange(-500, 500)) + rng.choice(["", ".5", "x"])
    pieces = [rng.choice(WORDS) for _ in range(rng.randrange(1, 3))]
    if not plain:
        if kind == 2:
            pieces.insert(rng.randrange(len(pieces) + 1), sep)
        elif kind == 3:
            pieces.insert(rng.randrange(len(pieces) + 1), '"')
        elif kind == 4:
            pieces.insert(rng.randrange(len(pieces) + 1), rng.choice(["\n", "\r\n", "\t", "\n\t\n", '""']))
    return "".join(pieces)


def encode_field(rng, text, sep, plain):
    if plain:
        return text
    if any(c in text for c in (sep, '"', "\n", "\r", "\t")) or rng.randrange(5) == 0:
        return '"' + text.replace('"', '""') + '"'
    return text


def generate(path, count, seed, sep, plain):
    rng = random.Random(seed)
    out = ["name" + sep + "value" + sep + "note\n"]
    for i in range(count):
        if rng.randrange(40) == 0 and not plain:
            out.append("\n")
            continue
        fields = [random_field(rng, sep, plain) for _ in range(rng.randrange(1, 5))]
        end = "\r\n" if not plain and rng.randrange(8) == 0 else "\n"
        out.append(sep.join(encode_field(rng, f, sep, plain) for f in fields) + end)
    text = "".join(out)
    if not plain and rng.randrange(3) == 0:
        text = text[:-1] if text.endswith("\n") and not text.endswith("\r\n") else text
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def records(data):
    """The raw records of data (bytes), each with its LF."""
    out, start, quoted = [], 0, False
    for i, c in enumerate(data):
        if c == 0x22:
            quoted = not quoted
        elif c == 0x0A and not quoted:
            out.append(data[start:i + 1])
            start = i + 1
    if start < len(data):
        out.append(data[start:] + b"\n")
    return out


def fields(record, sep):
    body = record[:-1]
    if body.endswith(b"\r"):
        body = body[:-1]
    rows = list(csv.reader([body.decode("utf-8", "surrogateescape")], delimiter=sep, strict=True))
    return rows[0] if rows and rows[0] else [""]


def lenient_fields(record, sep):
    body = record[:-1]
    if body.endswith(b"\r"):
        body = body[:-1]
    out, field, quoted, i, s = [], bytearray(), False, 0, ord(sep)
    while i < len(body):
        c = body[i]
        if c == 0x22 and quoted and i + 1 < len(body) and body[i + 1] == 0x22:
            field.append(0x22)
            i += 1
        elif c == 0x22:
            quoted = not quoted
        elif c == s and not quoted:
            out.append(bytes(field))
            field = bytearray()
        else:
            field.append(c)
        i += 1
    out.append(bytes(field))
    return [f.decode("utf-8", "surrogateescape") for f in out]


def malform(rng, line):
    """line (a record, its end removed) with a quote or CR put where RFC 4180 has none."""
    kind = rng.randrange(4)
    at = rng.randrange(len(line) + 1)
    if kind == 0:
        return line[:at] + '"x"' + line[at:]  # a pair inside a field
    if kind == 1:
        return '"q"' + rng.choice(WORDS) + line  # bytes after a closing quote
    if kind == 2:
        return line[:at] + "\r" + line[at:]
    return line[:at] + '"' + line[at:]  # a lone quote: joins the next record


def generate_malformed(path, count, seed):
    rng = random.Random(seed)
    out = ["name,value,note\n"]
    for i in range(count):
        fields = [random_field(rng, ",", False) for _ in range(rng.randrange(1, 5))]
        line = ",".join(encode_field(rng, f, ",", False) for f in fields)
        if rng.randrange(3) == 0:
            line = malform(rng, line)
        out.append(line + "\n")
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write("".join(out))


NUMBER = re.compile(r"[ \t\n]*(-?)(\d*)(?:\.(\d*))?")


def number(text):
    m = NUMBER.match(text)
    whole, frac = m.group(2), m.group(3) or ""
    if not whole and not frac:
        return 0
    value = int(whole or "0") + (int(frac) / 10 ** len(frac) if frac else 0)
    return -value if m.group(1) and value else value


def main():
    if sys.argv[1] == "generate":
        sep = sys.argv[5] if len(sys.argv) > 5 else ","
        generate(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sep, len(sys.argv) > 6)
        return
    if sys.argv[1] == "generate-malformed":
        generate_malformed(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return
    out, sep, header, loc, flags = sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6]
    rest = sys.argv[7:]
    cut = rest.index("--")
    keys, files = rest[:cut], rest[cut + 1:]
    collate = loc != "C"
    if collate:
        locale.setlocale(locale.LC_ALL, loc)
    head, body = [], []
    for n, path in enumerate(files):
        recs = records(open(path, "rb").read())
        if n == 0:
            head = recs[:header]
        body += recs[header:]
    parsed = []
    for k in keys:
        m = re.fullmatch(r"(\d+)(?:,(\d+))?([nr]*)", k)
        parsed.append((int(m.group(1)), int(m.group(2) or 0), "n" in m.group(3), "r" in m.group(3)))

    def text_compare(a, b):
        if collate:
            return locale.strcoll(a.decode("utf-8", "surrogateescape"), b.decode("utf-8", "surrogateescape"))
        return (a > b) - (a < b)

    def key_of(rec, first, last):
        fs = lenient_fields(rec, sep) if "L" in flags else fields(rec, sep)
        last = last or len(fs)
        return sep.encode().join(f.encode("utf-8", "surrogateescape") for f in fs[first - 1:last])

    def compare(x, y):
        for first, last, numeric, rev in parsed:
            a, b = key_of(x, first, last), key_of(y, first, last)
            if numeric:
                va, vb = number(a.decode("utf-8", "surrogateescape")), number(b.decode("utf-8", "surrogateescape"))
                d = (va > vb) - (va < vb)
            else:
                d = text_compare(a, b)
            if d:
                return -d if rev or "r" in flags else d
        if not keys:
            d = text_compare(x[:-1], y[:-1])
            return -d if "r" in flags else d
        if "s" in flags or "u" in flags:
            return 0
        d = text_compare(x[:-1], y[:-1])
        return -d if "r" in flags else d

    body.sort(key=functools.cmp_to_key(compare))
    if "u" in flags:
        kept = []
        for r in body:
            if not kept or compare(kept[-1], r) != 0:
                kept.append(r)
        body = kept
    with open(out, "wb") as f:
        f.write(b"".join(head + body))


main()
