/* SPDX-License-Identifier: MIT */
/* A range of a file mapped: allocated for writing, or in memory for reading (see file_map.h). */
#include "config.h"
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include "fault_inject.h"
#include "file_map.h"
#include "safe_fd.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

bool file_in_memory(int fd)
{
	struct statfs fs;
	return fstatfs(fd, &fs) == 0 && fs.f_type == TMPFS_MAGIC;
}

/* Faults in [bytes, bytes + length) for writing: 0, or why the pages cannot be had
 * (EFAULT where a copy would have met SIGBUS: no room in a tmpfs). */
static int populate(unsigned char *bytes, size_t length)
{
	if (madvise(bytes, length, MADV_POPULATE_WRITE) == 0)
		return 0;
	return errno == EFAULT ? -ENOSPC : -errno;
}

/* Maps the whole pages around [offset, offset + length) of fd with prot into map
 * (in_memory left false); false where it cannot. */
static bool map_pages(int fd, uint64_t offset, uint64_t length, int prot, struct file_map *map)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), from = offset / page * page;
	if (offset + length - from > SIZE_MAX)
		return false;
	size_t mapped = (size_t)(offset + length - from);
	void *bytes = mmap(NULL, mapped, prot, MAP_SHARED, fd, (off_t)from);
	if (bytes == MAP_FAILED)
		return false;
	*map = (struct file_map){bytes, from, mapped, false, FAULT_NONE};
	return true;
}

int file_map_range(int fd, uint64_t offset, uint64_t length, bool sole, struct file_map *map)
{
	*map = (struct file_map){.bytes = NULL};
	int mode = fcntl(fd, F_GETFL);
	bool in_memory = file_in_memory(fd);
	struct stat st;
	if (length == 0 || mode < 0 || (mode & O_ACCMODE) != O_RDWR || (in_memory && !sole) || fstat(fd, &st) != 0)
		return 0;
	int error = fault_at_fd(fd);
	if (error < 0)
		return error;
	if (in_memory) {
		if ((uint64_t)st.st_size < offset + length && ftruncate(fd, (off_t)(offset + length)) != 0)
			return errno == EFBIG ? -EFBIG : 0;
	} else if (fallocate(fd, 0, (off_t)offset, (off_t)length) != 0)
		return errno == ENOSPC || errno == EDQUOT || errno == EFBIG ? -errno : 0;
	if (!map_pages(fd, offset, length, PROT_READ | PROT_WRITE, map))
		return 0;
	/* a kernel that cannot fault pages in ahead gets no tmpfs mapping (SIGBUS when full) */
	map->in_memory = in_memory;
	map->fault = fault_tag_of(fd);
	if (in_memory && populate(map->bytes, 1) == -EINVAL)
		file_map_release(map);
	return 0;
}

void file_map_read(const char *path, uint64_t offset, uint64_t length, struct file_map *map)
{
	*map = (struct file_map){.bytes = NULL};
	int fd = fd_safer(open(path, O_RDONLY | O_CLOEXEC));
	if (fd < 0)
		return;
	struct stat st;
	if (length && file_in_memory(fd) && fstat(fd, &st) == 0 && offset + length <= (uint64_t)st.st_size &&
	    map_pages(fd, offset, length, PROT_READ, map))
		madvise(map->bytes, map->length, MADV_SEQUENTIAL);
	close(fd);
}

int file_map_copy(const struct file_map *map, uint64_t offset, const void *bytes, size_t length)
{
	if (!map->bytes || offset < map->from || offset + length > map->from + map->length)
		return 0;
	int fault = fault_at((enum fault_point)map->fault);
	if (fault < 0)
		return fault;
	unsigned char *to = map->bytes + (offset - map->from);
	if (map->in_memory) {
		/* whole pages around the copy: already faulted in, this only checks them */
		uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), skip = (uint64_t)(offset - map->from) % page;
		int error = length ? populate(to - skip, (size_t)(skip + length)) : 0;
		if (error)
			return error;
	}
	memcpy(to, bytes, length);
	return 1;
}

void file_map_prefault(const struct file_map *map, uint64_t offset, uint64_t length)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), end = offset + length;
	uint64_t map_end = map->from + map->length;
	if (!map->bytes || offset >= map_end || end <= map->from)
		return;
	offset = offset > map->from ? offset / page * page : map->from;
	end = end < map_end ? end : map_end;
	/* an older kernel says EINVAL and the copies fault the pages in themselves */
	(void)madvise(map->bytes + (offset - map->from), (size_t)(end - offset), MADV_POPULATE_WRITE);
}

static void *prefault_main(void *context)
{
	struct file_prefault_part *part = context;
	uint64_t done = 0;
	do {
		uint64_t piece = part->length - done < FILE_PREFAULT_PIECE_BYTES ? part->length - done
										 : FILE_PREFAULT_PIECE_BYTES;
		file_map_prefault(part->map, part->offset + done, piece);
		done += piece;
	} while (done < part->length && !atomic_load(part->stop));
	return NULL;
}

void file_prefault_start(struct file_prefault *prefault, const struct file_map *map, uint64_t offset,
			 uint64_t length)
{
	memset(prefault->parts, 0, sizeof prefault->parts);
	atomic_store(&prefault->stop, false);
	if (!map->bytes || length == 0)
		return;
	uint64_t each = length / FILE_PREFAULT_THREADS + 1;
	for (unsigned i = 0; i < FILE_PREFAULT_THREADS && i * each < length; i++) {
		struct file_prefault_part *part = &prefault->parts[i];
		uint64_t left = length - i * each;
		*part = (struct file_prefault_part){
			.map = map, .offset = offset + i * each, .length = left < each ? left : each, .stop = &prefault->stop};
		part->started = pthread_create(&part->thread, NULL, prefault_main, part) == 0;
	}
}

void file_prefault_stop(struct file_prefault *prefault)
{
	atomic_store(&prefault->stop, true);
	for (unsigned i = 0; i < FILE_PREFAULT_THREADS; i++)
		if (prefault->parts[i].started)
			pthread_join(prefault->parts[i].thread, NULL);
	memset(prefault->parts, 0, sizeof prefault->parts);
}

void file_map_release(struct file_map *map)
{
	if (map->bytes)
		munmap(map->bytes, map->length);
	*map = (struct file_map){.bytes = NULL};
}

int file_map_wanted(int forced, uint64_t bytes, uint64_t min_bytes)
{
	return forced == 0 || forced == 1 ? forced : bytes >= min_bytes;
}
