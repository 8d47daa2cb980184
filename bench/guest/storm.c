// SPDX-License-Identifier: GPL-2.0
/*
 * storm - exit-storm reproducer with a latency-sensitive victim.
 *
 * N processes fault in S MiB of anonymous memory each (4 KiB pages), wait on
 * a barrier, then all exit at the same instant; the wall time from the
 * release to the last reap is the storm time (the throughput side).  A victim
 * process pinned to another CPU keeps faulting in fresh pages and unmapping
 * them, timing every fault with clock_gettime.  Its samples are split into
 * the "alone" phase (before the storm processes exist) and the exit window
 * [release, last reap] (what other workloads felt in the original report).
 *
 * With -R MS the storm processes instead map, write and unmap S MiB in a
 * loop for MS ms, all at once (Yafang Shao's refill reproducer): every fault
 * that finds the pcp list empty refills it under zone->lock, in refills that
 * grow to batch << alloc_factor.  Their throughput (MiB faulted per second)
 * is the throughput side, and the victim's samples of that window are the
 * "refill" phase.
 *
 * With -w US the victim is instead a SCHED_FIFO task that wakes every US
 * microseconds (an absolute deadline, as cyclictest does) and faults in one
 * page; each sample is the time from the deadline to the end of that fault,
 * its wake-up latency plus the fault.  It may share the storm's CPU (-v equal
 * to -c): run so under icount with the other vCPU idle, it measures what the
 * storm's non-preemptible sections on that CPU cost a real-time task there.
 *
 * Tasks are named "s:LABEL" (storm) and "v:LABEL" (victim) so that tracing
 * can tell the settings of one run apart.  The parent renames itself
 * "P:LABEL" plus the phase letter (A alone, F storm fault-in, E exit,
 * R refill load, Q quiet after it) at each phase change, which tracing sees
 * as task:task_rename (bench/guest/paths.bt).
 *
 * Output: one JSON object on stdout; with -o DIR, the victim's fault times in
 * ns (one per line) in DIR/LABEL.PHASE (alone, fault, window = the exit,
 * refill), appended.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_SAMPLES	(4UL << 20)

struct sample {
	uint64_t t;	/* start of the fault, CLOCK_MONOTONIC ns */
	uint32_t ns;	/* its duration */
};

struct shared {
	volatile int stop;
	volatile uint64_t nr;
	struct sample s[];
};

static const char *myname = "storm";

#include "util.h"

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: %s [-n PROCS] [-s MIB] [-c CPU] [-v CPU] [-V MIB] [-w US] [-a MS] [-R MS] [-l LABEL] [-o DIR]\n"
		"  -n PROCS  storm processes (default 4)\n"
		"  -s MIB    memory each storm process faults in (default 512)\n"
		"  -c CPU    CPU the storm processes run on (default 0)\n"
		"  -v CPU    CPU of the victim (default 1; -1: no victim)\n"
		"  -V MIB    memory the victim faults in per cycle (default 256)\n"
		"  -w US     periodic victim: SCHED_FIFO, one fault every US us, samples\n"
		"            from its deadline (may share the storm's CPU)\n"
		"  -a MS     victim-alone phase before the storm (default 1000)\n"
		"  -R MS     refill load for MS ms instead of the exit storm\n"
		"  -l LABEL  name of the run in task names and output (default run)\n"
		"  -o DIR    append the victim's fault times to DIR/LABEL.{alone,fault,window,refill}\n",
		myname);
	exit(status);
}

static void pin(int cpu)
{
	if (run_on_cpu(cpu))
		die("sched_setaffinity");
}

static void name_task(char kind, const char *label)
{
	char name[16];

	snprintf(name, sizeof(name), "%c:%s", kind, label);
	prctl(PR_SET_NAME, name);
}

/* The parent's name carries the phase: an upper-case letter, "E:LABEL". */
static void mark_phase(char phase, const char *label)
{
	name_task(phase, label);
}

static long mem_available_mib(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb < 0 ? -1 : kb / 1024;
}

/* A refill-load process: map, write and unmap SIZE bytes until DEADLINE;
 * returns the MiB written. */
static unsigned long refill_load(size_t size, uint64_t deadline)
{
	unsigned long mib = 0;

	while (now_ns() < deadline) {
		char *p = map_anon(size);

		memset(p, 1, size);
		munmap(p, size);
		mib += size >> 20;
	}
	return mib;
}

static void record(struct shared *sh, uint64_t t0, uint64_t t1)
{
	if (sh->nr < MAX_SAMPLES) {
		sh->s[sh->nr].t = t0;
		sh->s[sh->nr].ns = t1 - t0 > UINT32_MAX ? UINT32_MAX : t1 - t0;
		sh->nr++;
	}
}

/*
 * The periodic victim (-w): SCHED_FIFO, sleeps to an absolute deadline every
 * PERIOD ns, then faults in one page; the sample runs from the deadline to
 * the end of the fault.  A missed period is skipped, not queued.
 */
