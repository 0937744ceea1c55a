#!/bin/sh
# SPDX-License-Identifier: MIT
# --device=N that cannot be used says why in the driver's words: "gpusort: device N:
# REASON", exit 2, in text and binary mode alike. Built without CUDA the reason is
# "built without CUDA"; with CUDA and no usable driver or device it is CUDA's own
# string (e.g. "CUDA driver version is insufficient for CUDA runtime version", "no
# CUDA-capable device is detected"), never strerror's "No such device". Where a GPU
# works, device 0 sorts and a device past the last one is named with the count.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

printf 'b\na\n' > "$WORK/text"
keygen --type=u64 --count=1000 --seed=9 -o "$WORK/keys"
"$GPUSORT" --device=cpu "$WORK/text" -o "$WORK/text.sorted"
"$GPUSORT" --device=cpu --type=u64 "$WORK/keys" -o "$WORK/keys.sorted"

# one_line_reason DEVICE: stderr is one line "gpusort: device DEVICE: REASON"; prints REASON.
one_line_reason() {
	[ "$(wc -l < "$WORK/stderr")" -eq 1 ] && sed -n "s/^gpusort: device $1: \(..*\)$/\1/p" "$WORK/stderr"
}

for mode in text binary; do
	if [ $mode = text ]; then input="$WORK/text" options=""; else input="$WORK/keys" options="--type=u64"; fi
	"$GPUSORT" --device=0 $options "$input" -o "$WORK/got" 2>"$WORK/stderr"
	status=$?
	reason=$(one_line_reason 0)
	# GPUSORT_CUDA comes from make's test environment; elsewhere (bench/device_check.sh)
	# a --device=0 that sorted tells that CUDA is there.
	case "${GPUSORT_CUDA:-}:$status" in
	no:*)
		[ $status -eq 2 ] && [ "$reason" = "built without CUDA" ]
		tap_result $? "$mode: without CUDA, --device=0 says 'built without CUDA' (exit $status)"
		;;
	*:0)
		cmp -s "$WORK/got" "$WORK/$(basename "$input").sorted"
		tap_result $? "$mode: --device=0 sorts on the GPU as on the CPU"
		rm -f "$WORK/got"
		"$GPUSORT" --device=999 $options "$input" -o "$WORK/got" 2>"$WORK/stderr"
		status=$?
		reason=$(one_line_reason 999)
		[ $status -eq 2 ] && expr "$reason" : 'no CUDA device 999 ([0-9]* found)$' >/dev/null
		tap_result $? "$mode: --device=999 is named with the devices found: $reason (exit $status)"
		;;
	*)
		[ $status -eq 2 ] && [ -n "$reason" ] && [ "$reason" != "No such device" ] &&
			[ "$reason" != "built without CUDA" ] && ! expr "$reason" : 'cuda[A-Z]' >/dev/null
		tap_result $? "$mode: --device=0 without a usable GPU gives CUDA's reason: $reason (exit $status)"
		;;
	esac
	[ $status -eq 0 ] || sed 's/^/# /' "$WORK/stderr"
	[ $status -eq 0 ] || test ! -e "$WORK/got"
	tap_result $? "$mode: no output file when the device cannot be used"
	rm -f "$WORK/got"
done

# --device=auto is not an error without a GPU: it sorts.
"$GPUSORT" --device=auto --type=u64 "$WORK/keys" -o "$WORK/got" 2>"$WORK/stderr" &&
	cmp -s "$WORK/got" "$WORK/keys.sorted"
tap_result $? "--device=auto sorts whatever the GPU"
# Text from a pipe is read ahead by 64 KiB before the engine is chosen: a pipe that ends
# within that is small, and --device=auto sorts it on the CPU threads for the reason a
# small file gets; past it the size is unknown. The output is sort's either way, lines
# across the read-ahead's end included.
python3 - "$WORK/lines" <<'EOF'
import random, sys
rng = random.Random(7)
out = bytearray()
while len(out) < 70000:
    out += bytes(rng.choice(b"abcdefgh") for _ in range(rng.randrange(0, 40))) + b"\n"
open(sys.argv[1], "wb").write(out)
EOF
small_reason="gpusort: note: sorting on the CPU: input below 1 GiB: the CPU threads finish before a GPU would start"
for bytes in 0 1 65535 65536 65537 70000; do
	head -c "$bytes" "$WORK/lines" >"$WORK/piped"
	LC_ALL=C sort "$WORK/piped" >"$WORK/want"
	cat "$WORK/piped" | LC_ALL=C "$GPUSORT" --verbose >"$WORK/got" 2>"$WORK/stderr"
	status=$?
	if [ "$bytes" -lt 65536 ]; then
		[ $status -eq 0 ] && cmp -s "$WORK/got" "$WORK/want" && [ "$(cat "$WORK/stderr")" = "$small_reason" ]
		tap_result $? "text, $bytes bytes from a pipe: sorted, and small enough for the CPU threads"
	else
		[ $status -eq 0 ] && cmp -s "$WORK/got" "$WORK/want" && ! grep -q 'input below 1 GiB' "$WORK/stderr"
		tap_result $? "text, $bytes bytes from a pipe: sorted, its size unknown to the choice"
	fi
	[ $status -eq 0 ] || sed 's/^/# /' "$WORK/stderr"
done
done_testing
