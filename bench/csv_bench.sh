#!/bin/bash
# SPDX-License-Identifier: MIT
# --csv against -t, on the same unquoted file (the cost of reading fields as RFC 4180
# does), and on a file whose fields are quoted (separators and newlines inside), with
# GNU sort -t, as the peer on the unquoted one. Each figure is the best of RUNS wall
# times; outputs are compared (gpusort --csv and -t, and sort -t, on the unquoted file).
#   bench/csv_bench.sh [GPUSORT [LINES [RUNS [DIR]]]]
set -u
gpusort=${1:-./gpusort}
lines=${2:-2000000}
runs=${3:-3}
dir=${4:-${TMPDIR:-/tmp}}
work=$(mktemp -d "$dir/csv-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export LC_ALL=C

python3 - "$work" "$lines" <<'EOF'
import random, sys
work, lines = sys.argv[1], int(sys.argv[2])
rng = random.Random(7)
names = ["Smith", "Jones", "Ng", "García", "Okafor", "Müller", "Rossi", "Kim", "Dubois", "Ivanova"]
with open(work + "/plain.csv", "w") as plain, open(work + "/quoted.csv", "w") as quoted:
    plain.write("id,name,amount,city\n")
    quoted.write("id,name,amount,note\n")
    for i in range(lines):
        name = rng.choice(names) + str(rng.randrange(100000))
        amount = "%d.%02d" % (rng.randrange(100000), rng.randrange(100))
        plain.write("%d,%s,%s,city%d\n" % (rng.randrange(10**9), name, amount, rng.randrange(1000)))
        note = rng.choice(['"said ""hi"", then left"', '"two\nlines"', "plain", '"a, b, c"'])
        quoted.write('%d,"%s, %s",%s,%s\n' % (rng.randrange(10**9), name, rng.choice(names), amount, note))
EOF

# best TIMES COMMAND...: the least wall time of RUNS runs, in seconds
best() {
	local least=
	for ((i = 0; i < runs; i++)); do
		local start end
		start=$(date +%s.%N)
		"$@" >/dev/null 2>&1
		end=$(date +%s.%N)
		least=$(echo "$start $end ${least:-1e9}" | awk '{t = $2 - $1; print (t < $3 ? t : $3)}')
	done
	echo "$least"
}

size=$(du -m "$work/plain.csv" | cut -f1)
echo "# $lines records; plain.csv ${size} MB, quoted.csv $(du -m "$work/quoted.csv" | cut -f1) MB; $(nproc) cores"
for key in "-k2,2" "-k3,3n"; do
	"$gpusort" -t, $key "$work/plain.csv" -o "$work/t.out"
	"$gpusort" --csv $key "$work/plain.csv" -o "$work/csv.out"
	sort -t, $key "$work/plain.csv" -o "$work/gnu.out"
	same=$(cmp -s "$work/t.out" "$work/csv.out" && cmp -s "$work/t.out" "$work/gnu.out" && echo yes || echo NO)
	t=$(best "$gpusort" -t, $key "$work/plain.csv" -o "$work/t.out")
	c=$(best "$gpusort" --csv $key "$work/plain.csv" -o "$work/csv.out")
	g=$(best sort -t, $key "$work/plain.csv" -o "$work/gnu.out")
	q=$(best "$gpusort" --csv --header $key "$work/quoted.csv" -o "$work/q.out")
	printf '%-7s  -t, %6.3f s  --csv %6.3f s (%.2fx of -t,)  sort -t, %6.3f s  --csv quoted %6.3f s  outputs identical: %s\n' \
		"$key" "$t" "$c" "$(echo "$c $t" | awk '{print $1 / $2}')" "$g" "$q" "$same"
done