static void victim_periodic(struct shared *sh, size_t size, uint64_t period)
{
	struct sched_param sp = { .sched_priority = 50 };
	struct timespec ts;
	uint64_t next;

	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		die("sched_setscheduler(SCHED_FIFO)");
	next = now_ns() + period;
	while (!sh->stop) {
		char *p = map_anon(size);
		size_t off;

		for (off = 0; off < size && !sh->stop; off += PAGE) {
			ts.tv_sec = next / 1000000000ULL;
			ts.tv_nsec = next % 1000000000ULL;
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
				;
			p[off] = 1;
			record(sh, next, now_ns());
			next += period;
			while (next < now_ns())
				next += period;
		}
		munmap(p, size);
	}
	_exit(0);
}

static void victim(struct shared *sh, size_t size)
{
	while (!sh->stop) {
		char *p = map_anon(size);
		size_t off;

		for (off = 0; off < size && !sh->stop; off += PAGE) {
			uint64_t t0 = now_ns(), t1;

			p[off] = 1;
			t1 = now_ns();
			record(sh, t0, t1);
		}
		munmap(p, size);
	}
	_exit(0);
}

/*
 * Append the victim's samples taken in [from, to] to DIR/LABEL.NAME, one
 * latency in ns a line (bench/analysis/report.py computes the percentiles).
 */
static void save_samples(const char *name, struct shared *sh, uint64_t from,
			 uint64_t to, const char *dir, const char *label)
{
	char path[4096];
	uint64_t i;
	FILE *f;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%s.%s", dir, label, name);
	f = fopen(path, "a");
	if (!f)
		die(path);
	for (i = 0; i < sh->nr; i++)
		if (sh->s[i].t >= from && sh->s[i].t <= to)
			fprintf(f, "%u\n", sh->s[i].ns);
	fclose(f);
}

/*
 * Print the victim's fault times in [from, to] of this run as JSON member
 * "victim_NAME": count, percentiles and sum, so that the repetitions give a
 * spread (the sample files pool them).
 */
static void print_window(const char *name, struct shared *sh, uint64_t from, uint64_t to)
{
	uint32_t *v = malloc((sh->nr ? sh->nr : 1) * sizeof(*v));
	uint64_t i, n = 0;
	double sum = 0;

	if (!v)
		die("malloc");
	for (i = 0; i < sh->nr; i++) {
		if (sh->s[i].t >= from && sh->s[i].t <= to) {
			v[n++] = sh->s[i].ns;
			sum += sh->s[i].ns;
		}
	}
	qsort(v, n, sizeof(*v), cmp_u32);
	printf(", \"victim_%s\": {\"samples\": %lu", name, (unsigned long)n);
	if (n)
		printf(", \"p50_us\": %.3f, \"p99_us\": %.3f, \"p999_us\": %.3f, \"max_us\": %.3f, \"sum_ms\": %.3f",
		       v[n / 2] / 1e3, v[n * 99 / 100] / 1e3, v[n * 999 / 1000] / 1e3,
		       v[n - 1] / 1e3, sum / 1e6);
	printf("}");
	free(v);
}

static double tv_ms(struct timeval tv)
{
	return tv.tv_sec * 1e3 + tv.tv_usec / 1e3;
}

