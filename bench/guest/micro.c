// SPDX-License-Identifier: GPL-2.0
/*
 * micro - regression probes of the page allocator's fast paths, in the forms
 * mm reviewers read (will-it-scale, lmbench), to show what the series costs
 * at its defaults.
 *
 *   pf       will-it-scale page_fault1: map 64 MiB private anonymous, write
 *            every 4 KiB page, unmap, in a loop: pages/s
 *   pf2      will-it-scale page_fault2: the same on a private mapping of a
 *            64 MiB tmpfs file (each write copies a page-cache page): pages/s
 *   pflat    page-fault latency: pf, timing each fault: median ns
 *   fork     fork + exit + wait of a child with 16 MiB touched: us/op
 *   mmap     mmap + touch one page + munmap of 1 MiB: us/op
 *   build    a build-like load: gcc -O2 -c bench/guest/storm.c (run from the
 *            repository's top folder): ms/op
 *   lock     a spin lock's acquire and release (lock cmpxchg, then a
 *            release store: qspinlock's fast path) around an increment, on
 *            one shared line: ns/op.  With -p 2 two processes bound to CPUs 0
 *            and 1 take turns on the same lock (contended); alone, the
 *            atomic's own cost.  Not a regression probe: it asks what an
 *            emulator charges for the instruction that takes zone->lock
 *   add      the same loop with a plain increment and no lock: ns/op, the
 *            baseline the lock's figure is read against
 *   sys      getppid(2) in a loop: ns/op.  Not a regression probe: with a
 *            kprobe on __x64_sys_getppid's ret instruction against none, it
 *            gives what one int3 probe costs (bench/guest/guest-run's waits phase)
 *
 * -p N runs pf or pf2 in N processes at once, process i bound to CPU
 * i % (online CPUs), as will-it-scale's per-CPU mode does; the figure is the
 * sum over the processes, timed from a common start to the last exit.
 * Without -p the probe runs bound to CPU 0.
 *
 * Every probe runs with address-space randomisation off (it re-executes
 * itself with ADDR_NO_RANDOMIZE, as setarch -R does): with it, where a
 * mapping falls decides whether it shares a page table with another one,
 * and mmap's cost took one of two values from run to run (21.0 or 27.1
 * us/op in icount time; 21.04 to 21.09 without).
 *
 * Output: one JSON object: the figure, and user/sys CPU ms of the process and
 * its children from getrusage().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *myname = "micro";

#include "util.h"

static void print_cpu(void)
{
	double user, sys;

	cpu_ms(&user, &sys);
	printf(", \"user_ms\": %.1f, \"sys_ms\": %.1f}\n", user, sys);
}

/* Bind to CPU; a failure is only a warning */
static void bind_cpu(long cpu)
{
	if (run_on_cpu(cpu))
		fprintf(stderr, "%s: binding to CPU %ld: %s\n", myname, cpu, strerror(errno));
}

#define PF_SIZE	(64UL << 20)

/* A 64 MiB file on the guest's tmpfs, filled, for page_fault2 */
static int pf2_file(void)
{
	char path[] = "/tmp/micro-pf2.XXXXXX";
	static char buf[1 << 16];
	size_t off;
	int fd = mkstemp_or_die(path);

	unlink(path);
	memset(buf, 1, sizeof(buf));
	for (off = 0; off < PF_SIZE; off += sizeof(buf)) {
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			fprintf(stderr, "%s: writing %s: %s\n", myname, path, strerror(errno));
			exit(1);
		}
	}
	return fd;
}

