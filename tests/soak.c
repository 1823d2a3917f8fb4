/*
 * gilk-soak: the long stress (make soak; meant for the debug kernel). Run in
 * the guest with gilk.ko and argfilter.ko loaded:
 *   gilk-soak CYCLES [SECONDS]
 * (SECONDS: a time limit on the cycles, after which the rest runs as usual.)
 * A load with its own integrity checks runs on both vCPUs all along (loopback
 * TCP echo with checksums, file write and read-back, fork/exit, a syscall
 * loop) while it:
 *   - splices every block of one of >= 50 hot functions named nowhere else in
 *     the tests, in one batch (bounces and evictions included), and unsplices
 *     it, CYCLES times, round robin. SPLICERS threads make cycles at once
 *     and a cycle's unsplice runs in a thread of its own while the next
 *     cycles splice: gilk sees batches of splices and unsplices at the same
 *     time, and their grace periods (most of a cycle) overlap. Functions
 *     within a bounce's reach of one under way wait for it;
 *   - every 100 cycles (the first included) kills a splicing process with
 *     SIGKILL in the middle of its batches, then unsplices whatever it left,
 *     as a new client;
 *   - tries to unload an instrument module (argfilter) while a splice uses it,
 *     then unloads it once unused;
 *   - splices a function that runs in NMI context (show_regs, reached by the
 *     NMI backtrace of sysrq-l) and checks it is hit;
 *   - ends with 1000 splices active and `rmmod gilk`.
 * Then every byte of the functions it touched is compared, through READ,
 * with a snapshot taken before. The last line:
 *   soak: N cycles, N splices, N faults injected, N bad inputs, N load errors, N text bytes differ
 * where bad inputs are requests gilk refused or botched although they were
 * valid (and invalid ones it took); all but the first three must be 0.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "live.h"
#include "load.h"

/* Hot while the load runs, and named nowhere else in the tests. Names the
 * running kernel lacks are skipped; at least 50 must be found. */
static const char *const candidates[] = {
	"vfs_read", "vfs_write", "ksys_read", "ksys_write", "rw_verify_area",
	"generic_file_read_iter", "generic_perform_write", "filemap_read",
	"shmem_file_read_iter", "shmem_write_begin", "shmem_write_end",
	"shmem_get_folio_gfp", "do_sys_openat2", "do_filp_open", "path_openat",
	"getname_flags", "putname", "do_unlinkat", "fput", "__fput", "dput",
	"filp_close", "vfs_fstat", "do_dentry_open",
	"copy_process", "dup_mm", "dup_task_struct", "wake_up_new_task",
	"do_wait", "kernel_wait4", "release_task", "mmput",
	"exit_mmap", "unmap_vmas", "free_pgtables", "do_mmap", "mmap_region",
	"do_anonymous_page", "handle_mm_fault", "__handle_mm_fault",
	"copy_page_range", "anon_vma_fork", "schedule_tail", "sched_fork",
	"__sys_sendto", "__sys_recvfrom", "sock_sendmsg", "sock_recvmsg",
	"inet_sendmsg", "inet_recvmsg", "tcp_sendmsg", "tcp_sendmsg_locked",
	"tcp_recvmsg", "tcp_v4_rcv", "tcp_rcv_established", "tcp_ack",
	"tcp_transmit_skb", "__tcp_transmit_skb", "tcp_write_xmit",
	"ip_queue_xmit", "__ip_queue_xmit", "ip_output", "ip_finish_output2",
	"ip_rcv", "ip_local_deliver", "loopback_xmit", "__netif_receive_skb_core",
	"tcp_v4_do_rcv", "tcp_data_queue", "tcp_clean_rtx_queue",
	"__sys_connect", "__sys_accept4", "inet_accept", "tcp_v4_connect",
	"tcp_close", "__x64_sys_write", "__x64_sys_read", "__x64_sys_wait4",
	"__x64_sys_close", "__x64_sys_openat", "__x64_sys_unlinkat",
};
#define NCAND (sizeof(candidates) / sizeof(candidates[0]))
#define MIN_FUNCS 50
/* The most blocks of one function the soak splices at once. */
#define FN_BLOCKS 256

struct fn {
	const char *name;
	uint64_t start, end;
	uint8_t *snap;
	struct splice_plan *plans;  /* every block that plans, made once */
	size_t nplans;
};

