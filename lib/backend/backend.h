/* One interface over the two ways of reaching the counters: the perfmon
 * kernel module (/dev/perfmon) and perf_event_open(2).  What a backend
 * opens is a group: the events of one event set (or, on a backend that
 * switches sets itself, of several) on one target.  A group counts;
 * opened with sampling settings it also samples: sampling is counting
 * plus a buffer (sampler.h).  Both backends implement the one table of
 * operations below, and the rest of the library sees only it. */
#ifndef PX_BACKEND_H
#define PX_BACKEND_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "events.h"
#include "sampler.h"
#include "scale.h"

/* What to measure: a thread/process, or every task on one CPU. */
struct px_target {
	pid_t pid;		/* the task, or -1 with cpu >= 0 for a CPU */
	int cpu;		/* -1: wherever the task runs */
	bool inherit;		/* count children created after the open */
	bool enable_on_exec;	/* start at the task's next execve() */
};

struct px_backend;

/* An open group.  Each backend's groups begin with this part, the one the
 * library reads: which backend opened it and whether it samples. */
struct px_group {
	const struct px_backend *backend;
	bool sampling;
};

/* How a group is opened. */
struct px_group_opts {
	/* Several sets (a backend with switches_sets): the backend makes
	 * them active in turn, round robin, every switch_ns of the target's
	 * time (a thread's CPU time, a CPU's wall time); a sampling set
	 * whose first event is a trigger (switch_ovfls) after that many
	 * overflows instead. */
	uint64_t switch_ns;
	/* NULL: the group counts.  Else it samples: pmds[s][i] is event i of
	 * set s's sampling settings, and smpl the buffer's. */
	const struct px_smpl_pmd *const *pmds;
	struct px_smpl_opts smpl;
};

/* A backend: what it can do, and the operations on its groups.
 * Operations marked "sampling" are called on sampling groups only (the
 * px_group_* calls below answer for counting groups: nothing to poll,
 * no records); those marked optional may be NULL. */
struct px_backend {
	const char *name;
	/* open() takes several sets and switches them itself (the module);
	 * else the tool opens one group per set and switches them by
	 * disable() and enable() */
	bool switches_sets;
	/* sampling records its tasks' mappings and names as they happen (a
	 * side band); else the session reads them from /proc when a traced
	 * process exits */
	bool task_mappings;
	/* sampling follows a command's children and threads itself (perf's
	 * inherit); else the session traces them and opens a group on each */
	bool sampling_inherits;

	/* 0 when the backend can be used here, else -errno and the reason
	 * in px_last_error(). */
	int (*probe)(void);
	/* Open the sets' events on the target, stopped (or armed for exec
	 * with t->enable_on_exec).  A counted event this machine cannot
	 * count gets status[i] = -EOPNOTSUPP and no counter (status covers
	 * every set's events, one set after the other); any other failure
	 * closes everything and returns -errno.  The events may be adjusted
	 * (the perf backend drops kernel counting when
	 * perf_event_paranoid requires it and the user did not ask for a
	 * privilege level). */
	int (*open)(struct px_event_set *sets, size_t nsets,
		    const struct px_target *t, const struct px_group_opts *o,
		    int *status, struct px_group **out);
	/* Whether a sampling group with these settings stops its task at
	 * every overflow (optional: never).  The session then opens it on
	 * the traced task stopped (the command just after its exec) and
	 * polls it at each stop. */
	bool (*stops)(const struct px_smpl_pmd *pmds, size_t n);
	/* Start the group's counting and sampling (the first time also
	 * its records of mappings and tasks), and stop them; the records go
	 * on until finish().  Several sets: the whole, from the active set. */
	int (*enable)(struct px_group *g);
	int (*disable)(struct px_group *g);
	/* counts[i] for every event of every set: its count and the time
	 * its set was enabled and ran (events without a counter read as
	 * zero times, that is, not counted). */
	int (*read)(struct px_group *g, struct px_count *counts);
	/* Optional, several sets: runs[s] = how many times set s was made
	 * active so far; acts[i] for every event (as read()'s counts), the
	 * sums over its set's activations so far (scale.h). */
	int (*set_runs)(struct px_group *g, uint64_t *runs, size_t nsets);
	int (*activations)(struct px_group *g, struct px_activations *acts);
	void (*close)(struct px_group *g);

