/* SPDX-License-Identifier: MIT */
/* gpu_cuda.expose_only: a process that uses one GPU has the driver told of that one
 * alone (CUDA_VISIBLE_DEVICES), never over the environment's own setting, and keeps the
 * device numbers: the exposed device opens under its number, the others are hidden.
 * Without a GPU both opens fail cleanly with -ENODEV. */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels/gpu_backend.h"
#include "tap.h"

static bool env_is(const char *value)
{
	const char *set = getenv("CUDA_VISIBLE_DEVICES");
	return value ? set && strcmp(set, value) == 0 : set == NULL;
}

int main(void)
{
	tap_plan(9);
	unsetenv("CUDA_VISIBLE_DEVICES");
	int nodes = gpu_cuda.device_nodes();
	tap_ok(nodes >= 0, "the driver's device nodes counted without starting it: %d", nodes);

	tap_ok(!gpu_cuda.expose_only(0, 0) && env_is(NULL), "no device below the count: nothing set");
	setenv("CUDA_VISIBLE_DEVICES", "7", 1);
	tap_ok(!gpu_cuda.expose_only(0, 2) && env_is("7"), "the environment's own setting is kept");
	unsetenv("CUDA_VISIBLE_DEVICES");

	/* the second GPU where there are two or more, to show the numbers kept */
	int count = nodes > 0 ? nodes : 2, chosen = count > 1 ? 1 : 0, other = chosen ? 0 : 1;
	char number[16];
	snprintf(number, sizeof number, "%d", chosen);
	tap_ok(gpu_cuda.expose_only(chosen, count) && env_is(number), "device %d exposed alone", chosen);
	tap_ok(gpu_cuda.expose_only(chosen, count), "exposing it again agrees");
	tap_ok(!gpu_cuda.expose_only(other, count) && env_is(number), "another device is not exposed after it");

	struct gpu_backend *backend = NULL;
	char reason[256] = "";
	int rc = gpu_cuda.open(chosen, 0, &backend, reason, sizeof reason);
	if (nodes > 0) {
		tap_ok(rc == 0 && backend, "device %d opens under its own number: %s", chosen,
		       rc == 0 ? gpu_cuda.device_name(backend) : reason);
		tap_ok(gpu_cuda.device_count() == count, "the device count is still all of them (%d)",
		       gpu_cuda.device_count());
	} else {
		tap_ok(rc == -ENODEV && reason[0], "no GPU: -ENODEV with a reason: %s", reason);
		tap_ok(gpu_cuda.device_count() == 0, "no GPU: no device counted");
	}
	if (backend)
		gpu_cuda.close(backend);
	backend = NULL;
	reason[0] = '\0';
	rc = gpu_cuda.open(other, 0, &backend, reason, sizeof reason);
	tap_ok(rc == -ENODEV && !backend && (nodes == 0 || strstr(reason, "alone")),
	       "the hidden device %d does not open: %s", other, reason);
	return tap_done();
}
