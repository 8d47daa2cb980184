// SPDX-License-Identifier: GPL-2.0
/*
 * workloads - the benchmarks page-allocator reviewers ask for, each a small
 * imitation that runs in a 2-vCPU, 4 GiB guest.  Each workload says below
 * what it imitates and what of the original it keeps and drops.
 *
 *   page_fault1_processes, page_fault1_threads,
 *   page_fault2_processes, page_fault2_threads
 *                   will-it-scale page_fault1/2, in its two modes
 *   lru-file-mmap-read  vm-scalability case-lru-file-mmap-read
 *   anon-w-seq      vm-scalability case-anon-w-seq
 *   mmap-write-unmap    Yafang Shao's rmqueue_bulk reproducer
 *
 * Task i is bound to CPU i % (online CPUs), as will-it-scale binds its
 * tasks; every task first does its setup, then all start together (the
 * parent closes a pipe) and the time runs to the last task's end.
 *
 * Output: one JSON line per run, in bench/micro's form: "probe" (the
 * workload), "procs" (the tasks), "unit", "value", "wall_ms", figures of
 * the workload, "extfrag" (the system's kmem:mm_page_alloc_extfrag events
 * from the start to the last end, counted by perf; null without the
 * event) and user/sys CPU ms of the process, its threads and its children
 * from getrusage().
 */
#include "workloads.h"

/*
 * will-it-scale page_fault1 and page_fault2, processes and threads modes.
 *
 * Imitates: tests/page_fault1.c (map 128 MiB private anonymous, write one
 * byte per 4 KiB page, unmap; one iteration = one page fault) and
 * tests/page_fault2.c (the same on a private mapping of a 128 MiB file that
 * was only truncated to size, so the first write to a page allocates the
 * tmpfs page and every write copies it), run by N processes or N threads of
 * one process, each with its own mapping and file, bound one per CPU.
 * Keeps: the sizes (-s: smaller for a smoke test), the access pattern, the two modes (threads share one
 * mm: its page-table lock and mmap_lock), the per-task figure (LKP's
 * per_process_ops / per_thread_ops: all tasks' faults per second / N).
 * Drops: will-it-scale's timed sampling (a fixed number of 128 MiB loops
 * here, after one warm-up loop per task that is not counted), its sweep
 * over task counts, and the file system: /tmp is tmpfs in the guest.
 * Pages are 4 KiB (MADV_NOHUGEPAGE), as will-it-scale's default machines
 * give page_fault1 with THP off.
 */
#define PF_MIB	128

static void page_fault_loops(struct task *t, int warm_up)
{
	long i, loops = warm_up ? 1 : t->loops;
	size_t off;

	for (i = 0; i < loops; i++) {
		char *p;

		if (t->fd < 0) {
			p = map_anon(t->size);
		} else {
			p = mmap(NULL, t->size, PROT_READ | PROT_WRITE, MAP_PRIVATE, t->fd, 0);
			if (p == MAP_FAILED)
				die("mmap");
		}
		for (off = 0; off < t->size; off += PAGE)
			p[off] = 1;
		munmap(p, t->size);
		if (!warm_up)
			t->ops += t->size / PAGE;
	}
}

static void page_fault(const char *name, const struct opts *o, int file, int threads)
{
	struct task *t = tasks_alloc(o->tasks);
	double total, lo = 0, hi = 0;
	uint64_t wall;
	int i;

	tasks_set(t, o, (size_t)o->mib << 20, file ? o->dir : NULL, page_fault_loops);
	wall = run_tasks(t, o->tasks, threads);
	for (i = 0; i < o->tasks; i++) {
		double r = t[i].ops / ((t[i].end_ns - t[i].start_ns) / 1e9);

		lo = i == 0 || r < lo ? r : lo;
		hi = r > hi ? r : hi;
		if (t[i].fd >= 0)
			close(t[i].fd);
	}
	total = ops_sum(t, o->tasks) / (wall / 1e9);
	printf("{\"probe\": \"%s\", \"procs\": %d, \"unit\": \"ops/s/task\", \"value\": %.0f, "
	       "\"total_ops_s\": %.0f, \"task_min_ops_s\": %.0f, \"task_max_ops_s\": %.0f, "
	       "\"task_mib\": %ld, \"loops\": %ld, \"wall_ms\": %.1f",
	       name, o->tasks, total / o->tasks, total, lo, hi, o->mib, o->loops, wall / 1e6);
}

