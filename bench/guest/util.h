// SPDX-License-Identifier: GPL-2.0
/*
 * util.h - what bench/guest/storm.c, bench/guest/micro.c and bench/guest/workloads.c share:
 * the clock, errors that end the program, 4 KiB anonymous memory, CPU
 * binding, CPU time, integer options.
 *
 * The includer defines _GNU_SOURCE before any system header and
 * `static const char *myname` (the program's name in its messages) before
 * this file.
 */
#ifndef UTIL_H
#define UTIL_H

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define PAGE		4096UL

/*
 * Not every program uses every helper; plain static, not inline, leaves
 * gcc's inlining as it was when each program had its own copy.
 */
#define __maybe_unused	__attribute__((unused))

static __maybe_unused uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static __maybe_unused void __attribute__((noreturn)) die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", myname, what, strerror(errno));
	exit(1);
}

static __maybe_unused pid_t fork_or_die(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	return pid;
}

static __maybe_unused char *map_anon(size_t size)
{
	char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	/* 4 KiB pages: the order-0 pcp lists are what is measured */
	madvise(p, size, MADV_NOHUGEPAGE);
	return p;
}

/* mkstemp() of TEMPLATE ("...XXXXXX"), which then names the file */
static __maybe_unused int mkstemp_or_die(char *template)
{
	int fd = mkstemp(template);

	if (fd < 0) {
		fprintf(stderr, "%s: mkstemp %s: %s\n", myname, template, strerror(errno));
		exit(1);
	}
	return fd;
}

/* Move the calling task to CPU alone: sched_setaffinity()'s return */
static __maybe_unused int run_on_cpu(long cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static __maybe_unused int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* User and sys CPU ms of this process and its children so far */
static __maybe_unused void cpu_ms(double *user, double *sys)
{
	struct rusage self, kids;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	*user = (self.ru_utime.tv_sec + kids.ru_utime.tv_sec) * 1e3 +
		(self.ru_utime.tv_usec + kids.ru_utime.tv_usec) / 1e3;
	*sys = (self.ru_stime.tv_sec + kids.ru_stime.tv_sec) * 1e3 +
	       (self.ru_stime.tv_usec + kids.ru_stime.tv_usec) / 1e3;
}

/* The integer ARG of option WHAT, in MIN..MAX; else a usage error, exit 2 */
static __maybe_unused long number(const char *what, const char *arg, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || end == arg || v < min || v > max) {
		fprintf(stderr, "%s: %s wants an integer from %ld to %ld, not '%s'\n",
			myname, what, min, max, arg);
		exit(2);
	}
	return v;
}

#endif /* UTIL_H */
