/* A thread's counter state (include/px_counters.h) inside libpx: shared
 * by the counting (counters.c) and interrupt mode (interrupt.c). */
#ifndef PX_SELF_COUNTERS_STATE_H
#define PX_SELF_COUNTERS_STATE_H

#include "backend.h"
#include "children.h"
#include "events.h"
#include "px_counters.h"

#include <linux/perf_event.h>
#include <stdbool.h>

struct counter {
	struct px_event ev;
	int fd;
	struct perf_event_mmap_page *page;	/* NULL: read(2) only */
	uint64_t base;		/* a preserved sum's part before its reopening */
	uint64_t overflow;	/* interrupt mode: events between two signals */
	bool armed;		/* its next overflow stops it and signals */
	enum px_read_path path;
};

struct px_counters {
	pid_t tid;		/* 0: the thread that opened it */
	bool running;
	bool syscall_only;	/* PX_COUNTERS_READ=syscall: never in user space */
	unsigned n;
	unsigned leader;	/* the group's leader: the first interrupt-mode counter, else 0 */
	struct counter ctr[PX_COUNTERS_MAX];
	struct px_counters_sums stopped;	/* the sums at the last stop */
	struct px_children *children;		/* with ctl.inherit */
	struct px_group *group;			/* on the module: its context */
	struct px_counters_control control;	/* as programmed; events c's copy */
};

/* Interrupt mode (interrupt.c). */

/* Check ctl's interrupt settings for n events: 0 or -errno. */
int px_interrupt_check(const struct px_counters_control *ctl, unsigned n);

/* Counter k's event attributes and descriptor for interrupt mode: its
 * period, and the signal to the counted thread at each overflow. */
void px_interrupt_attr(const struct counter *k, struct perf_event_attr *a);
int px_interrupt_setup(const struct px_counters *c, const struct counter *k, int signo);

/* Arm counter i when it is in interrupt mode and not armed (its next
 * overflow stops it and signals), which enables it: 1 when it did, 0
 * when there was nothing to do, or -errno. */
int px_interrupt_arm(struct px_counters *c, unsigned i);

#endif
