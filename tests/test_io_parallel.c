/* SPDX-License-Identifier: MIT */
/* parallel_io: the pieces of a split transfer cover [0, len) exactly, in order and
 * page-aligned, for every thread count the machine could pick (1 to 16) and lengths
 * around every multiple of count pages; and a read and a write of lengths that are not
 * page multiples move every byte. (The old split lost len % count bytes: one key of a
 * 2^25 + 1 key file on a 16-core machine.) */
#include "config.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "io/parallel_io.h"
#include "tests/tap.h"

static int pieces_cover(size_t len, unsigned count)
{
	size_t expect = 0;
	for (unsigned i = 0; i < count; i++) {
		size_t begin, end;
		parallel_io_piece(len, count, i, &begin, &end);
		if (begin != expect || end < begin || (begin % 4096 && begin != len))
			return 0;
		expect = end;
	}
	return expect == len;
}

static int round_trip(const char *path, size_t len)
{
	unsigned char *data = malloc(len), *back = malloc(len + 4096);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600), ok = 0;
	if (data && back && fd >= 0) {
		for (size_t i = 0; i < len; i++)
			data[i] = (unsigned char)(i * 2654435761u >> 13);
		memset(back, 0, len + 4096);
		/* the read asks for more than the file holds, as the record reader does */
		ok = parallel_pwrite(fd, data, len, 0) == 0 &&
		     parallel_pread(fd, back, len + 4096, 0) == (ssize_t)len &&
		     memcmp(data, back, len) == 0;
	}
	if (fd >= 0)
		close(fd);
	unlink(path);
	free(data);
	free(back);
	return ok;
}

int main(void)
{
	for (unsigned count = 1; count <= 16; count++) {
		int all = 1;
		size_t tried = 0;
		for (size_t pages = 0; pages <= 2048 && all; pages += pages < 16 ? 1 : 509) {
			size_t base = pages * 4096 * count;
			for (long delta = -(long)count - 1; delta <= (long)count + 1 && all; delta++) {
				if ((long)base + delta < 0)
					continue;
				all = pieces_cover((size_t)((long)base + delta), count);
				tried++;
			}
		}
		/* and the sizes of the report: 2^25 + 1 u32 keys, read with one record more */
		all = all && pieces_cover(((size_t)1 << 27) + 8, count) && pieces_cover(((size_t)1 << 27) + 4, count);
		tap_ok(all, "%u pieces cover every length (%zu lengths around multiples of %u pages)", count, tried, count);
	}
	char path[] = "/tmp/test_io_parallel.XXXXXX";
	int fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
	static const size_t lengths[] = { 1, 4095, 4097, ((size_t)32 << 20) + 1, ((size_t)48 << 20) + 12345 };
	for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++)
		tap_ok(fd >= 0 && round_trip(path, lengths[i]), "write and read back %zu bytes", lengths[i]);
	return tap_done();
}
