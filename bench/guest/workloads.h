// SPDX-License-Identifier: GPL-2.0
/*
 * workloads.h - what every workload of bench/guest/workloads.c shares: tasks
 * bound one per CPU with a common start, the extfrag counter, the JSON
 * tail (bench/guest/util.h has what storm and micro share with it).  Included
 * once, by bench/workloads.c.
 */
#ifndef WORKLOADS_H
#define WORKLOADS_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_TASKS	1024	/* scripts/hw-run: one task per CPU of a big machine */

static const char *myname = "workloads";

#include "util.h"

struct opts {
	int tasks;		/* -n */
	long mib;		/* -s: per task or in all, see the workload */
	long loops;		/* -l */
	const char *dir;	/* -d */
};

/* What each task does, between the common start and its end */
struct task {
	int nr;
	uint64_t start_ns, end_ns;
	unsigned long ops;	/* the workload's unit of work */
	int fd;			/* page_fault2, lru-file-mmap-read: its file */
	size_t size;
	long loops;
	int go;			/* read end of the start pipe */
	int ready;		/* write end of the ready pipe */
	void (*fn)(struct task *t, int warm_up);
};

static void bind_cpu(int nr)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (run_on_cpu(nr % (ncpu > 0 ? ncpu : 1)))
		die("sched_setaffinity");
}

/*
 * The kmem:mm_page_alloc_extfrag events of the whole system (every
 * allocation that fell back to another migratetype's free list), counted
 * by perf, one counter per CPU, between the common start and the last
 * task's end: no samples, no buffer.  -1 where the kernel or tracefs
 * does not offer the event.
 */
#define NR_CPUS_MAX	64

static int extfrag_fd[NR_CPUS_MAX];
static int extfrag_cpus;

static void extfrag_open(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.disabled = 1,
	};
	FILE *f = fopen("/sys/kernel/tracing/events/kmem/mm_page_alloc_extfrag/id", "r");
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long long id;
	int cpu;

	if (!f)
		return;
	if (fscanf(f, "%llu", &id) != 1) {
		fclose(f);
		return;
	}
	fclose(f);
	attr.config = id;
	for (cpu = 0; cpu < ncpu && cpu < NR_CPUS_MAX; cpu++) {
		int fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, 0);

		if (fd < 0) {
			while (--cpu >= 0)
				close(extfrag_fd[cpu]);
			return;
		}
		extfrag_fd[cpu] = fd;
	}
	extfrag_cpus = cpu;
}

static void extfrag_enable(int on)
{
	int cpu;

	for (cpu = 0; cpu < extfrag_cpus; cpu++)
		ioctl(extfrag_fd[cpu], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

static long long extfrag_count(void)
{
	long long sum = 0;
	uint64_t v;
	int cpu;

	if (!extfrag_cpus)
		return -1;
	for (cpu = 0; cpu < extfrag_cpus; cpu++) {
		if (read(extfrag_fd[cpu], &v, sizeof(v)) != sizeof(v))
			return -1;
		sum += v;
	}
	return sum;
}

/* A sparse file of SIZE bytes in DIR, unlinked: its blocks are holes */
static int sparse_file(const char *dir, size_t size)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/workloads.XXXXXX", dir);
	fd = mkstemp_or_die(path);
	if (ftruncate(fd, size))
		die("ftruncate");
	unlink(path);
	return fd;
}

/* A task: set up (warm-up pass), say so, wait for the start, run, time it */
static void *task_main(void *arg)
{
	struct task *t = arg;
	char c;

	bind_cpu(t->nr);
	t->fn(t, 1);
	if (write(t->ready, "r", 1) != 1)
		die("write");
	/* the common start: the parent closes the pipe's write end */
	if (read(t->go, &c, 1) < 0)
		die("read");
	t->start_ns = now_ns();
	t->fn(t, 0);
	t->end_ns = now_ns();
	return NULL;
}

/*
 * Runs N tasks of T as threads of this process or as processes; T is
 * shared memory (MAP_SHARED) so that processes report into it.  Returns
 * the wall time from the common start to the last end, in ns.
 */
static uint64_t run_tasks(struct task *t, int n, int threads)
{
	pthread_t tid[MAX_TASKS];
	int go[2], ready[2], i, status, failed = 0;
	uint64_t t0;
	char c;

	if (pipe(go) || pipe(ready))
		die("pipe");
	for (i = 0; i < n; i++) {
		t[i].nr = i;
		t[i].go = go[0];
		t[i].ready = ready[1];
		if (threads) {
			errno = pthread_create(&tid[i], NULL, task_main, &t[i]);
			if (errno)
				die("pthread_create");
			continue;
		}
		switch (fork()) {
		case -1:
			die("fork");
		case 0:
			close(go[1]);
			task_main(&t[i]);
			_exit(0);
		}
	}
	for (i = 0; i < n; i++)
		if (read(ready[0], &c, 1) != 1)
			die("a task died in its set-up; read");
	extfrag_enable(1);
	t0 = now_ns();
	close(go[1]);
	if (threads) {
		for (i = 0; i < n; i++)
			pthread_join(tid[i], NULL);
	} else {
		while (wait(&status) > 0)
			failed |= !WIFEXITED(status) || WEXITSTATUS(status);
		if (failed) {
			fprintf(stderr, "%s: a task failed\n", myname);
			exit(1);
		}
	}
	t0 = now_ns() - t0;
	extfrag_enable(0);
	close(go[0]);
	close(ready[0]);
	close(ready[1]);
	return t0;
}

static struct task *tasks_alloc(int n)
{
	struct task *t = mmap(NULL, n * sizeof(*t), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (t == MAP_FAILED)
		die("mmap");
	memset(t, 0, n * sizeof(*t));
	return t;
}

/*
 * Each of the O->tasks tasks of T runs FN on SIZE bytes, O->loops times;
 * with DIR, on a sparse file of its own there (fd -1 without).
 */
static void tasks_set(struct task *t, const struct opts *o, size_t size, const char *dir,
		      void (*fn)(struct task *t, int warm_up))
{
	int i;

	for (i = 0; i < o->tasks; i++) {
		t[i].size = size;
		t[i].fd = dir ? sparse_file(dir, size) : -1;
		t[i].loops = o->loops;
		t[i].fn = fn;
	}
}

static unsigned long ops_sum(struct task *t, int n)
{
	unsigned long sum = 0;
	int i;

	for (i = 0; i < n; i++)
		sum += t[i].ops;
	return sum;
}

static void print_cpu(void)
{
	double user, sys;

	cpu_ms(&user, &sys);
	if (extfrag_count() >= 0)
		printf(", \"extfrag\": %lld", extfrag_count());
	else
		printf(", \"extfrag\": null");
	printf(", \"user_ms\": %.1f, \"sys_ms\": %.1f}\n", user, sys);
}

#endif /* WORKLOADS_H */
