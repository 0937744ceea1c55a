#!/bin/sh
# SPDX-License-Identifier: MIT
# Generates the locales tests/test_locale.sh sorts in (en_US, de_DE and fr_FR, UTF-8;
# de_DE and fr_FR write numbers with a decimal comma), and sv_SE (a blank thousands
# separator, for test_gnu_cases.sh's -h cases), as root, installing Debian's
# `locales` package for localedef when it is missing. Without them the tests skip.
# Used by .ci/run and ./bootstrap; safe to run again.
set -u
if [ "$(id -u)" != 0 ]; then
	echo "generate_locales: not root; the locale tests will skip what is missing" >&2
	exit 0
fi
if [ ! -d /usr/share/i18n/locales ] || ! command -v localedef >/dev/null 2>&1; then
	export DEBIAN_FRONTEND=noninteractive
	{ apt-get update -qq && apt-get install -y -qq --no-install-recommends locales; } >/dev/null 2>&1 ||
		{ echo "generate_locales: cannot install the locales package" >&2; exit 0; }
fi
for name in en_US de_DE fr_FR sv_SE; do
	locale -a 2>/dev/null | grep -qix "$name.utf-\{0,1\}8" && continue
	localedef -i "$name" -f UTF-8 "$name.UTF-8" ||
		echo "generate_locales: localedef $name.UTF-8 failed" >&2
done
exit 0
