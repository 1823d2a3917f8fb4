/*
 * The lifecycles of the torture's load: paths an ordinary load never runs,
 * where the kernel's own assumptions (a per-CPU base, RCU watching, a
 * module's symbols) do not hold yet or any more. A thread, a round a
 * second:
 *  - every CPU but the first taken off line and back on;
 *  - every few rounds, the guest suspended to RAM and woken by its RTC
 *    (the kernel may refuse, under the load: counted apart);
 *  - every other round gilk_target loaded with holdlive, so that it stays
 *    live with its init symbols a while, FACTS asked of its text all that
 *    time, then its blocks spliced by a gilk process, removed, and the
 *    module unloaded.
 * gilk.ko's own removal with splices in place is torture.c's (it holds the
 * open /dev/gilk). Each failure is said on stdout ("torture: lifecycle:
 * ...") and counted.
 */
#include "lifecycle.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uapi/gilk.h"

pthread_mutex_t lifecycle_gilk = PTHREAD_MUTEX_INITIALIZER;

static pthread_t thread;
static bool started;
static volatile bool stopping;
static unsigned suspend_every;
static pthread_mutex_t counts_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lifecycle_counts counts;

static void count(unsigned long *c)
{
	pthread_mutex_lock(&counts_lock);
	(*c)++;
	pthread_mutex_unlock(&counts_lock);
}

static void failed(const char *fmt, const char *what)
{
	printf("torture: lifecycle: ");
	printf(fmt, what, strerror(errno));
	printf("\n");
	count(&counts.errors);
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

static void cpu_cycles(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	for (long c = 1; c < n && !stopping; c++) {
		char path[96];

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/online", c);
		if (write_file(path, "0") || write_file(path, "1")) {
			failed("taking %s off and on line: %s", path);
			write_file(path, "1");
			continue;
		}
		count(&counts.cpu_cycles);
	}
}

static void suspend(void)
{
	write_file("/sys/class/rtc/rtc0/wakealarm", "0");
	/* an alarm that goes off before the guest is asleep wakes nothing:
	 * under a loaded emulator suspending takes seconds */
	if (write_file("/sys/class/rtc/rtc0/wakealarm", "+10")) {
		failed("setting %s: %s", "the RTC's wake alarm");
		return;
	}
	if (write_file("/sys/power/state", "mem")) {
		/* frozen tasks that would not freeze, a device busy: the
		 * kernel's call, not a failure of gilk's */
		if (errno == EBUSY || errno == EAGAIN) {
			count(&counts.suspend_refusals);
			return;
		}
		failed("suspending to %s: %s", "RAM");
		return;
	}
	count(&counts.suspends);
}

/* The module's text, from sysfs (there from before its init runs). */
static uint64_t module_text(void)
{
	FILE *f = fopen("/sys/module/gilk_target/sections/.text", "r");
	unsigned long long a = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%llx", &a) != 1)
		a = 0;
	fclose(f);
	return a;
}

static void facts_of(int fd, uint64_t text)
{
	struct gilk_fact out[64];
	struct gilk_facts q = { .start = text, .end = text + 4096, .max = 64,
				.buf = (uintptr_t)out };

	if (ioctl(fd, GILK_IOC_FACTS, &q) == 0)
		count(&counts.module_facts);
	else
		failed("FACTS of %s while it loads: %s", "gilk_target");
}

static int run(const char *cmd, char *out, size_t len)
{
	FILE *p = popen(cmd, "r");
	size_t n = 0;

	if (!p)
		return -1;
	while (out && n + 1 < len && fgets(out + n, (int)(len - n), p))
		n += strlen(out + n);
	if (out)
		out[n] = '\0';
	return pclose(p) == 0 ? 0 : -1;
}

/*
 * The ids of the splices in gilk_target's text, from "info splices": a
 * batch's ids need not follow each other while the torture splices too.
 */
static int target_splices(char *cmd, size_t len)
{
	char out[16384], *line, *save;
	int n = snprintf(cmd, len, "build/gilk -c 'unsplice"), found = 0;

	/* its rows only: the torture's thousands would fill any buffer */
	if (run("build/gilk -c 'info splices' 2>&1 | grep -E '^ *[0-9]+ +gilk_target_'", out,
		sizeof(out)) && out[0])
		return -1;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned id;
		char site[128];

		if (sscanf(line, " %u %127s", &id, site) == 2 &&
		    !strncmp(site, "gilk_target_", 12) && n < (int)len - 16) {
			n += snprintf(cmd + n, len - n, " %u", id);
			found++;
		}
	}
	snprintf(cmd + n, len - n, "' >/dev/null 2>&1");
	return found;
}

