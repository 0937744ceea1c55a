/* SPDX-License-Identifier: MIT */
/* Can the GPUs copy straight from and to the files' pages, and how fast? Issue 17's
 * floor (and issue 16 item 3's) assumed every byte crosses host memory by a CPU copy
 * on its way in (page cache -> pinned staging) and out (pinned staging -> the output's
 * pages). This probe registers the pages themselves with the driver and times the
 * copies, so the floor can be measured instead of assumed:
 *  - the input, an ext4 (or any) file mapped read-only: cudaHostRegisterReadOnly;
 *  - a new output file mapped for writing (the kernel may refuse long-term pins of a
 *    writable file mapping that needs dirty tracking);
 *  - a new file on /dev/shm (tmpfs), where ranks keep their runs;
 *  - fresh anonymous memory, and cudaMallocHost, for reference;
 *  - anonymous memory already faulted in (huge pages and 4 KiB pages), as the engine's
 *    host buffer is once the input is read into it;
 *  - every GPU at once registering its share of the input and copying it in, and out
 *    into registered fresh memory: the aggregate the host's memory allows.
 * Each line says what was tried, whether the driver took it (its error if not), the
 * seconds the registration took and the copy's rate. The bytes that come back are
 * compared with the input's.
 * Usage: host_register_probe INPUT OUTPUT_DIR SHM_DIR
 *   INPUT: an existing file, a multiple of 4096 bytes (read into the page cache first)
 * Build: nvcc -O2 -arch=sm_90 -o host_register_probe host_register_probe.cu -lpthread */
#include <cuda_runtime.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static double gbps(size_t bytes, double seconds)
{
	return seconds > 0 ? bytes / seconds / 1e9 : 0;
}

/* the shorter of two copies, in seconds */
static double best_copy(void *to, const void *from, size_t length, cudaMemcpyKind kind)
{
	double best = 1e9;
	for (int round = 0; round < 2; round++) {
		double t0 = now();
		cudaMemcpy(to, from, length, kind);
		double s = now() - t0;
		best = s < best ? s : best;
	}
	return best;
}

