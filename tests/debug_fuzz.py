#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""--debug against the system sort (GNU coreutils 9.1) on random inputs and option sets:
random lines of tokens that exercise the annotations (numbers with signs, exponents,
separators and units; month names; blanks and tabs; wide, invalid and control bytes),
global options, up to two random KEYDEFs, sometimes -t, in the C locale or en_US.UTF-8.
stdout, stderr (with the program's name made sort's) and the exit status must be
identical. Prints one TAP line per case.

usage: debug_fuzz.py GPUSORT SEED COUNT [LOCALE...]"""
import os
import random
import subprocess
import sys

TOKENS = ['a', 'B', 'abc', 'Jan', 'feb', 'DECember', '12', '-3', '1,234', '1.5', '-0.5e3', '2K',
          '3M', '1k', 'x', ' ', '  ', '\t', ',', '.', '-', ':', '\u00e9', '\u4e2d', '\x01', 'nan',
          'inf', '0x1f', '+7', '1.2.3', '', '\udcff']


def main():
    gpusort, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    locales = sys.argv[4:] or ['C']
    r = random.Random(seed)

    def keydef():
        s = str(r.randrange(1, 4))
        if r.random() < 0.3:
            s += '.' + str(r.randrange(1, 4))
        if r.random() < 0.5:
            s += ''.join(r.sample('bdfgihMnrV', r.randrange(0, 3)))
        if r.random() < 0.6:
            s += ',' + str(r.randrange(1, 4))
            if r.random() < 0.3:
                s += '.' + str(r.randrange(0, 4))
            if r.random() < 0.3:
                s += 'b'
        return s

    failed = 0
    for case in range(1, count + 1):
        lines = [''.join(r.choice(TOKENS) for _ in range(r.randrange(0, 7)))
                 for _ in range(r.randrange(1, 12))]
        data = ('\n'.join(lines) + '\n').encode('utf-8', 'surrogateescape')
        opts = r.sample(['-b', '-d', '-f', '-g', '-h', '-i', '-M', '-n', '-r', '-s', '-u', '-V'],
                        r.randrange(0, 3))
        for _ in range(r.randrange(0, 3)):
            opts += ['-k', keydef()]
        if r.random() < 0.3:
            opts += ['-t', r.choice([',', '.', ':', '-', ' ', '+'])]
        loc = r.choice(locales)
        env = dict(os.environ, LC_ALL=loc)
        want = subprocess.run(['sort', '--debug'] + opts, input=data, capture_output=True, env=env)
        got = subprocess.run([gpusort, '--debug'] + opts, input=data, capture_output=True, env=env)
        got_err = got.stderr.replace(b'gpusort:', b'sort:').replace(b"'gpusort --help'", b"'sort --help'")
        same = (want.returncode == got.returncode and want.stdout == got.stdout
                and want.stderr == got_err)
        print('%s %d - %s --debug %s' % ('ok' if same else 'not ok', case, loc, ' '.join(opts)))
        if not same:
            failed += 1
            print('#   input %r' % data[:160])
            print('#   exit: sort %d, gpusort %d' % (want.returncode, got.returncode))
            if want.stderr != got_err:
                print('#   stderr: sort %r, gpusort %r' % (want.stderr[:200], got_err[:200]))
            for i, (a, b) in enumerate(zip(want.stdout.split(b'\n'), got.stdout.split(b'\n'))):
                if a != b:
                    print('#   stdout line %d: sort %r, gpusort %r' % (i + 1, a, b))
                    break
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