static struct fn fns[NCAND];
static size_t nfns;
static unsigned long cycles, splices, faults, bad, load_errors, differ;
static pthread_mutex_t bad_lock = PTHREAD_MUTEX_INITIALIZER;

static void badf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void badf(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&bad_lock);	/* the unsplicer's thread too */
	if (bad++ < 20) {
		va_start(ap, fmt);
		fprintf(stderr, "soak: ");
		vfprintf(stderr, fmt, ap);
		fprintf(stderr, "\n");
		va_end(ap);
	}
	pthread_mutex_unlock(&bad_lock);
}

/* ---- gilk ---- */

/* The first MIN_FUNCS candidates the kernel has, each with a plan for every
 * block that can be spliced. Planning live is the slow part under an
 * emulator, so it is done once: while only one function is spliced at a
 * time, and the text does not change, the plans stay valid. */
static void pick_functions(struct live *lv)
{
	static uint64_t sites[FN_BLOCKS];
	static struct splice_plan plans[FN_BLOCKS];
	static bool ok[FN_BLOCKS];
	static enum splice_reason why[FN_BLOCKS];

	for (size_t i = 0; i < NCAND && nfns < MIN_FUNCS; i++) {
		const struct ksym *s;
		struct fn *f = &fns[nfns];
		static struct cfg g;
		size_t n = 0;
		struct gerr e;

		if (symtab_by_name(lv->k.syms, candidates[i], &s, 1) != 1 ||
		    symtab_function(lv->k.syms, s->addr, NULL, &f->start, &f->end) ||
		    kernel_cfg(&lv->k, f->start, &g, &e))
			continue;
		f->name = candidates[i];
		for (size_t b = 0; b < g.nblocks && n < FN_BLOCKS; b++)
			sites[n++] = b ? g.blocks[b].start : live_block_site(lv, g.blocks[b].start);
		live_plan_many(lv, sites, n, 0, plans, ok, why);
		f->nplans = 0;
		f->plans = malloc(n * sizeof(*f->plans));
		f->snap = malloc(f->end - f->start);
		if (!f->plans || !f->snap ||
		    live_read_mem(lv, f->start, f->snap, f->end - f->start, &e))
			continue;
		for (size_t b = 0; b < n; b++)
			if (ok[b])
				f->plans[f->nplans++] = plans[b];
		if (f->nplans)
			nfns++;
	}
}

/* Splices f's planned blocks in one batch: ids and how many. */
static size_t splice_fn(struct live *lv, struct fn *f, const char *ins, uint32_t *ids)
{
	struct gerr e;

	if (!f->nplans)
		return 0;
	if (live_splice_batch(lv, f->plans, f->nplans, ins, "", ids, &e)) {
		badf("splicing %zu blocks of %s: %s", f->nplans, f->name, e.msg);
		return 0;
	}
	__atomic_add_fetch(&splices, f->nplans, __ATOMIC_RELAXED);	/* splicers at once */
	return f->nplans;
}

static void unsplice_all(struct live *lv)
{
	struct gilk_splice_info *l = NULL;
	uint32_t ids[FN_BLOCKS];
	size_t n = 0, k;
	struct gerr e;

	if (live_list(lv, &l, &n, &e)) {
		badf("listing splices: %s", e.msg);
		return;
	}
	for (size_t i = 0; i < n; i += k) {
		for (k = 0; k < FN_BLOCKS && i + k < n; k++)
			ids[k] = l[i + k].id;
		if (live_unsplice_batch(lv, ids, k, &e))
			badf("unsplicing: %s", e.msg);
	}
	free(l);
}

/* A client killed in the middle of its batches: what it left is removed by
 * the next one. */
static void kill_mid_batch(struct live *lv, unsigned seed)
{
	pid_t p = fork();

	if (p == 0) {
		struct live own;
		struct gerr e;
		uint32_t ids[FN_BLOCKS];

		if (live_open(&own, NULL, &e))
			_exit(1);
		for (size_t i = 0;; i = (i + 1) % nfns) {
			size_t n = splice_fn(&own, &fns[i], "count", ids);

			if (n)
				live_unsplice_batch(&own, ids, n, &e);
		}
	}
	usleep(50000 + (seed * 7919) % 400000);
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	faults++;
	unsplice_all(lv);
}

