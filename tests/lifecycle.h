/* The lifecycles the torture runs beside its load (lifecycle.c). */
#ifndef GILK_TESTS_LIFECYCLE_H
#define GILK_TESTS_LIFECYCLE_H

#include <pthread.h>

struct lifecycle_counts {
	unsigned long cpu_cycles;	/* a CPU taken off line and back */
	unsigned long suspends;		/* suspended to RAM and resumed */
	unsigned long suspend_refusals;	/* the kernel would not suspend then */
	unsigned long module_loads;	/* gilk_target loaded, spliced, unloaded */
	unsigned long module_facts;	/* FACTS on its text while it loaded */
	unsigned long reloads;		/* gilk.ko removed and inserted (torture.c) */
	unsigned long errors;		/* a lifecycle that failed: each said */
};

/*
 * Held by whoever removes gilk.ko (torture.c) and by the lifecycles while
 * they use /dev/gilk, so that none is open then.
 */
extern pthread_mutex_t lifecycle_gilk;

/* Starts the lifecycles in a thread; every_suspend: rounds between two
 * suspends (0: none). */
void lifecycle_start(unsigned every_suspend);
/* Stops them and says what they did. */
void lifecycle_stop(struct lifecycle_counts *out);
/* Counted with the others (torture.c removes and inserts gilk.ko). */
void lifecycle_count_reload(int ok);

#endif
