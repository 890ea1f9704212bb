/* The perf_event_open(2) backend: its counting groups (one counter per
 * event) and its sampling groups (sampler_perf.c), one table of
 * operations over both. */
#include "backend.h"
#include "error.h"
#include "perf_syscall.h"
#include "sampler_perf.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"

/* A counting group. */
struct perf_state {
	struct px_group group;	/* first: what the library sees */
	size_t n;
	int fds[];		/* -1 for events without a counter */
};

static struct perf_state *counters(struct px_group *g)
{
	return (struct perf_state *)g;
}

static int read_paranoid(void)
{
	FILE *f = fopen(PARANOID_PATH, "r");
	int level = 2;

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = 2;
		fclose(f);
	}
	return level;
}

static void fill_attr(const struct px_event *ev, const struct px_target *t,
		      struct perf_event_attr *attr)
{
	px_perf_event_attr(ev, attr);
	attr->disabled = 1;
	attr->inherit = t->inherit;
	attr->enable_on_exec = t->enable_on_exec;
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			    PERF_FORMAT_TOTAL_TIME_RUNNING;
}

/* The kernel's answers for "this machine has no such counter". */
static bool not_supported(int err, const struct px_event *ev)
{
	if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV)
		return true;
	/* hardware and cache events without a PMU come back as EINVAL too */
	return err == EINVAL && ev->type <= PERF_TYPE_HW_CACHE &&
	       ev->type != PERF_TYPE_SOFTWARE;
}

static int permission_error(const struct px_event *ev, const struct px_target *t,
			    int err)
{
	int level = read_paranoid();

	if (t->pid < 0)
		return px_fail(err,
			       "no permission to count '%s' on CPU %d: system-wide counting needs root, CAP_PERFMON or kernel.perf_event_paranoid <= 0 (it is %d): run 'sysctl kernel.perf_event_paranoid=0' as root",
			       ev->name, t->cpu, level);
	return px_fail(err,
		       "no permission to count '%s': kernel.perf_event_paranoid is %d; counting kernel events needs <= 1 and user events <= 2: run 'sysctl kernel.perf_event_paranoid=1' as root, or add :u to count user space only",
		       ev->name, level);
}

/* Open one counter; with kernel counting refused by perf_event_paranoid
 * and no privilege level asked for, count user space only, as perf does. */
static int open_one(struct px_event *ev, const struct px_target *t)
{
	struct perf_event_attr attr;
	int fd;

	fill_attr(ev, t, &attr);
	fd = px_perf_event_open(&attr, t->pid, t->cpu, -1);
	if ((fd == -EACCES || fd == -EPERM) &&
	    !ev->priv_explicit && !ev->exclude_kernel && t->pid >= 0) {
		ev->exclude_kernel = true;
		ev->exclude_hv = true;
		ev->kernel_dropped = true;
		fill_attr(ev, t, &attr);
		fd = px_perf_event_open(&attr, t->pid, t->cpu, -1);
	}
	return fd;
}

static void close_fds(struct perf_state *st)
{
	for (size_t i = 0; i < st->n; i++)
		if (st->fds[i] >= 0)
			close(st->fds[i]);
	free(st);
}

static int perf_probe(void)
{
	if (access(PARANOID_PATH, F_OK))
		return px_fail(ENODEV,
			       "this kernel has no perf_events support (%s is missing)",
			       PARANOID_PATH);
	return 0;
}

static int open_counters(struct px_event *evs, size_t n, const struct px_target *t,
			 int *status, struct px_group **out)
{
	struct perf_state *st = malloc(sizeof(*st) + n * sizeof(int));

	if (!st)
		return px_fail(ENOMEM, "out of memory");
	st->group = (struct px_group){ .backend = &px_backend_perf };
	st->n = n;
	for (size_t i = 0; i < n; i++) {
		int fd = open_one(&evs[i], t);

		st->fds[i] = fd < 0 ? -1 : fd;
		status[i] = 0;
		if (fd >= 0)
			continue;
		if (not_supported(-fd, &evs[i])) {
			status[i] = -EOPNOTSUPP;
			continue;
		}
		st->n = i;
		close_fds(st);
		if (fd == -EACCES || fd == -EPERM)
			return permission_error(&evs[i], t, -fd);
		if (fd == -ESRCH)
			return px_fail(ESRCH, "no task %d to count", (int)t->pid);
		if (fd == -EMFILE)
			return px_fail(EMFILE,
				       "too many open files for %zu counters: raise 'ulimit -n'",
				       n);
		return px_fail(-fd, "cannot open a counter for '%s': %s",
			       evs[i].name, strerror(-fd));
	}
	*out = &st->group;
	return 0;
}

