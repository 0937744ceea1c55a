/* SPDX-License-Identifier: MIT */
/* TAP output for the C tests (see tap.h). */
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include "tap.h"

static int tap_count;
static int tap_failed;
static int tap_planned = -1;

void tap_plan(int count)
{
	tap_planned = count;
	printf("1..%d\n", count);
}

void tap_plan_skip_all(const char *reason)
{
	printf("1..0 # SKIP %s\n", reason);
	tap_planned = 0;
}

bool tap_ok(bool condition, const char *format, ...)
{
	va_list args;
	tap_count++;
	if (!condition)
		tap_failed++;
	printf("%sok %d - ", condition ? "" : "not ", tap_count);
	va_start(args, format);
	vprintf(format, args);
	va_end(args);
	putchar('\n');
	fflush(stdout);
	return condition;
}

void tap_skip(int count, const char *reason)
{
	for (int i = 0; i < count; i++)
		printf("ok %d # SKIP %s\n", ++tap_count, reason);
	fflush(stdout);
}

void tap_diag(const char *format, ...)
{
	va_list args;
	fputs("# ", stdout);
	va_start(args, format);
	vprintf(format, args);
	va_end(args);
	putchar('\n');
	fflush(stdout);
}

int tap_done(void)
{
	if (tap_planned < 0)
		printf("1..%d\n", tap_count);
	else if (tap_planned != tap_count && tap_planned != 0) {
		printf("# planned %d tests but ran %d\n", tap_planned, tap_count);
		return 1;
	}
	fflush(stdout);
	return tap_failed ? 1 : 0;
}