/*
 * vm-scalability case-lru-file-mmap-read.
 *
 * Imitates: one task per CPU, each mapping its own sparse file and reading
 * it once, sequentially, so that page-cache pages are allocated (zero-
 * filled: a hole needs no I/O) and, the files being larger than memory,
 * reclaimed behind the reader; vm-scalability's figure is the read
 * throughput.  Its point for the page allocator: a zone whose free lists
 * of the movable type run empty while reclaim refills them, so that pcp
 * refills fall back to other migratetypes (where the rmqueue_bulk()
 * fallback search of 90abee6d7895 cost 56%).
 * Keeps: sparse files, one per task, mmap and a sequential single read,
 * a file total larger than the memory left to the page cache.
 * Drops: the file system (vm-scalability mounts a loop-back ext3; the
 * guest kernel has no block layer, and tmpfs pages are not page cache
 * that reclaim can drop: the files are on a 9p share (-d), page cache the
 * guest allocates and reclaims like any other, filled over virtio); the
 * size (10 x memory there; here -s MiB in all, read in -l passes); the
 * reads of every word (one word per page: the page-cache work, not the
 * copy).  -H MIB holds that much memory (as reserved huge pages) during
 * the run, so that the files exceed what is left without reading
 * 10 x 4 GiB over 9p; -F
 * MIB first fragments that much memory with unmovable pages (pipe
 * buffers, every third one freed again: holes in unmovable pageblocks too
 * small to claim), so that movable refills find their own type empty and
 * steal from the others: see bench/workloads-run.
 */
static void lru_read(struct task *t, int warm_up)
{
	volatile unsigned long sum = 0;
	size_t off;
	long i;
	char *p;

	if (warm_up)
		return;
	for (i = 0; i < t->loops; i++) {
		p = mmap(NULL, t->size, PROT_READ, MAP_PRIVATE, t->fd, 0);
		if (p == MAP_FAILED)
			die("mmap");
		for (off = 0; off < t->size; off += PAGE)
			sum += *(unsigned long *)(p + off);
		munmap(p, t->size);
		/* the next pass reads it again from a cold page cache */
		posix_fadvise(t->fd, 0, 0, POSIX_FADV_DONTNEED);
		t->ops += t->size / PAGE;
	}
}

/* Pages held by bench/workloads while the run lasts */
struct hold {
	int nr_pipes;
	int pipes[8192];
	long huge;		/* reserved huge pages */
};

/*
 * MIB of unmovable pages with holes: pipe buffers filled one page at a
 * time, round robin, so that consecutive pages of a pageblock go to
 * different pipes; then every third pipe is closed.  What stays free is
 * a third of those pageblocks in single pages between used ones: less
 * than half a block, so a movable allocation can only steal from them.
 */
static void hold_fragment(struct hold *h, long mib)
{
	static char buf[PAGE];
	long pages = mib << 8, per_pipe = 256, i;	/* 1 MiB per pipe */
	int fd[2], p, n;

	n = (pages + per_pipe - 1) / per_pipe;
	if (n > (int)(sizeof(h->pipes) / sizeof(h->pipes[0])) / 2)
		n = sizeof(h->pipes) / sizeof(h->pipes[0]) / 2;
	for (p = 0; p < n; p++) {
		if (pipe(fd))
			die("pipe (raise the open file limit)");
		if (fcntl(fd[1], F_SETPIPE_SZ, per_pipe * PAGE) < 0)
			die("F_SETPIPE_SZ");
		h->pipes[h->nr_pipes++] = fd[0];
		h->pipes[h->nr_pipes++] = fd[1];
	}
	memset(buf, 1, sizeof(buf));
	for (i = 0; i < per_pipe; i++)
		for (p = 0; p < n; p++)
			if (write(h->pipes[2 * p + 1], buf, PAGE) != PAGE)
				die("write to a pipe");
	for (p = 0; p < n; p += 3) {
		close(h->pipes[2 * p]);
		close(h->pipes[2 * p + 1]);
		h->pipes[2 * p] = h->pipes[2 * p + 1] = -1;
	}
}

/*
 * MIB held as reserved 2 MiB huge pages: whole free pageblocks taken from
 * the buddy lists and never touched, so holding costs no writes (the
 * guest is emulated: writing 3 GiB took longer than the load itself).
 */
#define NR_HUGEPAGES	"/proc/sys/vm/nr_hugepages"

static void nr_hugepages_set(long n)
{
	char buf[32];
	int fd = open(NR_HUGEPAGES, O_RDWR), len;

	if (fd < 0)
		die("open " NR_HUGEPAGES);
	len = snprintf(buf, sizeof(buf), "%ld\n", n);
	if (write(fd, buf, len) != len)
		die("write " NR_HUGEPAGES);
	close(fd);
}