	/* Sampling: disable, process what is left and hand over the
	 * buffer's last samples. */
	int (*finish)(struct px_group *g);
	/* Sampling: wait up to timeout_ms for work, then process it. */
	int (*poll)(struct px_group *g, int timeout_ms);
	/* Sampling: the descriptors that wake the caller when poll() has
	 * work: the count, the first max of them in fds. */
	size_t (*pollfds)(const struct px_group *g, struct pollfd *fds, size_t max);
	/* Sampling, optional: the stopped task pid ran another program. */
	int (*exec)(struct px_group *g, pid_t pid);
	/* Sampling, optional: the set's trigger has ended its turn (the
	 * tool switches the sets). */
	bool (*switch_due)(const struct px_group *g);
	/* Sampling: the statistics, and the mappings and task events
	 * recorded so far (valid until close). */
	void (*stats)(const struct px_group *g, struct px_smpl_stats *st);
	size_t (*mappings)(const struct px_group *g, const struct px_mapping **m);
	size_t (*tasks)(const struct px_group *g, const struct px_task_event **t);
};

extern const struct px_backend px_backend_perf;
extern const struct px_backend px_backend_module;

/* "auto", "perf" or "module".  auto picks the module when /dev/perfmon
 * is present and this user may open it, and the perf backend otherwise,
 * for counting and sampling alike.
 * Returns 0 and *out, or -errno with a message naming what is missing. */
int px_backend_select(const char *name, const struct px_backend **out);

/* What a backend cannot do with these sets on this target, checked before
 * anything is opened, so that every front end gives the same error:
 * several sets where neither the backend nor the tool can switch them (a
 * sampling group that stops its task takes one set), a stopping group on
 * a CPU or followed tasks, a trigger the tool would switch on several
 * tasks.  pmds NULL: counting.  0, or -EINVAL with px_last_error() saying
 * what to change. */
int px_backend_check(const struct px_backend *be,
		     const struct px_event_set *sets, size_t nsets,
		     const struct px_smpl_pmd *const *pmds,
		     bool system_wide, bool follow);

/* The operations on a group, through its backend. */
static inline int px_group_enable(struct px_group *g)
{
	return g->backend->enable(g);
}

static inline int px_group_disable(struct px_group *g)
{
	return g->backend->disable(g);
}

static inline int px_group_read(struct px_group *g, struct px_count *counts)
{
	return g->backend->read(g, counts);
}

static inline void px_group_close(struct px_group *g)
{
	if (g)
		g->backend->close(g);
}

/* -EOPNOTSUPP when the backend keeps no such account. */
int px_group_set_runs(struct px_group *g, uint64_t *runs, size_t nsets);
int px_group_activations(struct px_group *g, struct px_activations *acts);
/* Counting groups: finish() disables, poll() and exec() do nothing,
 * pollfds() has none, switch_due() is false and there are no records. */
int px_group_finish(struct px_group *g);
int px_group_poll(struct px_group *g, int timeout_ms);
size_t px_group_pollfds(const struct px_group *g, struct pollfd *fds, size_t max);
int px_group_exec(struct px_group *g, pid_t pid);
bool px_group_switch_due(const struct px_group *g);
void px_group_stats(const struct px_group *g, struct px_smpl_stats *st);
size_t px_group_mappings(const struct px_group *g, const struct px_mapping **m);
size_t px_group_tasks(const struct px_group *g, const struct px_task_event **t);

#endif
