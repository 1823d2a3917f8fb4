/*
 * The checked load the soak and the torture run on both vCPUs while they
 * splice: loopback TCP echo with checksums, file write and read-back,
 * fork/exit with exit codes checked, and a getpid/getppid loop. One process
 * each, pausing a little every round so that the splicer (and grace
 * periods) still get a turn under an emulator; each counts the integrity
 * failures it saw, and so do crashes.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "load.h"

static volatile sig_atomic_t stop;

static void on_term(int s)
{
	(void)s;
	stop = 1;
}

static uint32_t sum(const uint8_t *b, size_t n)
{
	uint32_t s = 0;

	for (size_t i = 0; i < n; i++)
		s = s * 31 + b[i];
	return s;
}

static void lo_up(void)
{
	struct ifreq r = { 0 };
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	snprintf(r.ifr_name, sizeof(r.ifr_name), "lo");
	if (s >= 0 && ioctl(s, SIOCGIFFLAGS, &r) == 0) {
		r.ifr_flags |= IFF_UP;
		ioctl(s, SIOCSIFFLAGS, &r);
	}
	if (s >= 0)
		close(s);
}

static int full_io(int fd, void *b, size_t n, int wr)
{
	for (size_t d = 0; d < n;) {
		ssize_t r = wr ? write(fd, (char *)b + d, n - d) : read(fd, (char *)b + d, n - d);

		if (r <= 0)
			return -1;
		d += (size_t)r;
	}
	return 0;
}

/* A 1 ms sleep every n rounds. */
static void pause_every(unsigned k, unsigned n)
{
	if (k % n == n - 1)
		usleep(1000);
}

static long load_tcp(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1, c, s;
	long errs = 0;
	pid_t echo;

	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 1) ||
	    getsockname(ls, (struct sockaddr *)&a, &al))
		return 1;
	echo = fork();
	if (echo == 0) {
		uint8_t b[4096];
		ssize_t r;

		s = accept(ls, NULL, NULL);
		while ((r = read(s, b, sizeof(b))) > 0)
			if (full_io(s, b, (size_t)r, 1))
				break;
		_exit(0);
	}
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(c, (struct sockaddr *)&a, sizeof(a)))
		return 1;
	for (unsigned k = 0; !stop; k++) {
		uint8_t out[1500], in[1500];
		size_t n = 1 + k % sizeof(out);

		pause_every(k, 64);
		for (size_t i = 0; i < n; i++)
			out[i] = (uint8_t)(k * 7 + i * 13);
		if (full_io(c, out, n, 1) || full_io(c, in, n, 0) || sum(in, n) != sum(out, n)) {
			if (!errs++)
				fprintf(stderr, "load: tcp echo of %zu bytes came back wrong\n", n);
			if (errs > 100)
				break;
		}
	}
	close(c);
	kill(echo, SIGKILL);
	waitpid(echo, NULL, 0);
	return errs;
}

static long load_file(void)
{
	static uint8_t out[65536], in[65536];
	char path[64];
	long errs = 0;

	snprintf(path, sizeof(path), "/tmp/load.%d", getpid());
	for (unsigned k = 0; !stop; k++) {
		int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);

		pause_every(k, 1);
		for (size_t i = 0; i < sizeof(out); i++)
			out[i] = (uint8_t)(k + i * 131);
		if (fd < 0 || full_io(fd, out, sizeof(out), 1) || fsync(fd) ||
		    lseek(fd, 0, SEEK_SET) || full_io(fd, in, sizeof(in), 0) ||
		    memcmp(in, out, sizeof(in))) {
			if (!errs++)
				fprintf(stderr, "load: file read-back differs (round %u)\n", k);
		}
		if (fd >= 0)
			close(fd);
		unlink(path);
	}
	return errs;
}

static long load_fork(void)
{
	long errs = 0;

	for (unsigned k = 0; !stop; k++) {
		pid_t p = fork();
		int st;

		pause_every(k, 4);
		if (p == 0)
			_exit((int)(k & 0x7f));
		if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != (int)(k & 0x7f)) {
			if (!errs++)
				fprintf(stderr, "load: fork/exit round %u: wrong status\n", k);
		}
	}
	return errs;
}

static long load_syscalls(void)
{
	long errs = 0, pid = syscall(SYS_getpid), ppid = syscall(SYS_getppid);

	for (unsigned k = 0; !stop; k++) {
		pause_every(k, 64);
		if ((syscall(SYS_getpid) != pid || syscall(SYS_getppid) != ppid) && !errs++)
			fprintf(stderr, "load: getpid/getppid answered wrong\n");
	}
	return errs;
}

static pid_t loads[8];
static size_t nloads;

/* A load process: runs fn until SIGTERM, exits with its failure count. */
static long (*load_fn)(void);
static void run_load(void)
{
	long n;

	/* Not holding /dev/gilk open, or gilk.ko could not be unloaded. */
	for (int fd = 3; fd < 256; fd++)
		close(fd);
	signal(SIGTERM, on_term);
	n = load_fn();
	_exit(n > 255 ? 255 : (int)n);
}

static void start(long (*fn)(void))
{
	pid_t p;

	load_fn = fn;
	p = fork();
	if (p == 0)
		run_load();
	loads[nloads++] = p;
}

void load_start(void)
{
	lo_up();
	start(load_tcp);
	start(load_file);
	start(load_fork);
	start(load_syscalls);
}

unsigned long load_stop(void)
{
	unsigned long errors = 0;

	for (size_t i = 0; i < nloads; i++) {
		int st;

		kill(loads[i], SIGTERM);
		waitpid(loads[i], &st, 0);
		if (!WIFEXITED(st))
			errors++;
		else
			errors += (unsigned long)WEXITSTATUS(st);
	}
	nloads = 0;
	return errors;
}

