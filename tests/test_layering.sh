#!/bin/sh
# SPDX-License-Identifier: MIT
# The rooms' layering (src/README.md): every #include in src/, kernels/ and io/ names a
# file of its own room or of a room below it, never one above nor one beside it, so
# that no circle can form; the command (src/cli/) includes nothing of the tree but
# <gpusort.h>. From the top down:
#   cli -> library -> distributed -> pipeline -> {text, binary} -> settings -> common
#   -> {kernels, io}
# include/gpusort.h counts as the library's. One TAP line per room, one showing that the
# check catches a planted inversion, two on the whole job (only the pipeline's entry
# sees it), and a last one: every file of src/ is in a room and every quoted include
# names a file that exists.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

TOP=$(cd "$TESTS_SRCDIR/.." && pwd)
ROOMS="cli library distributed pipeline text binary settings common kernels io"

# layering ROOT: one line per finding, "ROOM<TAB>FILE<TAB>INCLUDE<TAB>WHY" (ROOM "-" for
# findings that are no room's: a file outside the rooms, an include that names nothing),
# then "count<TAB>ROOM<TAB>FILES" per room and "total<TAB>FILES<TAB>INCLUDES".
layering() (
	cd "$1" || exit 2
	find src kernels io include -type f 2>/dev/null | sort >"$WORK/tree"
	grep -E '\.(c|h|cu|cuh)$' "$WORK/tree" | grep -E '^(src|kernels|io)/' >"$WORK/sources"
	# every include line of every source, as FILE<TAB>QUOTE<TAB>NAME
	while read -r file; do
		sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*\(["<]\)\([^">]*\)[">].*/\1	\2/p' \
			"$file" | sed "s|^|$file	|"
	done <"$WORK/sources" >"$WORK/includes"
	awk -F '\t' -v tree="$WORK/tree" -v sources="$WORK/sources" '
	function room(path,   n, part) {
		n = split(path, part, "/")
		if (part[1] == "src") return n >= 3 ? part[2] : ""
		if (part[1] == "kernels" || part[1] == "io") return part[1]
		if (part[1] == "include") return "library"
		return "outside"
	}
	function normal(path,   n, part, i, out, depth, stack) {
		n = split(path, part, "/"); depth = 0
		for (i = 1; i <= n; i++) {
			if (part[i] == "." || part[i] == "") continue
			if (part[i] == "..") { if (depth == 0) return ""; depth--; continue }
			stack[++depth] = part[i]
		}
		out = stack[1]
		for (i = 2; i <= depth; i++) out = out "/" stack[i]
		return out
	}
	function dir(path) { sub("/[^/]*$", "", path); return path }
	function finding(r, file, name, why) { print r "\t" file "\t" name "\t" why }
	BEGIN {
		level["cli"] = 8; level["library"] = 7; level["distributed"] = 6; level["pipeline"] = 5
		level["text"] = 4; level["binary"] = 4; level["settings"] = 3
		level["common"] = 2; level["kernels"] = 1; level["io"] = 1
		while ((getline line < tree) > 0) exists[line] = 1
		while ((getline line < sources) > 0) {
			r = room(line)
			if (r == "") finding("-", line, "", "a file of src/ outside the rooms")
			else files[r]++
			total++
		}
	}
	{
		file = $1; quote = $2; name = $3; from = room(file)
		if (from == "" || name == "config.h") next
		target = ""
		if (quote == "\"") {
			if (exists[normal(dir(file) "/" name)]) target = normal(dir(file) "/" name)
			else if (exists[normal(name)]) target = normal(name)
			else { finding("-", file, "\"" name "\"", "names no file of the tree"); next }
		} else if (exists["include/" name]) target = "include/" name
		else if (exists[normal(name)]) target = normal(name)
		else next   # a system header
		includes++
		to = room(target)
		if (to == from) next
		if (from == "cli" && target != "include/gpusort.h")
			finding(from, file, name, "the command includes only <gpusort.h> of the tree")
		else if (!(to in level))
			finding(from, file, name, target " is in no room")
		else if (level[to] > level[from])
			finding(from, file, name, to " is a room above " from)
		else if (level[to] == level[from])
			finding(from, file, name, to " is a room beside " from)
	}
	END {
		for (r in files) print "count\t" r "\t" files[r]
		print "total\t" total "\t" includes + 0
	}' "$WORK/includes"
)

layering "$TOP" >"$WORK/found"
for r in $ROOMS; do
	n=$(awk -F '\t' -v r="$r" '$1 == "count" && $2 == r { print $3 }' "$WORK/found")
	awk -F '\t' -v r="$r" '$1 == r' "$WORK/found" >"$WORK/room"
	case $r in kernels|io) where=$r ;; *) where=src/$r ;; esac
	case $r in
	cli) allowed="its own room and <gpusort.h>" ;;
	*) allowed="its own room and the rooms below it" ;;
	esac
	[ "${n:-0}" -gt 0 ] && [ ! -s "$WORK/room" ]
	tap_result $? "$where: includes only $allowed (${n:-no} files)"
	awk -F '\t' '{ printf "#   %s includes \"%s\": %s\n", $2, $3, $4 }' "$WORK/room"