static void instrument_unload(struct live *lv)
{
	struct fn *f = &fns[0];
	uint32_t ids[FN_BLOCKS];
	size_t n = splice_fn(lv, f, "argfilter", ids);
	struct gerr e;
	int st;

	faults++;
	if (!n) {
		badf("argfilter: nothing of %s spliced", f->name);
		return;
	}
	st = system("rmmod argfilter 2>/dev/null");
	if (st == 0 || access("/sys/module/argfilter", F_OK) != 0)
		badf("argfilter unloaded while %zu splices used it", n);
	if (live_unsplice_batch(lv, ids, n, &e))
		badf("unsplicing argfilter's splices: %s", e.msg);
	/* Unused now, it unloads (and no longer holds gilk.ko, for rmmod). */
	if (system("rmmod argfilter"))
		badf("argfilter does not unload once its splices are gone");
}

static void nmi_splice(struct live *lv)
{
	const struct ksym *s;
	struct splice_plan p;
	struct gilk_splice_info in;
	uint32_t id;
	struct gerr e;

	if (symtab_by_name(lv->k.syms, "show_regs", &s, 1) != 1 ||
	    live_plan(lv, live_block_site(lv, s->addr), 0, &p, &e) ||
	    live_splice(lv, &p, "count", "", &id, &e)) {
		badf("splicing show_regs for the NMI backtrace");
		return;
	}
	splices++;
	/* sysrq-l: an NMI to every other CPU, each showing its registers */
	if (system("echo l > /proc/sysrq-trigger"))
		badf("sysrq-l");
	sleep(2);
	if (live_info(lv, id, &in, &e) || in.hits == 0)
		badf("show_regs in NMI context: %" PRIu64 " hits", (uint64_t)in.hits);
	if (live_unsplice(lv, id, &e))
		badf("unsplicing show_regs: %s", e.msg);
}

static void rmmod_with_1000(struct live *lv)
{
	uint32_t ids[FN_BLOCKS];
	size_t total = 0;
	struct gerr e;

	/* just over 1000: gilk.ko's bound until it had none */
	for (size_t i = 0; i < nfns && total < 1000; i++)
		if (total + fns[i].nplans <= 1010)
			total += splice_fn(lv, &fns[i], "count", ids);
	faults++;
	live_close(lv);
	if (total < 1000)
		badf("only %zu splices active for rmmod", total);
	if (system("rmmod gilk") || system("insmod build/gilk.ko"))
		badf("rmmod gilk with %zu splices, then insmod", total);
	if (live_open(lv, NULL, &e))
		badf("reopening gilk: %s", e.msg);
}

