/* libpx's counters on the perfmon module (/dev/perfmon), where a program
 * asks for it: the thread's events as one set of a perfmon2 context
 * loaded on the thread, through the module backend the front ends use. */
#ifndef PX_SELF_COUNTERS_MODULE_H
#define PX_SELF_COUNTERS_MODULE_H

#include "backend.h"
#include "px_counters.h"

#include <stdbool.h>

/* Which backend a control asks for: ctl->backend, else the environment's
 * PX_COUNTERS_BACKEND, else perf.  true for the module, false for perf;
 * -EINVAL for a name that is neither (with the message). */
int px_counters_want_module(const struct px_counters_control *ctl);

/* Events evs[0..n) of thread tid (0: the caller) on the module, stopped. */
int px_module_counters_open(struct px_group **g, struct px_event *evs, unsigned n, pid_t tid);

/* The sums now: n counts (the module reads with an ioctl). */
int px_module_counters_read(struct px_group *g, struct px_counters_sums *s, unsigned n);

#endif
