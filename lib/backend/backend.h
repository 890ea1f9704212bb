/* One interface over the two ways of reaching the counters: the perfmon
 * kernel module (/dev/perfmon) and perf_event_open(2).  Front ends and the
 * rest of the library see only this. */
#ifndef PX_BACKEND_H
#define PX_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "events.h"
#include "scale.h"

/* What to measure: a thread/process, or every task on one CPU. */
struct px_target {
	pid_t pid;		/* the task, or -1 with cpu >= 0 for a CPU */
	int cpu;		/* -1: wherever the task runs */
	bool inherit;		/* count children created after the open */
	bool enable_on_exec;	/* start at the task's next execve() */
};

struct px_sampler_ops;

struct px_backend {
	const char *name;
	/* the backend's sampler: sampling is counting plus a buffer
	 * (sampler.h) */
	const struct px_sampler_ops *sampler;
	/* 0 when the backend can be used here, else -errno and the reason in
	 * px_last_error(). */
	int (*probe)(void);
	/* Open one counter per event on the target, all stopped (or armed for
	 * exec with enable_on_exec).  An event this machine cannot count gets
	 * status[i] = -EOPNOTSUPP and no counter; any other failure closes
	 * everything and returns -errno.  evs may be adjusted (the perf
	 * backend drops kernel counting when perf_event_paranoid requires
	 * it and the user did not ask for a privilege level). */
	int (*open)(struct px_event *evs, size_t n, const struct px_target *t,
		    int *status, void **state);
	int (*enable)(void *state);
	int (*disable)(void *state);
	/* counts[i] for every event; events without a counter read as zero
	 * enabled and running time (that is, not counted). */
	int (*read)(void *state, struct px_count *counts);
	void (*close)(void *state);
	/* Optional (NULL: the tool rotates the sets itself, one open() per
	 * set).  Open all nsets event sets on the target in one state that
	 * the backend switches among itself, round robin, every switch_ns of
	 * the target's time (a thread's CPU time, a CPU's wall time) while
	 * enabled.  status[] and read()'s counts[] are the sets' events one
	 * set after the other; each count's enabled and running time is the
	 * time its set was active (running less if the set's own counters
	 * were multiplexed).  enable() and disable() start and stop the
	 * whole, beginning with set 0; close() as for open(). */
	int (*open_sets)(struct px_event_set *sets, size_t nsets,
			 const struct px_target *t, uint64_t switch_ns,
			 int *status, void **state);
	/* Optional with open_sets: runs[s] = how many times set s was made
	 * active so far. */
	int (*set_runs)(void *state, uint64_t *runs, size_t nsets);
	/* Optional with open_sets: acts[i] for every event (as read()'s
	 * counts), the sums over its set's activations so far that give the
	 * spread of its rate (px_activations, scale.h). */
	int (*activations)(void *state, struct px_activations *acts);
};

extern const struct px_backend px_backend_perf;
extern const struct px_backend px_backend_module;

/* "auto", "perf" or "module".  auto picks the module when /dev/perfmon
 * is present and this user may open it, and the perf backend otherwise,
 * for counting and sampling alike.
 * Returns 0 and *out, or -errno with a message naming what is missing. */
int px_backend_select(const char *name, const struct px_backend **out);

#endif
