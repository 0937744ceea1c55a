#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What GNU sort promises of a random order (-R), checked on gpusort's output against
the system sort's on the same input and options. The key is the whole line, or field F
of lines split at ':' (-t:), as -f, -d and the locale's collation leave it (its
equivalence class). Checks: the output holds the input's lines (with -u: one line per
class); lines of one class are adjacent; and inside each class the lines come in
exactly the oracle's order (later keys and the last-resort comparison decide it, which
the salt does not touch); the two outputs have the same classes.

usage: random_check.py INPUT OUTPUT ORACLE [--field F] [--fold] [--dictionary]
                       [--collate] [--unique]
Exit status 0 when every check holds; otherwise the first failure on stdout."""
import argparse
import locale
import sys


def lines_of(path):
    with open(path, 'rb') as f:
        data = f.read()
    if not data:
        return []
    return data[:-1].split(b'\n') if data.endswith(b'\n') else data.split(b'\n')


def main():
    p = argparse.ArgumentParser()
    p.add_argument('input')
    p.add_argument('output')
    p.add_argument('oracle')
    p.add_argument('--field', type=int, default=0)
    p.add_argument('--fold', action='store_true')
    p.add_argument('--dictionary', action='store_true')
    p.add_argument('--collate', action='store_true')
    p.add_argument('--unique', action='store_true')
    a = p.parse_args()
    if a.collate:
        locale.setlocale(locale.LC_COLLATE, '')

    def key_class(line):
        key = line
        if a.field:
            parts = line.split(b':')
            key = parts[a.field - 1] if a.field <= len(parts) else b''
        if a.dictionary:
            key = bytes(c for c in key if chr(c).isascii() and (chr(c).isalnum() or c in b' \t'))
        if a.fold:
            key = bytes(c - 32 if 97 <= c <= 122 else c for c in key)
        if a.collate and key:
            return locale.strxfrm(key.decode('utf-8', 'surrogateescape'))
        return key

    source, got, want = lines_of(a.input), lines_of(a.output), lines_of(a.oracle)
    if a.unique:
        classes = {key_class(line) for line in source}
        if len(got) != len(classes) or {key_class(line) for line in got} != classes:
            print('-u: the output is not one line per class of the input')
            return 1
    elif sorted(got) != sorted(source):
        print('the output does not hold the input lines')
        return 1

    def blocks(lines, name):
        order, seen, last = {}, set(), object()
        for line in lines:
            c = key_class(line)
            if c != last and c in seen:
                print('%s: lines of one class are not adjacent: %r' % (name, line))
                return None
            seen.add(c)
            order.setdefault(c, []).append(line)
            last = c
        return order

    mine, theirs = blocks(got, 'gpusort'), blocks(want, 'sort')
    if mine is None or theirs is None:
        return 1
    if mine.keys() != theirs.keys():
        print('the classes differ from the oracle\'s')
        return 1
    for c, lines in mine.items():
        if lines != theirs[c]:
            print('inside a class the order differs from the oracle\'s: %r against %r'
                  % (lines[:4], theirs[c][:4]))
            return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