/* One process's loops of page_fault1 (fd < 0) or page_fault2 */
static void fault_loops(long loops, int fd)
{
	size_t off;
	long i;

	for (i = 0; i < loops; i++) {
		char *p;

		if (fd < 0) {
			p = map_anon(PF_SIZE);
		} else {
			p = mmap(NULL, PF_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
			if (p == MAP_FAILED)
				die("mmap");
		}
		for (off = 0; off < PF_SIZE; off += PAGE)
			p[off] = 1;
		munmap(p, PF_SIZE);
	}
}

/*
 * PROCS processes, process i bound to CPU i % (online CPUs) when @bind,
 * each running body(loops, arg) from a common start: the wall time from
 * that start to the last exit, in ns.  A failed process ends the probe.
 */
static uint64_t run_procs(const char *probe, int procs, int bind,
			  void (*body)(long loops, int arg), long loops, int arg)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int go[2], i, status, failed = 0;
	uint64_t t0, t;
	char c = 0;

	if (pipe(go))
		die("pipe");
	for (i = 0; i < procs; i++) {
		if (fork_or_die() == 0) {
			if (bind)
				bind_cpu(i % (ncpu > 0 ? ncpu : 1));
			close(go[1]);
			/* the common start: the parent closes its end */
			if (read(go[0], &c, 1) < 0)
				_exit(1);
			body(loops, arg);
			_exit(0);
		}
	}
	close(go[0]);
	t0 = now_ns();
	close(go[1]);
	while (wait(&status) > 0)
		failed |= !WIFEXITED(status) || WEXITSTATUS(status);
	t = now_ns() - t0;
	if (failed) {
		fprintf(stderr, "%s: a %s process failed\n", myname, probe);
		exit(1);
	}
	return t;
}

static void page_faults_in(const char *probe, long loops, int procs, int file)
{
	int fd = file ? pf2_file() : -1;
	uint64_t t = run_procs(probe, procs, procs > 1, fault_loops, loops, fd);

	if (fd >= 0)
		close(fd);
	printf("{\"probe\": \"%s\", \"procs\": %d, \"unit\": \"pages/s\", \"value\": %.0f, \"wall_ms\": %.1f",
	       probe, procs, procs * loops * (PF_SIZE / PAGE) / (t / 1e9), t / 1e6);
}

static void page_faults(long loops, int procs)
{
	page_faults_in("pf", loops, procs, 0);
}

static void page_faults_file(long loops, int procs)
{
	page_faults_in("pf2", loops, procs, 1);
}

static void fault_latency(long loops, int procs __attribute__((unused)))
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

static void fork_exit(long loops, int procs __attribute__((unused)))
{
	size_t size = 16UL << 20;
	char *p = map_anon(size);
	uint64_t t0;
	long i;

	memset(p, 1, size);
	t0 = now_ns();
	for (i = 0; i < loops; i++) {
		pid_t pid = fork_or_die();

		if (pid == 0)
			_exit(0);
		waitpid(pid, NULL, 0);
	}
	printf("{\"probe\": \"fork\", \"unit\": \"us/op\", \"value\": %.2f, \"wall_ms\": %.1f",
	       (now_ns() - t0) / 1e3 / loops, (now_ns() - t0) / 1e6);
}

static void mmap_munmap(long loops, int procs __attribute__((unused)))
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

/* A shared word for lock and add: MAP_SHARED, so -p 2's processes share it */
static int *shared_words(void)
{
	int *w = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (w == MAP_FAILED)
		die("mmap");
	return w;
}

static int *words;	/* lock and add: w[0] the lock, w[1] the counter */

