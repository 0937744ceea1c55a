/* SPDX-License-Identifier: MIT */
/* A small TAP producer for the C tests: plan, ok, skip, diagnostics. */
#ifndef GPUSORT_TAP_H
#define GPUSORT_TAP_H

#include <stdbool.h>

void tap_plan(int count);
void tap_plan_skip_all(const char *reason);
/* Prints "ok N - name" or "not ok N - name"; returns the condition. */
bool tap_ok(bool condition, const char *format, ...) __attribute__((format(printf, 2, 3)));
void tap_skip(int count, const char *reason);
void tap_diag(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* Prints the plan when none was given first and returns the exit status (0, or 1 if
 * any assertion failed). */
int tap_done(void);

#endif
