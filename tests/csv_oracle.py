# SPDX-License-Identifier: MIT
"""Random CSV inputs and how Python's csv module reads them, for tests/test_csv_record.

    csv_oracle.py RECORDS SEED SEPARATOR [SEED SEPARATOR]...

writes to stdout, for each SEED and SEPARATOR, binary-safe:
    input LEN\\n<LEN bytes>\\n
then for each record csv.reader gives, in order:
    record RAWLEN FIELDS\\n     (RAWLEN: the record's bytes in the input, its LF included)
    field LEN\\n<LEN bytes>\\n  (each field's content as csv.reader reads it, UTF-8)
and "end\\n". The inputs hold quoted and unquoted fields, embedded separators, quotes,
LFs and CRLFs, empty fields and empty lines, UTF-8, CRLF record ends, and sometimes a
last record without a newline. Each record's bytes are found by feeding the reader one
line at a time and taking the lines it consumed (reader.line_num); the fields the
generator meant must be what the reader reads (strict mode), or the script fails.
"""
import csv
import random
import sys

WORDS = ["a", "b", "zz", "42", "-3.5", "1e3", "Ærø", "日本", "é", "x y", "  pad ", "\U0001F600", "0", ""]


def random_field(rng, sep):
    kind = rng.randrange(10)
    if kind == 0:
        return ""
    pieces = [rng.choice(WORDS) for _ in range(rng.randrange(1, 4))]
    if kind == 1:
        pieces.insert(rng.randrange(len(pieces) + 1), sep)
    elif kind == 2:
        pieces.insert(rng.randrange(len(pieces) + 1), '"')
    elif kind == 3:
        pieces.insert(rng.randrange(len(pieces) + 1), rng.choice(["\n", "\r\n", "\n\n", '""']))
    return "".join(pieces)


def encode_field(rng, text, sep):
    must_quote = any(c in text for c in (sep, '"', "\n", "\r"))
    if must_quote or rng.randrange(6) == 0:
        return '"' + text.replace('"', '""') + '"'
    return text


def generate(rng, sep, count):
    """The input text and the records the generator meant (lists of fields)."""
    out, meant = [], []
    for i in range(count):
        if rng.randrange(25) == 0:
            fields = []
            text = ""
        else:
            fields = [random_field(rng, sep) for _ in range(rng.randrange(1, 7))]
            if fields == [""]:
                fields = ["?"]
            text = sep.join(encode_field(rng, f, sep) for f in fields)
        last = i == count - 1
        if last and text and rng.randrange(3) == 0:
            end = ""
        else:
            end = "\r\n" if rng.randrange(4) == 0 else "\n"
        out.append(text + end)
        meant.append(fields)
    return "".join(out), meant


def lines_of(text):
    """The input's lines, each with its LF (the last one may lack it)."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def read_records(text, sep):
    lines = lines_of(text)
    reader = csv.reader(iter(lines), delimiter=sep, strict=True)
    records, consumed = [], 0
    for row in reader:
        raw = "".join(lines[consumed:reader.line_num]).encode("utf-8")
        consumed = reader.line_num
        records.append((raw, row))
    return records


def write_case(out, seed, sep, count):
    rng = random.Random(seed)
    text, meant = generate(rng, sep, count)
    records = read_records(text, sep)
    if [row for _, row in records] != meant:
        sys.exit("csv_oracle: the reader does not read what was written")
    data = text.encode("utf-8")
    if b"".join(raw for raw, _ in records) != data:
        sys.exit("csv_oracle: the records do not cover the input")
    out.write(b"input %d\n" % len(data) + data + b"\n")
    for raw, row in records:
        out.write(b"record %d %d\n" % (len(raw), len(row)))
        for field in row:
            content = field.encode("utf-8")
            out.write(b"field %d\n" % len(content) + content + b"\n")
    out.write(b"end\n")


def main():
    count, specs = int(sys.argv[1]), sys.argv[2:]
    for i in range(0, len(specs), 2):
        write_case(sys.stdout.buffer, int(specs[i]), specs[i + 1], count)


if __name__ == "__main__":
    main()
