/* The checked load of the soak and the torture (load.c). */
#ifndef GILK_TESTS_LOAD_H
#define GILK_TESTS_LOAD_H

/* Starts the four loads, each in a process of its own. */
void load_start(void);
/* Stops them: the integrity failures they saw (a crashed one counts 1). */
unsigned long load_stop(void);

#endif