static double secs(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/*
 * The cycles, made by SPLICERS threads at once, and their unsplices, in
 * threads of their own (UNSPLICERS of them, a job each at a time): all share
 * the session, of which live_splice_batch() with plans made and
 * live_unsplice_batch() only read (its /dev/gilk, its settings).
 */
#define SPLICERS 3
#define UNSPLICERS 4

struct unsplicers {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct live *lv;
	struct {
		pthread_t thread;
		const struct fn *f;	/* the job's function; NULL: none */
		uint32_t ids[FN_BLOCKS];
		size_t n;
	} job[UNSPLICERS];
	bool quit;
	double busy;		/* seconds unsplicing, in all */
	/* the splicers: functions they splice now, the next cycle to make,
	 * the first not to make yet (the next kill), seconds splicing */
	const struct fn *splicing[SPLICERS];
	unsigned long next, upto;
	double splice_s;
	long limit;		/* a time limit on the cycles (0: none) */
	struct timespec t0;
	bool timed_out;
};

struct unsplicer_arg {
	struct unsplicers *u;
	size_t i;
};

static void *unsplicer_run(void *arg)
{
	struct unsplicers *u = ((struct unsplicer_arg *)arg)->u;
	size_t i = ((struct unsplicer_arg *)arg)->i;

	pthread_mutex_lock(&u->lock);
	for (;;) {
		struct timespec a, b;
		struct gerr e;

		while (!u->job[i].f && !u->quit)
			pthread_cond_wait(&u->cond, &u->lock);
		if (!u->job[i].f)
			break;
		pthread_mutex_unlock(&u->lock);
		clock_gettime(CLOCK_MONOTONIC, &a);
		if (live_unsplice_batch(u->lv, u->job[i].ids, u->job[i].n, &e))
			badf("unsplicing %s: %s", u->job[i].f->name, e.msg);
		clock_gettime(CLOCK_MONOTONIC, &b);
		pthread_mutex_lock(&u->lock);
		u->busy += secs(&a, &b);
		u->job[i].f = NULL;
		pthread_cond_broadcast(&u->cond);
	}
	pthread_mutex_unlock(&u->lock);
	return NULL;
}

static int unsplicers_start(struct unsplicers *u)
{
	static struct unsplicer_arg args[UNSPLICERS];

	for (size_t i = 0; i < UNSPLICERS; i++) {
		args[i] = (struct unsplicer_arg){ u, i };
		if (pthread_create(&u->job[i].thread, NULL, unsplicer_run, &args[i]))
			return -1;
	}
	return 0;
}

/* Waits until no unsplice is under way. */
static void unsplicers_idle(struct unsplicers *u)
{
	pthread_mutex_lock(&u->lock);
	for (size_t i = 0; i < UNSPLICERS; i++)
		while (u->job[i].f)
			pthread_cond_wait(&u->cond, &u->lock);
	pthread_mutex_unlock(&u->lock);
}

static void unsplicers_stop(struct unsplicers *u)
{
	unsplicers_idle(u);
	pthread_mutex_lock(&u->lock);
	u->quit = true;
	pthread_cond_broadcast(&u->cond);
	pthread_mutex_unlock(&u->lock);
	for (size_t i = 0; i < UNSPLICERS; i++)
		pthread_join(u->job[i].thread, NULL);
}

static bool near(const struct fn *f, const struct fn *g)
{
	return f && f->start < g->end + 256 && g->start < f->end + 256;
}

/* Whether g may be spliced while the splices and unsplices under way go
 * on: their bytes (bounce slots and evicted neighbours included) lie
 * apart. The lock held. */
static bool clear_of(struct unsplicers *u, const struct fn *g)
{
	for (size_t i = 0; i < UNSPLICERS; i++)
		if (near(u->job[i].f, g))
			return false;
	for (size_t i = 0; i < SPLICERS; i++)
		if (near(u->splicing[i], g))
			return false;
	return true;
}

/* Hands f's splices to a free unsplicer, once there is one; the lock held. */
static void unsplicers_post(struct unsplicers *u, const struct fn *f,
			    const uint32_t *ids, size_t n)
{
	size_t i;

	for (;;) {
		for (i = 0; i < UNSPLICERS && u->job[i].f; i++)
			;
		if (i < UNSPLICERS)
			break;
		pthread_cond_wait(&u->cond, &u->lock);
	}
	memcpy(u->job[i].ids, ids, n * sizeof(*ids));
	u->job[i].n = n;
	u->job[i].f = f;
	pthread_cond_broadcast(&u->cond);
}

static void report(struct unsplicers *u, unsigned long made)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	printf("soak: %lu cycles, %lu splices (%.0f ms a cycle; each took %.0f ms splicing, %.0f ms unsplicing beside)\n",
	       made, __atomic_load_n(&splices, __ATOMIC_RELAXED),
	       secs(&u->t0, &t) * 1e3 / (double)made, u->splice_s * 1e3 / (double)made,
	       u->busy * 1e3 / (double)made);
}

/*
 * A splicer: takes the next cycle until u->upto, waits until its function
 * is clear of those under way, splices it and hands it to an unsplicer.
 */
static void *splicer_run(void *arg)
{
	struct unsplicers *u = ((struct unsplicer_arg *)arg)->u;
	size_t me = ((struct unsplicer_arg *)arg)->i;
	static uint32_t ids[SPLICERS][FN_BLOCKS];

	pthread_mutex_lock(&u->lock);
	while (u->next < u->upto && !u->timed_out) {
		unsigned long c = u->next++;
		struct fn *f = &fns[c % nfns];
		struct timespec a, b;
		size_t n;

		clock_gettime(CLOCK_MONOTONIC, &a);
		if (u->limit > 0 && a.tv_sec - u->t0.tv_sec >= u->limit) {
			u->timed_out = true;
			u->next = c;
			break;
		}
		while (!clear_of(u, f))
			pthread_cond_wait(&u->cond, &u->lock);
		u->splicing[me] = f;
		pthread_mutex_unlock(&u->lock);
		clock_gettime(CLOCK_MONOTONIC, &a);
		n = splice_fn(u->lv, f, "count", ids[me]);
		clock_gettime(CLOCK_MONOTONIC, &b);
		pthread_mutex_lock(&u->lock);
		u->splice_s += secs(&a, &b);
		u->splicing[me] = NULL;
		if (n)
			unsplicers_post(u, f, ids[me], n);
		pthread_cond_broadcast(&u->cond);
		__atomic_add_fetch(&cycles, 1, __ATOMIC_RELAXED);
		if (cycles % 10 == 0)
			report(u, cycles);
	}
	pthread_mutex_unlock(&u->lock);
	return NULL;
}