int main(int argc, char **argv)
{
	long procs = 4, mib = 512, storm_cpu = 0, victim_cpu = 1, victim_mib = 256;
	long alone_ms = 1000, refill_ms = 0, period_us = 0, avail;
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t t_alone0, t_alone1, t_fault0, t_release, t_done;
	unsigned long *refill_mib, total_mib = 0;
	double sys_ms = 0;
	const char *label = "run", *dir = NULL;
	int go[2], ready[2], opt, i, status;
	struct shared *sh = NULL;
	pid_t vpid = -1, *pids;
	struct rusage ru;
	char c;

	while ((opt = getopt(argc, argv, "n:s:c:v:V:a:R:w:l:o:h")) != -1) {
		switch (opt) {
		case 'n': procs = number("-n", optarg, 1, 256); break;
		case 's': mib = number("-s", optarg, 1, 1 << 20); break;
		case 'c': storm_cpu = number("-c", optarg, 0, ncpus - 1); break;
		case 'v': victim_cpu = number("-v", optarg, -1, ncpus - 1); break;
		case 'V': victim_mib = number("-V", optarg, 1, 1 << 20); break;
		case 'a': alone_ms = number("-a", optarg, 0, 600000); break;
		case 'l': label = optarg; break;
		case 'w': period_us = number("-w", optarg, 1, 1000000); break;
		case 'R': refill_ms = number("-R", optarg, 1, 600000); break;
		case 'o': dir = optarg; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc)
		usage(2);
	if (strlen(label) > 13 || strchr(label, '/') || strchr(label, '"')) {
		fprintf(stderr, "%s: -l wants at most 13 characters, no '/' or '\"'\n", myname);
		return 2;
	}
	avail = mem_available_mib();
	if (avail > 0 && procs * mib + (victim_cpu >= 0 ? victim_mib : 0) + 64 > avail * 9 / 10) {
		fprintf(stderr, "%s: %ld x %ld MiB (+%ld MiB victim) does not fit in 90%% of MemAvailable (%ld MiB); use fewer or smaller processes\n",
			myname, procs, mib, victim_cpu >= 0 ? victim_mib : 0, avail);
		return 2;
	}
	if (victim_cpu == storm_cpu && !period_us) {
		fprintf(stderr, "%s: the victim (-v) needs a CPU of its own, not the storm's (-c), unless it is periodic (-w)\n", myname);
		return 2;
	}
	pids = calloc(procs, sizeof(*pids));
	if (!pids)
		die("calloc");

	if (victim_cpu >= 0) {
		sh = mmap(NULL, sizeof(*sh) + MAX_SAMPLES * sizeof(struct sample),
			  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (sh == MAP_FAILED)
			die("mmap");
		vpid = fork_or_die();
		if (vpid == 0) {
			pin(victim_cpu);
			name_task('v', label);
			if (period_us)
				victim_periodic(sh, victim_mib << 20, period_us * 1000ULL);
			victim(sh, victim_mib << 20);
		}
	}
	refill_mib = mmap(NULL, procs * sizeof(*refill_mib), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (refill_mib == MAP_FAILED)
		die("mmap");

	/* The victim alone, after a short warm-up. */
	usleep(100000);
	mark_phase('A', label);
	t_alone0 = now_ns();
	usleep(alone_ms * 1000);
	t_alone1 = now_ns();

	if (pipe(go) || pipe(ready))
		die("pipe");
	mark_phase('F', label);
	t_fault0 = now_ns();
	for (i = 0; i < procs; i++) {
		pids[i] = fork_or_die();
		if (pids[i] == 0) {
			size_t size = mib << 20;
			char *p;

			close(go[1]);
			close(ready[0]);
			pin(storm_cpu);
			name_task('s', label);
			if (!refill_ms) {
				p = map_anon(size);
				memset(p, 1, size);
			}
			/* CPU time so far, so that the exit's own can be told */
			getrusage(RUSAGE_SELF, &ru);
			if (write(ready[1], &ru, sizeof(ru)) != sizeof(ru))
				_exit(1);
			/* returns 0 when the parent closes the write end */
			if (read(go[0], &c, 1) != 0)
				_exit(1);
			if (refill_ms)
				refill_mib[i] = refill_load(size, now_ns() +
							    refill_ms * 1000000ULL);
			_exit(0);
		}
	}
	close(go[0]);
	close(ready[1]);
	for (i = 0; i < procs; i++) {
		if (read(ready[0], &ru, sizeof(ru)) != sizeof(ru)) {
			fprintf(stderr, "%s: a storm process died before the barrier (OOM?)\n", myname);
			return 1;
		}
		sys_ms -= tv_ms(ru.ru_stime);
	}
	mark_phase(refill_ms ? 'R' : 'E', label);
	t_release = now_ns();
	close(go[1]);
	for (i = 0; i < procs; i++) {
		if (wait4(pids[i], &status, 0, &ru) != pids[i])
			die("wait4");
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "%s: a storm process failed\n", myname);
			return 1;
		}
		sys_ms += tv_ms(ru.ru_stime);
	}
	t_done = now_ns();
	mark_phase('Q', label);

	printf("{\"label\": \"%s\", \"procs\": %ld, \"mib\": %ld, \"storm_ms\": %.3f, \"storm_sys_ms\": %.3f",
	       label, procs, mib, (t_done - t_release) / 1e6, sys_ms);
	if (sh)
		printf(", \"victim_cpu\": %ld, \"storm_cpu\": %ld, \"victim_period_us\": %ld",
		       victim_cpu, storm_cpu, period_us);
	if (refill_ms) {
		for (i = 0; i < procs; i++)
			total_mib += refill_mib[i];
		printf(", \"refill_ms\": %ld, \"refill_mib\": %lu, \"refill_mib_s\": %.1f",
		       refill_ms, total_mib, total_mib * 1e9 / (t_done - t_release));
	}
	if (sh) {
		usleep(100000);
		sh->stop = 1;
		if (waitpid(vpid, &status, 0) != vpid)
			die("waitpid");
		save_samples("alone", sh, t_alone0, t_alone1, dir, label);
		save_samples("fault", sh, t_fault0, t_release, dir, label);
		save_samples(refill_ms ? "refill" : "window", sh, t_release,
			     t_done, dir, label);
		print_window("fault", sh, t_fault0, t_release);
		print_window(refill_ms ? "refill" : "window", sh, t_release, t_done);
	}
	printf("}\n");
	return 0;
}
