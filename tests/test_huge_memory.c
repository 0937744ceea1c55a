/* SPDX-License-Identifier: MIT */
/* huge_memory_grow: from nothing, from malloc's sizes into a mapping and from mapping to
 * mapping, every byte kept, the memory 64-byte aligned and, once mapped, huge-page
 * aligned; populated and freed after any number of moves. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "kernels/huge_memory.h"
#include "kernels/thread_pool.h"
#include "tests/tap.h"

#define HUGE_PAGE ((uintptr_t)2 << 20)

static void fill(unsigned char *memory, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		memory[i] = (unsigned char)(i * 131 + (i >> 12));
}

static bool kept(const unsigned char *memory, size_t bytes)
{
	for (size_t i = 0; i < bytes; i++)
		if (memory[i] != (unsigned char)(i * 131 + (i >> 12)))
			return false;
	return true;
}

int main(void)
{
	struct thread_pool *pool = NULL;
	if (thread_pool_create(2, &pool) != 0)
		tap_plan_skip_all("no thread pool");
	/* doubling from 64 KiB (malloc) past 4 MiB (a mapping of its own) to 64 MiB */
	unsigned char *memory = huge_memory_grow(NULL, 0, (size_t)64 << 10);
	tap_ok(memory && (uintptr_t)memory % 64 == 0, "from nothing: 64 KiB, 64-byte aligned");
	size_t bytes = (size_t)64 << 10;
	if (memory)
		fill(memory, 0, bytes);
	while (memory && bytes < ((size_t)64 << 20)) {
		unsigned char *grown = huge_memory_grow(memory, bytes, 2 * bytes);
		bool mapped = 2 * bytes >= ((size_t)4 << 20);
		tap_ok(grown && kept(grown, bytes) && (!mapped || (uintptr_t)grown % HUGE_PAGE == 0),
		       "%zu KiB to %zu KiB: every byte kept%s", bytes >> 10, bytes >> 9, mapped ? ", huge-page aligned" : "");
		if (!grown)
			break;
		memory = grown;
		fill(memory, bytes, 2 * bytes);
		bytes *= 2;
	}
	/* by an odd amount, and no smaller: the same memory back */
	unsigned char *grown = memory ? huge_memory_grow(memory, bytes, bytes + 12345) : NULL;
	tap_ok(grown && kept(grown, bytes) && (uintptr_t)grown % HUGE_PAGE == 0, "by 12345 bytes: every byte kept");
	if (grown) {
		memory = grown;
		fill(memory, bytes, bytes + 12345);
		bytes += 12345;
	}
	tap_ok(memory && huge_memory_grow(memory, bytes, bytes / 2) == memory, "to less: the same memory");
	if (memory) {
		void *arrays[1] = {memory};
		huge_memory_populate(pool, arrays, &bytes, 1);
		tap_ok(kept(memory, bytes), "populated after the moves: every byte kept");
	}
	huge_memory_free(memory);
	thread_pool_destroy(pool);
	return tap_done();
}
