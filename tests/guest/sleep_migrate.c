/*
 * A workload for the latency tests: n sleeps of a known length, each begun
 * on CPU 0, while a helper process moves the sleeper to CPU 1, so that it
 * wakes there (under emulation the helper may come late, after the wakeup:
 * the task still returns to user space on CPU 1). A per-CPU pairing of entries and exits would miss every
 * one of them; latency's per-task pairing must time each.
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

static int pin(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(pid, sizeof(set), &set);
}

int sleep_migrate(int n, int ms)
{
	struct timespec len = { ms / 1000, (long)(ms % 1000) * 1000000 };
	struct timespec half = { ms / 2000, (long)(ms % 2000) * 500000 };
	pid_t self = getpid();

	for (int i = 0; i < n; i++) {
		pid_t mover;
		int st;

		if (pin(0, 0))
			return perror("sched_setaffinity"), 1;
		mover = fork();
		if (mover < 0)
			return perror("fork"), 1;
		if (mover == 0) {
			/* It waits without sleeping, so only the sleeper's
			 * sleeps are timed, and on CPU 1, out of the way of
			 * the sleeper waking on CPU 0 if it is late. */
			struct timespec now, until;

			if (pin(0, 1))
				_exit(1);

			clock_gettime(CLOCK_MONOTONIC, &until);
			until.tv_sec += half.tv_sec + (until.tv_nsec + half.tv_nsec) / 1000000000;
			until.tv_nsec = (until.tv_nsec + half.tv_nsec) % 1000000000;
			do
				clock_gettime(CLOCK_MONOTONIC, &now);
			while (now.tv_sec < until.tv_sec ||
			       (now.tv_sec == until.tv_sec && now.tv_nsec < until.tv_nsec));
			_exit(pin(self, 1) ? 1 : 0);
		}
		nanosleep(&len, NULL);
		if (waitpid(mover, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			return fprintf(stderr, "the mover failed\n"), 1;
		if (sched_getcpu() != 1)
			return fprintf(stderr, "sleep %d ended on CPU %d, not 1\n", i, sched_getcpu()), 1;
	}
	return 0;
}
