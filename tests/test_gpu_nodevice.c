/* SPDX-License-Identifier: MIT */
/* Without a usable CUDA device, gpu_backend_open fails cleanly with -ENODEV and CUDA's
 * reason, so the engine can fall back to the CPU. With a device it opens. */
#include "config.h"
#include <errno.h>
#include <string.h>
#include "kernels/gpu_backend.h"
#include "tap.h"

int main(void)
{
	struct gpu_backend *backend = NULL;
	char reason[256] = "";
	int rc = gpu_backend_open(0, 0, &backend, reason, sizeof reason);
	tap_plan(2);
	if (rc == 0) {
		tap_ok(backend != NULL && gpu_backend_device_name(backend)[0] != 0, "device opens: %s",
		       gpu_backend_device_name(backend));
		tap_ok(gpu_backend_capacity(backend, ITEM_U32) >= gpu_backend_capacity(backend, ITEM_U64),
		       "capacity is larger for narrower items");
		gpu_backend_close(backend);
	} else {
		tap_ok(rc == -ENODEV, "no device: -ENODEV (%d)", rc);
		tap_ok(strlen(reason) > 0, "with a reason: %s", reason);
	}
	return tap_done();
}
