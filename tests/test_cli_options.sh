#!/bin/sh
# SPDX-License-Identifier: MIT
# The command line: --help covers every option, the -k rule and exit statuses;
# --version; malformed options and values are usage errors with exit status 2.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

expect_status 0 "--help exits 0" "$GPUSORT" --help
for option in --type --record-size --key-offset --key-size -o --output -r --reverse -u --unique \
	-c -C --check -S --buffer-size -T --temporary-directory --parallel --device --gpu-memory \
	--algorithm --stats --progress --verbose -k --key -t -s -m -z -b -d -f -g -h -i -M -n -V \
	--files0-from --batch-size --help --version; do
	grep -q -- "$option" "$WORK/stdout"
	tap_result $? "--help mentions $option"
done
grep -q "The -k rule" "$WORK/stdout"
tap_result $? "--help states the -k rule"
grep -q "Exit status" "$WORK/stdout"
tap_result $? "--help states the exit statuses"

expect_status 0 "--version exits 0" "$GPUSORT" --version
grep -q '^gpusort (gpusort) [0-9]' "$WORK/stdout"
tap_result $? "--version prints the name and version"
# Laid out as coreutils' --version: copyright, licence (MIT, as LICENSE), free software,
# warranty, a blank line, authors.
sed 1d "$WORK/stdout" > "$WORK/version.tail"
printf '%s\n' "Copyright (C) 2026 the gpusort authors." "License MIT: <https://opensource.org/licenses/MIT>." \
	"This is free software: you are free to change and redistribute it." \
	"There is NO WARRANTY, to the extent permitted by law." "" "Written by the gpusort authors." \
	> "$WORK/version.expected"
cmp -s "$WORK/version.expected" "$WORK/version.tail"
tap_result $? "--version carries copyright, licence, warranty and authors lines"

: > "$WORK/empty"
expect_status 2 "unknown option" "$GPUSORT" --no-such-option "$WORK/empty"
stderr_has "unrecognized option '--no-such-option'" "unknown option is named"
stderr_has "Try 'gpusort --help'" "usage hint is printed"
expect_status 2 "unknown short option" "$GPUSORT" -Q "$WORK/empty"
stderr_has "invalid option -- 'Q'" "unknown short option is named"
expect_status 2 "bad --type" "$GPUSORT" --type=u128 "$WORK/empty"
stderr_has "invalid --type 'u128'" "bad --type is named"
expect_status 2 "bad --record-size" "$GPUSORT" --record-size=0 "$WORK/empty"
stderr_has "invalid --record-size '0'" "bad --record-size is named"
expect_status 2 "bad --key-size" "$GPUSORT" --key-size=x "$WORK/empty"
expect_status 2 "key size not the type's" "$GPUSORT" --type=u64 --key-size=4 "$WORK/empty"
stderr_has "--key-size=4 does not match --type=u64" "the mismatch is explained"
expect_status 2 "key beyond the record" "$GPUSORT" --type=u64 --record-size=12 --key-offset=8 "$WORK/empty"
stderr_has "extends beyond the record (size 12)" "the key beyond the record is explained"
expect_status 2 "bad -S" "$GPUSORT" -S 12Q --type=u32 "$WORK/empty"
stderr_has "invalid suffix in -S argument '12Q'" "bad -S is named in GNU sort's words"
expect_status 2 "bad --parallel" "$GPUSORT" --parallel=0 --type=u32 "$WORK/empty"
expect_status 2 "bad --device" "$GPUSORT" --device=gpu7 --type=u32 "$WORK/empty"
stderr_has "invalid --device 'gpu7'" "bad --device is named"
expect_status 2 "bad --algorithm" "$GPUSORT" --algorithm=bogo --type=u32 "$WORK/empty"
stderr_has "invalid --algorithm 'bogo'" "bad --algorithm is named"
expect_status 2 "bad --gpu-memory" "$GPUSORT" --gpu-memory=lots --type=u32 "$WORK/empty"
expect_status 2 "bytes without a size" "$GPUSORT" --type=bytes "$WORK/empty"
expect_status 2 "text option with binary records" "$GPUSORT" -n --type=u32 "$WORK/empty"
stderr_has "applies to text lines" "text-only option is explained"
expect_status 2 "-c with two files" "$GPUSORT" -c --type=u32 "$WORK/empty" "$WORK/empty"
stderr_has "extra operand" "-c with two files is explained"

# Sizes in GNU syntax are accepted.
for size in 100 100b 64K 1M 1G 1% 2k; do
	expect_status 0 "-S $size accepted" "$GPUSORT" -S "$size" --type=u32 "$WORK/empty"
done
done_testing
