#!/bin/bash
# SPDX-License-Identifier: MIT
# Small inputs, where a sort's start-up is all of its time (issue 47 item 1): 10 and
# 1,000 lines of text, from a file and from a pipe to /dev/null, and from a file to a file
# (-o), in the C locale and in en_US.UTF-8
# (where it exists), sorted by gpusort and by GNU sort. Each round runs every case BATCH
# times (default 50) per program, the programs alternating; prints per case the median
# over ROUNDS rounds (default 7) of the wall milliseconds per run, and gpusort's over
# sort's (target: at most 1.0).
# usage: bench/small_bench.sh GPUSORT [SORT] (env: ROUNDS, BATCH, WORK)
set -u
[ $# -ge 1 ] || { echo "usage: $0 GPUSORT [SORT]" >&2; exit 2; }
work=${WORK:-/tmp/gpusort-small}
mkdir -p "$work"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
exec python3 - "$1" "${2:-sort}" "$work" "${ROUNDS:-7}" "${BATCH:-50}" <<'PY'
import os, random, statistics, subprocess, sys, time
gpusort, gnu, work, rounds, batch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
rng = random.Random(47)
inputs = {}
for lines in (10, 1000):
    words = [''.join(rng.choice('abcdefghijklmnopqrstuvwxyzAB ') for _ in range(rng.randrange(3, 40))) for _ in range(lines)]
    path = os.path.join(work, f"lines.{lines}")
    data = ('\n'.join(words) + '\n').encode()
    open(path, 'wb').write(data)
    inputs[lines] = (path, data)
locales = ['C']
if subprocess.run(['locale', '-a'], capture_output=True, text=True).stdout.lower().count('en_us.utf8'):
    locales.append('en_US.UTF-8')

def runs(program, path, data, form, env):
    start = time.perf_counter()
    for _ in range(batch):
        if form == 'pipe':
            p = subprocess.run([program], input=data, stdout=subprocess.DEVNULL, env=env)
        elif form == '-o':
            p = subprocess.run([program, path, '-o', path + '.out'], env=env)
        else:
            p = subprocess.run([program, path], stdout=subprocess.DEVNULL, env=env)
        if p.returncode != 0:
            sys.exit(f"{program} failed: {p.returncode}")
    return (time.perf_counter() - start) / batch * 1000

print(f"{'locale':12} {'lines':>5} {'from':5} {'gpusort ms':>10} {'sort ms':>8} {'ratio':>6}")
for loc in locales:
    env = dict(os.environ, LC_ALL=loc)
    for lines, (path, data) in inputs.items():
        for form in ('file', 'pipe', '-o'):
            want = subprocess.run([gnu, path], capture_output=True, env=env).stdout
            got = subprocess.run([gpusort, path], capture_output=True, env=env).stdout
            if got != want:
                sys.exit(f"outputs differ: {loc} {lines} lines")
            g, s = [], []
            for _ in range(rounds):
                g.append(runs(gpusort, path, data, form, env))
                s.append(runs(gnu, path, data, form, env))
            gm, sm = statistics.median(g), statistics.median(s)
            print(f"{loc:12} {lines:5} {form:5} {gm:10.2f} {sm:8.2f} {gm / sm:6.2f}")
PY
