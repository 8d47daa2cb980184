// SPDX-License-Identifier: GPL-2.0
/*
 * micro - regression probes of the page allocator's fast paths, in the spirit
 * of an lmbench summary, to show what the series costs at its defaults.
 *
 *   pf       page-fault throughput: map 64 MiB, touch every 4 KiB page, unmap,
 *            in a loop (as will-it-scale's page_fault1 does): pages/s
 *   pflat    page-fault latency: the same, timing each fault: median ns
 *   fork     fork + exit + wait of a child with 16 MiB touched: us/op
 *   mmap     mmap + touch one page + munmap of 1 MiB: us/op
 *
 * Output: one JSON object: the figure, and user/sys CPU ms of the process and
 * its children from getrusage().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE	4096UL

static const char *myname = "micro";

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static char *map_anon(size_t size)
{
	char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		fprintf(stderr, "%s: mmap: %s\n", myname, strerror(errno));
		exit(1);
	}
	madvise(p, size, MADV_NOHUGEPAGE);
	return p;
}

static void print_cpu(void)
{
	struct rusage self, kids;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	printf(", \"user_ms\": %.1f, \"sys_ms\": %.1f}\n",
	       (self.ru_utime.tv_sec + kids.ru_utime.tv_sec) * 1e3 +
	       (self.ru_utime.tv_usec + kids.ru_utime.tv_usec) / 1e3,
	       (self.ru_stime.tv_sec + kids.ru_stime.tv_sec) * 1e3 +
	       (self.ru_stime.tv_usec + kids.ru_stime.tv_usec) / 1e3);
}

static void page_faults(long loops)
{
	size_t size = 64UL << 20, off;
	uint64_t t0 = now_ns(), t;
	long i;

	for (i = 0; i < loops; i++) {
		char *p = map_anon(size);

		for (off = 0; off < size; off += PAGE)
			p[off] = 1;
		munmap(p, size);
	}
	t = now_ns() - t0;
	printf("{\"probe\": \"pf\", \"unit\": \"pages/s\", \"value\": %.0f, \"wall_ms\": %.1f",
	       loops * (size / PAGE) / (t / 1e9), t / 1e6);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void fault_latency(long loops)
{
	size_t size = 16UL << 20, n = size / PAGE, off, k = 0;
	uint32_t *v = calloc(n * loops, sizeof(*v));
	uint64_t t0 = now_ns();
	long i;

	if (!v)
		exit(1);
	for (i = 0; i < loops; i++) {
		char *p = map_anon(size);

		for (off = 0; off < size; off += PAGE) {
			uint64_t a = now_ns();

			p[off] = 1;
			v[k++] = now_ns() - a;
		}
		munmap(p, size);
	}
	qsort(v, k, sizeof(*v), cmp_u32);
	printf("{\"probe\": \"pflat\", \"unit\": \"ns\", \"value\": %u, \"p99_ns\": %u, \"wall_ms\": %.1f",
	       v[k / 2], v[k * 99 / 100], (now_ns() - t0) / 1e6);
	free(v);
}

static void fork_exit(long loops)
{
	size_t size = 16UL << 20;
	char *p = map_anon(size);
	uint64_t t0;
	long i;

	memset(p, 1, size);
	t0 = now_ns();
	for (i = 0; i < loops; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "%s: fork: %s\n", myname, strerror(errno));
			exit(1);
		}
		if (pid == 0)
			_exit(0);
		waitpid(pid, NULL, 0);
	}
	printf("{\"probe\": \"fork\", \"unit\": \"us/op\", \"value\": %.2f, \"wall_ms\": %.1f",
	       (now_ns() - t0) / 1e3 / loops, (now_ns() - t0) / 1e6);
}

static void mmap_munmap(long loops)
{
	size_t size = 1UL << 20;
	uint64_t t0 = now_ns();
	long i;

	for (i = 0; i < loops; i++) {
		char *p = map_anon(size);

		p[0] = 1;
		munmap(p, size);
	}
	printf("{\"probe\": \"mmap\", \"unit\": \"us/op\", \"value\": %.2f, \"wall_ms\": %.1f",
	       (now_ns() - t0) / 1e3 / loops, (now_ns() - t0) / 1e6);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(long loops);
		long loops;
	} probes[] = {
		{ "pf", page_faults, 8 },
		{ "pflat", fault_latency, 8 },
		{ "fork", fork_exit, 300 },
		{ "mmap", mmap_munmap, 20000 },
	};
	unsigned int i;
	char *end;
	long loops;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s pf|pflat|fork|mmap [LOOPS]\n", myname);
		return 2;
	}
	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		if (strcmp(argv[1], probes[i].name))
			continue;
		loops = probes[i].loops;
		if (argc == 3) {
			errno = 0;
			loops = strtol(argv[2], &end, 10);
			if (errno || *end || loops < 1 || loops > 10000000) {
				fprintf(stderr, "%s: LOOPS wants a positive integer, not '%s'\n",
					myname, argv[2]);
				return 2;
			}
		}
		probes[i].fn(loops);
		print_cpu();
		return 0;
	}
	fprintf(stderr, "%s: unknown probe '%s'; want pf, pflat, fork or mmap\n",
		myname, argv[1]);
	return 2;
}