/* Cycles up to upto, SPLICERS at a time; false once the time limit is hit. */
static bool splicers_run(struct unsplicers *u, unsigned long upto)
{
	static struct unsplicer_arg args[SPLICERS];
	pthread_t t[SPLICERS];
	size_t started = 0;

	u->upto = upto;
	for (size_t i = 0; i < SPLICERS; i++) {
		args[i] = (struct unsplicer_arg){ u, i };
		if (pthread_create(&t[i], NULL, splicer_run, &args[i]) == 0)
			started++;
		else
			badf("no thread for splicer %zu", i);
	}
	if (!started)
		splicer_run(&args[0]);
	for (size_t i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	return !u->timed_out;
}

int main(int argc, char **argv)
{
	unsigned long want = argc > 1 ? strtoul(argv[1], NULL, 0) : 10000;
	/* A time limit on the cycles (0: none): the rest still runs, and the
	 * summary counts the cycles made. */
	long limit = argc > 2 ? strtol(argv[2], NULL, 0) : 0;
	struct live lv;
	static struct unsplicers u = {
		.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER,
	};
	struct gerr e;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (live_open(&lv, NULL, &e)) {
		fprintf(stderr, "soak: %s\n", e.msg);
		return 1;
	}
	u.lv = &lv;
	pick_functions(&lv);
	printf("soak: %zu functions, %lu cycles\n", nfns, want);
	for (size_t i = 0; i < nfns; i++)
		printf("soak:   %s: %zu blocks\n", fns[i].name, fns[i].nplans);
	if (nfns < MIN_FUNCS)
		badf("only %zu of the hot functions found", nfns);
	load_start();
	/*
	 * The loads keep both vCPUs busy; the splicer goes before them when
	 * it has work (it sleeps through every grace period, and the loads
	 * run then and on the other vCPU). At the loads' priority, an
	 * emulated guest gives it a fifth of a CPU, and a cycle takes
	 * seconds.
	 */
	if (setpriority(PRIO_PROCESS, 0, -15))
		perror("soak: setpriority");
	instrument_unload(&lv);
	printf("soak: instrument unload attempted\n");
	nmi_splice(&lv);
	printf("soak: NMI splice done\n");
	if (unsplicers_start(&u)) {
		fprintf(stderr, "soak: no thread for the unsplices\n");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &u.t0);
	u.limit = limit;
	/* every 100 cycles (the first included), a client killed mid-batch,
	 * with nothing else under way */
	while (nfns && u.next < want) {
		if (u.next % 100 == 0) {
			unsplicers_idle(&u);
			kill_mid_batch(&lv, (unsigned)u.next);
		}
		if (!splicers_run(&u, u.next - u.next % 100 + 100 < want ?
				      u.next - u.next % 100 + 100 : want)) {
			printf("soak: the time limit (%ld s) stops the cycles at %lu of %lu\n",
			       limit, cycles, want);
			break;
		}
	}
	unsplicers_stop(&u);
	rmmod_with_1000(&lv);
	load_errors = load_stop();
	unsplice_all(&lv);
	for (size_t i = 0; i < nfns; i++) {
		size_t len = fns[i].end - fns[i].start;
		uint8_t *now = malloc(len);

		if (!now || live_read_mem(&lv, fns[i].start, now, len, &e)) {
			badf("reading %s back: %s", fns[i].name, now ? e.msg : "no memory");
		} else {
			for (size_t b = 0; b < len; b++)
				differ += now[b] != fns[i].snap[b];
		}
		free(now);
	}
	live_close(&lv);
	printf("soak: %lu cycles, %lu splices, %lu faults injected, %lu bad inputs, %lu load errors, %lu text bytes differ\n",
	       cycles, splices, faults, bad, load_errors, differ);
	return bad || load_errors || differ;
}