/* One set per group: the tool switches the sets (switches_sets false). */
static int perf_open(struct px_event_set *sets, size_t nsets,
		     const struct px_target *t, const struct px_group_opts *o,
		     int *status, struct px_group **out)
{
	struct px_sampler *s;
	int ret;

	*out = NULL;
	if (nsets != 1)
		return px_fail(EINVAL, "the perf backend opens one event set per group, not %zu",
			       nsets);
	if (!o || !o->pmds)
		return open_counters(sets[0].events, sets[0].n, t, status, out);
	ret = px_sampler_open(sets[0].events, sets[0].n, o->pmds[0], t, &o->smpl, &s);
	if (ret)
		return ret;
	memset(status, 0, sets[0].n * sizeof(*status));
	*out = px_sampler_group(s);
	return 0;
}

static int ioctl_all(struct perf_state *st, unsigned long request)
{
	for (size_t i = 0; i < st->n; i++)
		if (st->fds[i] >= 0 && ioctl(st->fds[i], request, 0))
			return px_fail(errno, "perf_events ioctl failed: %s",
				       strerror(errno));
	return 0;
}

/* A sampling group's disable stops its samples only: its side band
 * records on until finish (sampler_perf.h). */
static int perf_enable(struct px_group *g)
{
	return g->sampling ? px_sampler_enable(px_group_sampler(g)) :
			     ioctl_all(counters(g), PERF_EVENT_IOC_ENABLE);
}

static int perf_disable(struct px_group *g)
{
	return g->sampling ? px_sampler_pause(px_group_sampler(g), false) :
			     ioctl_all(counters(g), PERF_EVENT_IOC_DISABLE);
}

static int read_counters(struct perf_state *st, struct px_count *counts)
{
	for (size_t i = 0; i < st->n; i++) {
		uint64_t buf[3];
		ssize_t got;

		memset(&counts[i], 0, sizeof(counts[i]));
		if (st->fds[i] < 0)
			continue;
		got = read(st->fds[i], buf, sizeof(buf));
		if (got != (ssize_t)sizeof(buf))
			return px_fail(got < 0 ? errno : EIO,
				       "cannot read a counter: %s",
				       got < 0 ? strerror(errno) : "short read");
		counts[i].value = buf[0];
		counts[i].enabled = buf[1];
		counts[i].running = buf[2];
	}
	return 0;
}

static int perf_read(struct px_group *g, struct px_count *counts)
{
	return g->sampling ? px_sampler_read(px_group_sampler(g), counts) :
			     read_counters(counters(g), counts);
}

static void perf_close(struct px_group *g)
{
	if (g->sampling)
		px_sampler_close(px_group_sampler(g));
	else
		close_fds(counters(g));
}

static int perf_finish(struct px_group *g)
{
	return px_sampler_finish(px_group_sampler(g));
}

static int perf_poll(struct px_group *g, int timeout_ms)
{
	return px_sampler_poll(px_group_sampler(g), timeout_ms);
}

static size_t perf_pollfds(const struct px_group *g, struct pollfd *fds, size_t max)
{
	return px_sampler_pollfds(px_group_sampler(g), fds, max);
}

static int perf_exec(struct px_group *g, pid_t pid)
{
	return px_sampler_exec(px_group_sampler(g), pid);
}

static bool perf_switch_due(const struct px_group *g)
{
	return px_sampler_switch_due(px_group_sampler(g));
}

static void perf_stats(const struct px_group *g, struct px_smpl_stats *st)
{
	px_sampler_stats(px_group_sampler(g), st);
}

static size_t perf_mappings(const struct px_group *g, const struct px_mapping **m)
{
	return px_sampler_mappings(px_group_sampler(g), m);
}

static size_t perf_tasks(const struct px_group *g, const struct px_task_event **t)
{
	return px_sampler_tasks(px_group_sampler(g), t);
}

const struct px_backend px_backend_perf = {
	.name = "perf",
	.switches_sets = false,
	.task_mappings = true,
	.sampling_inherits = true,
	.probe = perf_probe,
	.open = perf_open,
	.stops = px_smpl_periods_change,
	.enable = perf_enable,
	.disable = perf_disable,
	.read = perf_read,
	.close = perf_close,
	.finish = perf_finish,
	.poll = perf_poll,
	.pollfds = perf_pollfds,
	.exec = perf_exec,
	.switch_due = perf_switch_due,
	.stats = perf_stats,
	.mappings = perf_mappings,
	.tasks = perf_tasks,
};