/* rmmod, again while the module is busy for a moment (a reference held
 * while gilk asks about its text): 0, or -1 with its last word in out. */
static int unload_target(char *out, size_t len)
{
	for (int i = 0; i < 50; i++) {
		if (!run("rmmod gilk_target 2>&1", out, len))
			return 0;
		usleep(100000);
	}
	return -1;
}

/*
 * gilk_target loaded, held live with its init symbols 600 ms while FACTS
 * reads its text, spliced whole once settled, unspliced, and unloaded.
 */
static void module_cycle(void)
{
	char out[4096], cmd[4096];
	int fd, st, n;
	pid_t pid;

	pthread_mutex_lock(&lifecycle_gilk);
	/* one a failed round left */
	if (!access("/sys/module/gilk_target", F_OK) && unload_target(out, sizeof(out))) {
		errno = EBUSY;
		failed("unloading %s left loaded: %s", "gilk_target");
		goto out;
	}
	fd = open("/dev/gilk", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		failed("opening %s: %s", "/dev/gilk");
		goto out;
	}
	pid = fork();
	if (pid == 0) {
		execlp("insmod", "insmod", "build/tests/gilk_target.ko", "holdlive=600",
		       (char *)NULL);
		_exit(127);
	}
	if (pid < 0) {
		failed("forking %s: %s", "insmod");
		goto close;
	}
	while (waitpid(pid, &st, WNOHANG) == 0) {
		uint64_t text = module_text();

		if (text)
			facts_of(fd, text);
		usleep(20000);
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		failed("loading %s: %s", "gilk_target");
		goto close;
	}
	close(fd);
	fd = -1;
	if (run("build/gilk -c 'splice --blocks gilk_target_warn gilk_target_pad gilk_target_evict "
		"gilk_target_flags gilk_target_recurse' 2>&1", out, sizeof(out)) ||
	    !strstr(out, "in one batch: splices ")) {
		errno = EINVAL;
		failed("splicing %s: %s", "gilk_target's blocks");
	}
	n = target_splices(cmd, sizeof(cmd));
	if (n <= 0 || run(cmd, NULL, 0)) {
		errno = EINVAL;
		failed("unsplicing %s: %s", "gilk_target's blocks");
	}
	if (unload_target(out, sizeof(out))) {
		printf("torture: lifecycle: rmmod gilk_target said: %s", out);
		errno = EBUSY;
		failed("unloading %s: %s", "gilk_target");
		goto close;
	}
	count(&counts.module_loads);
close:
	if (fd >= 0)
		close(fd);
out:
	pthread_mutex_unlock(&lifecycle_gilk);
}

static void *lifecycles(void *arg)
{
	(void)arg;
	for (unsigned long round = 0; !stopping; round++) {
		cpu_cycles();
		/* the second round first: a short hold (every entry at once)
		 * meets one too */
		if (!stopping && suspend_every && round % suspend_every == 1)
			suspend();
		if (!stopping && round % 2)
			module_cycle();
		sleep(1);
	}
	return NULL;
}

void lifecycle_start(unsigned every_suspend)
{
	suspend_every = every_suspend;
	stopping = false;
	started = !pthread_create(&thread, NULL, lifecycles, NULL);
	if (!started) {
		errno = EAGAIN;
		failed("starting %s: %s", "the lifecycles");
	}
}

void lifecycle_stop(struct lifecycle_counts *out)
{
	stopping = true;
	if (started)
		pthread_join(thread, NULL);
	started = false;
	pthread_mutex_lock(&counts_lock);
	*out = counts;
	pthread_mutex_unlock(&counts_lock);
}

void lifecycle_count_reload(int ok)
{
	if (ok) {
		count(&counts.reloads);
	} else {
		errno = EIO;
		failed("removing and inserting %s: %s", "gilk.ko");
	}
}