done

# The check itself: a tree with an inversion (common including the pipeline), a room
# beside (text including binary) and a command that reaches past the API must fail
# on exactly those three.
PLANT=$WORK/planted
mkdir -p "$PLANT/src/common" "$PLANT/src/pipeline" "$PLANT/src/text" "$PLANT/src/binary" \
	"$PLANT/src/cli" "$PLANT/src/library" "$PLANT/include"
echo '#include "../pipeline/merge.h"' >"$PLANT/src/common/report.c"
: >"$PLANT/src/pipeline/merge.h"
echo '#include "../binary/key_image.h"' >"$PLANT/src/text/text_fields.c"
: >"$PLANT/src/binary/key_image.h"
printf '#include <gpusort.h>\n#include "../library/job_options.h"\n' >"$PLANT/src/cli/main.c"
: >"$PLANT/src/library/job_options.h"
: >"$PLANT/include/gpusort.h"
layering "$PLANT" | awk -F '\t' '$1 != "count" && $1 != "total" { print $1 " " $2 }' \
	>"$WORK/planted.found"
printf '%s\n' "cli src/cli/main.c" "common src/common/report.c" "text src/text/text_fields.c" \
	>"$WORK/planted.expected"
sort "$WORK/planted.found" | cmp -s "$WORK/planted.expected" -
status=$?
tap_result $status "the check finds a planted inversion, a room beside and a command past the API"
[ $status -eq 0 ] || sed 's/^/#   found: /' "$WORK/planted.found"

# The whole job (src/pipeline/sort_job.h) stops at the pipeline's entry: of src/pipeline/,
# only the entry (sort_job.c), the two mode drivers it calls and the driver they share
# (sort_driver.c) include it; every other
# stage takes the few values it uses (the rooms below cannot include it at all).
# job_readers ROOT: the files of src/pipeline/ that include it, one a line.
job_readers() (
	cd "$1" || exit 2
	for file in src/pipeline/*.c src/pipeline/*.h; do
		[ -f "$file" ] || continue
		grep -qE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"(\.\./pipeline/)?sort_job\.h"' "$file" &&
			echo "$file"
	done | LC_ALL=C sort
)
JOB_ENTRY='src/pipeline/(sort_job\.[ch]|binary_sort\.c|text_sort\.c|sort_driver\.c)'
job_readers "$TOP" >"$WORK/job_readers"
grep -vxE "$JOB_ENTRY" "$WORK/job_readers" >"$WORK/job_beyond"
# sort_job.c including it shows that the search finds an include at all
grep -qx 'src/pipeline/sort_job.c' "$WORK/job_readers" && [ ! -s "$WORK/job_beyond" ]
tap_result $? "src/pipeline: only the entry and the mode drivers see the whole job (sort_job.h; $(grep -c . "$WORK/job_readers") files)"
sed 's/^/#   includes sort_job.h: /' "$WORK/job_beyond"
# and the check catches a stage that reaches for it, either way of naming it
JOB_PLANT=$WORK/planted_job
mkdir -p "$JOB_PLANT/src/pipeline"
echo '#include "sort_job.h"' >"$JOB_PLANT/src/pipeline/sort_job.c"
echo '#include "sort_job.h"' >"$JOB_PLANT/src/pipeline/binary_sort.c"
echo '#include "sort_job.h"' >"$JOB_PLANT/src/pipeline/memory_plan.h"
echo '# include "../pipeline/sort_job.h"' >"$JOB_PLANT/src/pipeline/merge.c"
echo '#include "runs.h"' >"$JOB_PLANT/src/pipeline/runs.c"
job_readers "$JOB_PLANT" | grep -vxE "$JOB_ENTRY" >"$WORK/job_planted"
printf '%s\n' src/pipeline/memory_plan.h src/pipeline/merge.c | cmp -s - "$WORK/job_planted"
tap_result $? "the check finds stages that include the whole job"

files=$(awk -F '\t' '$1 == "total" { print $2 }' "$WORK/found")
includes=$(awk -F '\t' '$1 == "total" { print $3 }' "$WORK/found")
awk -F '\t' '$1 == "-"' "$WORK/found" >"$WORK/loose"
[ "${files:-0}" -gt 0 ] && [ "${includes:-0}" -gt 0 ] && [ ! -s "$WORK/loose" ]
tap_result $? "every file of src/ is in a room, every quoted include names a file (${files:-0} files, ${includes:-0} includes of the tree)"
awk -F '\t' '{ printf "#   %s %s: %s\n", $2, $3, $4 }' "$WORK/loose"
done_testing