/* One process's loops, taking the lock around the increment when @locked */
static void lock_loops(long loops, int locked)
{
	int *w = words;
	long i;

	for (i = 0; i < loops; i++) {
		if (locked) {
			int zero = 0;

			while (!__atomic_compare_exchange_n(&w[0], &zero, 1, 0, __ATOMIC_ACQUIRE,
							    __ATOMIC_RELAXED)) {
				zero = 0;
				while (__atomic_load_n(&w[0], __ATOMIC_RELAXED))
					__builtin_ia32_pause();
			}
		}
		__atomic_store_n(&w[1], __atomic_load_n(&w[1], __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
		if (locked)
			__atomic_store_n(&w[0], 0, __ATOMIC_RELEASE);
	}
}

static void lock_probe(const char *probe, long loops, int procs, int locked)
{
	uint64_t t;

	words = shared_words();
	t = run_procs(probe, procs, 1, lock_loops, loops, locked);
	/* under the lock no increment is lost: a check that it excluded */
	if (locked && words[1] != procs * loops) {
		fprintf(stderr, "%s: %d increments under the lock, not %ld\n",
			myname, words[1], procs * loops);
		exit(1);
	}
	printf("{\"probe\": \"%s\", \"procs\": %d, \"unit\": \"ns/op\", \"value\": %.1f, \"wall_ms\": %.1f",
	       probe, procs, (double)t / (procs * loops), t / 1e6);
}

static void spin_lock(long loops, int procs)
{
	lock_probe("lock", loops, procs, 1);
}

static void plain_add(long loops, int procs)
{
	lock_probe("add", loops, procs, 0);
}

static void sys_getppid(long loops, int procs __attribute__((unused)))
{
	uint64_t t0 = now_ns();
	long i;

	/* syscall(): no libc wrapper may answer it without entering the kernel */
	for (i = 0; i < loops; i++)
		syscall(SYS_getppid);
	printf("{\"probe\": \"sys\", \"unit\": \"ns/op\", \"value\": %.1f, \"wall_ms\": %.1f",
	       (double)(now_ns() - t0) / loops, (now_ns() - t0) / 1e6);
}

static void build(long loops, int procs __attribute__((unused)))
{
	static const char *src = "bench/guest/storm.c";
	uint64_t t0 = now_ns();
	long i;

	if (access(src, R_OK)) {
		fprintf(stderr, "%s: build compiles %s: run from the repository's top folder\n",
			myname, src);
		exit(1);
	}
	for (i = 0; i < loops; i++) {
		int status;
		pid_t pid = fork_or_die();

		if (pid == 0) {
			execlp("gcc", "gcc", "-O2", "-Wall", "-c", src, "-o", "/dev/null",
			       (char *)NULL);
			fprintf(stderr, "%s: gcc: %s\n", myname, strerror(errno));
			_exit(127);
		}
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "%s: gcc -c %s failed\n", myname, src);
			exit(1);
		}
	}
	printf("{\"probe\": \"build\", \"unit\": \"ms/op\", \"value\": %.2f, \"wall_ms\": %.1f",
	       (now_ns() - t0) / 1e6 / loops, (now_ns() - t0) / 1e6);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(long loops, int procs);
		long loops;
		int parallel;
	} probes[] = {
		{ "pf", page_faults, 8, 1 },
		{ "pf2", page_faults_file, 8, 1 },
		{ "pflat", fault_latency, 8, 0 },
		{ "fork", fork_exit, 300, 0 },
		{ "mmap", mmap_munmap, 20000, 0 },
		{ "build", build, 3, 0 },
		{ "lock", spin_lock, 2000000, 1 },
		{ "add", plain_add, 2000000, 0 },
		{ "sys", sys_getppid, 200000, 0 },
	};
	unsigned int i;
	long loops, procs = 1;
	int opt, persona = personality(0xffffffff);

	if (persona != -1 && !(persona & ADDR_NO_RANDOMIZE)) {
		if (personality(persona | ADDR_NO_RANDOMIZE) != -1)
			execv("/proc/self/exe", argv);
		fprintf(stderr, "%s: cannot turn address-space randomisation off (%s): figures may vary with the layout\n",
			myname, strerror(errno));
	}
	while ((opt = getopt(argc, argv, "p:")) != -1) {
		if (opt != 'p')
			goto usage;
		procs = number("-p", optarg, 1, 1024);
	}
	if (argc - optind < 1 || argc - optind > 2)
		goto usage;
	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		if (strcmp(argv[optind], probes[i].name))
			continue;
		if (procs > 1 && !probes[i].parallel) {
			fprintf(stderr, "%s: -p is for pf, pf2 and lock only\n", myname);
			return 2;
		}
		loops = probes[i].loops;
		if (argc - optind == 2)
			loops = number("LOOPS", argv[optind + 1], 1, 10000000);
		/*
		 * One process stays on CPU 0, as will-it-scale binds its
		 * tasks: a migration in the middle would add IPIs (TLB
		 * shootdowns) whose cost depends on the other CPU.
		 */
		if (procs == 1)
			bind_cpu(0);
		probes[i].fn(loops, procs);
		print_cpu();
		return 0;
	}
	fprintf(stderr, "%s: unknown probe '%s'\n", myname, argv[optind]);
usage:
	fprintf(stderr, "usage: %s [-p PROCS] pf|pf2|pflat|fork|mmap|build|lock|add|sys [LOOPS]\n", myname);
	return 2;
}