/* maps a new file of `length` bytes in `dir` for writing; NULL on failure */
static void *map_new_file(const char *dir, const char *name, size_t length, char *path, size_t path_size)
{
	snprintf(path, path_size, "%s/%s", dir, name);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)length) != 0) {
		perror(path);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	void *p = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

/* registers `p` and copies the device buffer into it; prints one line */
static void probe_output(const char *what, void *p, size_t length, const void *device, const void *expect,
	unsigned flags)
{
	double t0 = now();
	cudaError_t e = cudaHostRegister(p, length, flags);
	double registered = now() - t0;
	if (e != cudaSuccess) {
		cudaGetLastError();
		printf("%-44s refused: %s (%.3f s)\n", what, cudaGetErrorString(e), registered);
		return;
	}
	double best = best_copy(p, device, length, cudaMemcpyDeviceToHost);
	int same = memcmp(p, expect, length) == 0;
	t0 = now();
	cudaHostUnregister(p);
	double unregistered = now() - t0;
	printf("%-44s register %.3f s, copy out %.3f s (%.1f GB/s), unregister %.3f s, bytes %s\n", what,
		registered, best, gbps(length, best), unregistered, same ? "identical" : "DIFFER");
}

struct share {
	int gpu;
	const char *in;
	char *out;
	size_t length;
	double h2d, d2h, reg_in, reg_out;
	cudaError_t error;
};

/* one GPU registers its share of the input and copies it in, then out into registered
 * fresh memory */
static void *copy_share(void *arg)
{
	struct share *s = (struct share *)arg;
	cudaSetDevice(s->gpu);
	void *d;
	if ((s->error = cudaMalloc(&d, s->length)) != cudaSuccess)
		return NULL;
	double t0 = now();
	if ((s->error = cudaHostRegister((void *)s->in, s->length, cudaHostRegisterReadOnly)) != cudaSuccess)
		return NULL;
	s->reg_in = now() - t0;
	t0 = now();
	if ((s->error = cudaHostRegister(s->out, s->length, 0)) != cudaSuccess)
		return NULL;
	s->reg_out = now() - t0;
	cudaMemcpy(d, s->in, s->length, cudaMemcpyHostToDevice); /* warm */
	t0 = now();
	cudaMemcpy(d, s->in, s->length, cudaMemcpyHostToDevice);
	s->h2d = now() - t0;
	t0 = now();
	s->error = cudaMemcpy(s->out, d, s->length, cudaMemcpyDeviceToHost);
	s->d2h = now() - t0;
	cudaHostUnregister(s->out);
	cudaHostUnregister((void *)s->in);
	cudaFree(d);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s INPUT OUTPUT_DIR SHM_DIR\n", argv[0]);
		return 2;
	}
	int fd = open(argv[1], O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		perror(argv[1]);
		return 1;
	}
	size_t length = (size_t)st.st_size;
	const char *in = (const char *)mmap(NULL, length, PROT_READ, MAP_SHARED, fd, 0);
	if (in == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	int gpus = 0;
	double t0 = now();
	if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0) {
		fprintf(stderr, "no GPU\n");
		return 1;
	}
	cudaFree(0);
	printf("input %.2f GiB, %d GPUs, context %.3f s\n", length / 1073741824.0, gpus, now() - t0);
	void *device;
	if (cudaMalloc(&device, length) != cudaSuccess) {
		fprintf(stderr, "cudaMalloc of the input's size failed\n");
		return 1;
	}

	/* in: the input's page-cache pages, read-only */
	t0 = now();
	cudaError_t e = cudaHostRegister((void *)in, length, cudaHostRegisterReadOnly | cudaHostRegisterPortable);
	double registered = now() - t0;
	int input_registered = e == cudaSuccess;
	if (!input_registered) {
		cudaGetLastError();
		printf("%-44s refused: %s (%.3f s)\n", "input file, read-only mapping", cudaGetErrorString(e),
			registered);
		e = cudaHostRegister((void *)in, length, cudaHostRegisterPortable);
		printf("%-44s %s\n", "input file, default flags", cudaGetErrorString(e));
		cudaGetLastError();
		input_registered = e == cudaSuccess;
	}
	double best = best_copy(device, in, length, cudaMemcpyHostToDevice);
	printf("%-44s register %.3f s, copy in %.3f s (%.1f GB/s)%s\n", "input file's pages", registered, best,
		gbps(length, best), input_registered ? "" : " (not registered: the driver staged it)");

	/* reference: the copy that staging pays today, page cache -> pinned, and pinned -> GPU */
	size_t chunk = (size_t)1 << 30 < length ? (size_t)1 << 30 : length;
	void *pinned;
	cudaMallocHost(&pinned, chunk);
	memcpy(pinned, in, chunk);
	t0 = now();
	memcpy(pinned, in, chunk);
	double copy = now() - t0;
	t0 = now();
	cudaMemcpy(device, pinned, chunk, cudaMemcpyHostToDevice);
	double dma = now() - t0;
	printf("%-44s memcpy %.1f GB/s (one thread), copy in %.1f GB/s\n", "1 GiB through cudaMallocHost staging",
		gbps(chunk, copy), gbps(chunk, dma));
	cudaFreeHost(pinned);

	/* out: a new file on the output's file system, one on tmpfs, fresh anonymous memory */
	char path[4096];
	void *p = map_new_file(argv[2], "probe.out", length, path, sizeof path);
	if (p) {
		probe_output("new output file, shared writable mapping", p, length, device, in, 0);
		munmap(p, length);
		unlink(path);
	}
	p = map_new_file(argv[3], "probe.shm", length, path, sizeof path);
	if (p) {
		probe_output("new tmpfs file, shared writable mapping", p, length, device, in, 0);
		munmap(p, length);
		unlink(path);
	}
	p = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED) {
		probe_output("fresh anonymous memory", p, length, device, in, 0);
		munmap(p, length);
	}
	/* the engine's host buffer when a sort begins: anonymous memory the read has faulted
	 * in already, on huge pages (madvise) and on 4 KiB pages */
	for (int huge = 1; huge >= 0; huge--) {
		p = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			continue;
		madvise(p, length, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
		memset(p, 1, length);
		probe_output(huge ? "anonymous, faulted in, huge pages" : "anonymous, faulted in, 4 KiB pages", p, length,
			device, in, 0);
		munmap(p, length);
	}
	cudaFree(device);

	/* every GPU at once: its share of the input registered and copied in, out into
	 * registered fresh memory */
	if (input_registered)
		cudaHostUnregister((void *)in);
	for (int n = 1; n <= gpus && input_registered; n *= 2) {
		struct share shares[16];
		pthread_t threads[16];
		size_t each = length / n / 4096 * 4096;
		char *out = (char *)mmap(NULL, each * n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		double start = now();
		for (int g = 0; g < n; g++) {
			shares[g] = (struct share){ g, in + g * each, out + g * each, each, 0, 0, 0, 0, cudaSuccess };
			pthread_create(&threads[g], NULL, copy_share, &shares[g]);
		}
		double slowest_in = 0, slowest_out = 0, slowest_reg_in = 0, slowest_reg_out = 0;
		int failed = 0;
		for (int g = 0; g < n; g++) {
			pthread_join(threads[g], NULL);
			failed |= shares[g].error != cudaSuccess;
			slowest_in = shares[g].h2d > slowest_in ? shares[g].h2d : slowest_in;
			slowest_out = shares[g].d2h > slowest_out ? shares[g].d2h : slowest_out;
			slowest_reg_in = shares[g].reg_in > slowest_reg_in ? shares[g].reg_in : slowest_reg_in;
			slowest_reg_out = shares[g].reg_out > slowest_reg_out ? shares[g].reg_out : slowest_reg_out;
		}
		double wall = now() - start;
		printf("%d GPU(s) at once, %.2f GiB each: register in %.3f s, out %.3f s, copy in %.1f GB/s, "
		       "out %.1f GB/s (aggregate), wall %.3f s, bytes %s%s\n",
			n, each / 1073741824.0, slowest_reg_in, slowest_reg_out, gbps(each * n, slowest_in), gbps(each * n, slowest_out), wall,
			memcmp(out, in, each * n) == 0 ? "identical" : "DIFFER", failed ? ", an error" : "");
		munmap(out, each * n);
	}
	return 0;
}