static void hold_huge(struct hold *h, long mib)
{
	char buf[32] = "";
	int fd;

	nr_hugepages_set(mib / 2);
	fd = open(NR_HUGEPAGES, O_RDONLY);
	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) <= 0)
		die("read " NR_HUGEPAGES);
	close(fd);
	h->huge = atol(buf);
	if (h->huge < mib / 2)
		fprintf(stderr, "%s: -H %ld: the kernel reserved %ld of %ld huge pages\n",
			myname, mib, h->huge, mib / 2);
}

static void hold_release(struct hold *h)
{
	int p;

	for (p = 0; p < h->nr_pipes; p++)
		if (h->pipes[p] >= 0)
			close(h->pipes[p]);
	if (h->huge)
		nr_hugepages_set(0);
}

static void lru_file_mmap_read(const struct opts *o, long hold_mib, long frag_mib)
{
	static struct hold h;
	struct task *t = tasks_alloc(o->tasks);
	size_t size = ((size_t)o->mib << 20) / o->tasks;
	uint64_t wall;
	struct rlimit nofile = { 16384, 16384 };
	int i;

	/*
	 * The held memory first, then the fragments: pipe buffers taken
	 * after it claim whole free pageblocks for the unmovable type, and
	 * their holes are then the only free pages outside the movable
	 * blocks the readers exhaust.
	 */
	if (hold_mib)
		hold_huge(&h, hold_mib);
	if (frag_mib) {
		setrlimit(RLIMIT_NOFILE, &nofile);
		hold_fragment(&h, frag_mib);
	}
	tasks_set(t, o, size, o->dir, lru_read);
	wall = run_tasks(t, o->tasks, 0);
	for (i = 0; i < o->tasks; i++)
		close(t[i].fd);
	hold_release(&h);
	hold_mib = h.huge * 2;
	printf("{\"probe\": \"lru-file-mmap-read\", \"procs\": %d, \"unit\": \"MiB/s\", \"value\": %.1f, "
	       "\"file_mib\": %ld, \"passes\": %ld, \"hold_mib\": %ld, \"fragment_mib\": %ld, "
	       "\"wall_ms\": %.1f",
	       o->tasks, (ops_sum(t, o->tasks) * PAGE >> 20) / (wall / 1e9), o->mib, o->loops,
	       hold_mib, frag_mib, wall / 1e6);
}

/*
 * hold-fragments: -F MIB of unmovable pages with holes (hold_fragment), held
 * until a signal ends the process, which frees them.  One line once they are
 * in place: bench/guest/guest-run's frag instrument refills while they are.
 */
static void __attribute__((noreturn)) fragments_hold(long frag_mib)
{
	static struct hold h;
	struct rlimit nofile = { 16384, 16384 };

	setrlimit(RLIMIT_NOFILE, &nofile);
	hold_fragment(&h, frag_mib);
	printf("{\"probe\": \"hold-fragments\", \"fragment_mib\": %ld, \"pipes\": %d}\n",
	       frag_mib, h.nr_pipes / 2);
	fflush(stdout);
	for (;;)
		pause();
}

/*
 * vm-scalability case-anon-w-seq, and Yafang Shao's reproducer.
 *
 * anon-w-seq imitates: usemem -n NR_CPU (MEMORY / NR_CPU / 2): one process
 * per CPU writes its share of half the memory, anonymous, sequentially,
 * once; the figure is the write throughput.  Keeps: the processes, the
 * sizes (half of MemTotal in all), the sequential writes of every byte.
 * Drops: usemem's options; the processes here unmap their memory inside
 * the timed part (usemem leaves it to exit), so the frees count too.
 *
 * mmap-write-unmap imitates Yafang Shao's refill reproducer (10 copies of
 * "mmap 6 GiB, write it, munmap" at once on a 64-CPU guest, rmqueue_bulk
 * latency from funclatency): N processes, each mapping, writing and
 * unmapping -s MiB -l times.  Keeps: parallel whole-region writes and
 * unmaps, every fault a pcp allocation, every pcp list refilled in bulk.
 * Drops: the scale (2 x 1 GiB, repeated, in 4 GiB); the latency of the
 * refills is bench/guest/refill-lat.bt's, attached by bench/workloads-run.
 */
static void anon_write(struct task *t, int warm_up)
{
	long i;

	if (warm_up)
		return;
	for (i = 0; i < t->loops; i++) {
		char *p = map_anon(t->size);

		memset(p, 1, t->size);
		munmap(p, t->size);
		t->ops += t->size >> 20;
	}
}

static void anon_writers(const char *name, const struct opts *o, size_t size)
{
	struct task *t = tasks_alloc(o->tasks);
	uint64_t wall;

	tasks_set(t, o, size, NULL, anon_write);
	wall = run_tasks(t, o->tasks, 0);
	printf("{\"probe\": \"%s\", \"procs\": %d, \"unit\": \"MiB/s\", \"value\": %.1f, "
	       "\"task_mib\": %zu, \"loops\": %ld, \"wall_ms\": %.1f",
	       name, o->tasks, ops_sum(t, o->tasks) / (wall / 1e9), size >> 20, o->loops,
	       wall / 1e6);
}

