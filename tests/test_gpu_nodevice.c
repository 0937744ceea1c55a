/* SPDX-License-Identifier: MIT */
/* Without a usable CUDA device, gpu_cuda.open fails cleanly with -ENODEV and CUDA's
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
	int rc = gpu_cuda.open(0, 0, &backend, reason, sizeof reason);
	tap_plan(2);
	if (rc == 0) {
		tap_ok(backend != NULL && gpu_cuda.device_name(backend)[0] != 0, "device opens: %s",
		       gpu_cuda.device_name(backend));
		tap_ok(gpu_cuda.capacity(backend, ITEM_U32) >= gpu_cuda.capacity(backend, ITEM_U64),
		       "capacity is larger for narrower items");
		gpu_cuda.close(backend);
	} else {
		tap_ok(rc == -ENODEV, "no device: -ENODEV (%d)", rc);
		tap_ok(strlen(reason) > 0, "with a reason: %s", reason);
	}
	return tap_done();
}