static void __attribute__((noreturn)) usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: %s [-n TASKS] [-s MIB] [-l LOOPS] [-d DIR] [-H MIB] [-F MIB] [-L LABEL] WORKLOAD\n"
		"  -L LABEL  name the tasks w:LABEL (for tracing)\n"
		"  page_fault1_processes page_fault1_threads page_fault2_processes page_fault2_threads\n"
		"            will-it-scale: -n tasks (default: online CPUs), -l loops (default\n"
		"            4) of -s MiB (default 128) each, page_fault2's files in -d\n"
		"            (default /tmp)\n"
		"  lru-file-mmap-read  -n tasks read -s MiB of sparse files in -d (default\n"
		"            4096 in /run/out), -l passes (default 1); -H MIB held, -F MIB\n"
		"            fragmented first (default 0, 0)\n"
		"  anon-w-seq          -n processes write -s MiB in all (default half of\n"
		"            MemTotal), -l times (default 1)\n"
		"  mmap-write-unmap    -n processes map, write and unmap -s MiB each\n"
		"            (default 1024), -l times (default 3)\n"
		"  hold-fragments      -F MIB (at least 1) fragmented and held until a\n"
		"            signal ends it; one line once in place\n",
		myname);
	exit(status);
}

int main(int argc, char **argv)
{
	struct opts o = { .tasks = sysconf(_SC_NPROCESSORS_ONLN), .mib = 0, .loops = 0 };
	long hold_mib = 0, frag_mib = 0;
	char name[16];
	const char *w;
	struct sysinfo si;
	int opt;

	while ((opt = getopt(argc, argv, "n:s:l:d:H:F:L:h")) != -1) {
		switch (opt) {
		case 'L':
			snprintf(name, sizeof(name), "w:%s", optarg);
			prctl(PR_SET_NAME, name);
			break;
		case 'n':
			o.tasks = number("-n", optarg, 1, MAX_TASKS);
			break;
		case 's':
			o.mib = number("-s", optarg, 1, 1L << 30);
			break;
		case 'l':
			o.loops = number("-l", optarg, 1, 1000000);
			break;
		case 'd':
			o.dir = optarg;
			break;
		case 'H':
			hold_mib = number("-H", optarg, 0, 1L << 30);
			break;
		case 'F':
			frag_mib = number("-F", optarg, 0, 8191);
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (argc - optind != 1)
		usage(2);
	w = argv[optind];
	extfrag_open();
	if (o.tasks < 1)
		o.tasks = 1;
	if (!strncmp(w, "page_fault", 10)) {
		int file = !strncmp(w, "page_fault2_", 12), threads;

		if (strcmp(w + 12, "processes") && strcmp(w + 12, "threads"))
			goto unknown;
		if (strncmp(w, "page_fault1_", 12) && !file)
			goto unknown;
		threads = !strcmp(w + 12, "threads");
		o.mib = o.mib ?: PF_MIB;
		o.loops = o.loops ?: 4;
		o.dir = o.dir ?: "/tmp";
		page_fault(w, &o, file, threads);
	} else if (!strcmp(w, "lru-file-mmap-read")) {
		o.mib = o.mib ?: 4096;
		o.loops = o.loops ?: 1;
		o.dir = o.dir ?: "/run/out";
		lru_file_mmap_read(&o, hold_mib, frag_mib);
	} else if (!strcmp(w, "anon-w-seq")) {
		if (!o.mib) {
			if (sysinfo(&si))
				die("sysinfo");
			o.mib = ((unsigned long long)si.totalram * si.mem_unit >> 20) / 2;
		}
		o.loops = o.loops ?: 1;
		anon_writers(w, &o, ((size_t)o.mib << 20) / o.tasks);
	} else if (!strcmp(w, "hold-fragments")) {
		if (frag_mib < 1) {
			fprintf(stderr, "%s: hold-fragments wants -F MIB, at least 1\n", myname);
			return 2;
		}
		fragments_hold(frag_mib);
	} else if (!strcmp(w, "mmap-write-unmap")) {
		o.mib = o.mib ?: 1024;
		o.loops = o.loops ?: 3;
		anon_writers(w, &o, (size_t)o.mib << 20);
	} else {
		goto unknown;
	}
	print_cpu();
	return 0;
unknown:
	fprintf(stderr, "%s: unknown workload '%s'\n", myname, w);
	usage(2);
}
