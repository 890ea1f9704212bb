/* The perf sampler (sampler_perf.c) as a px_sampler_ops, the interface
 * the session engine (lib/session/monitor.c) drives both backends'
 * samplers through. */
#include "sampler.h"

/* px_sampler_* as a px_sampler_ops */
static int perf_open(const struct px_event *evs, size_t n,
		     const struct px_smpl_pmd *pmds, const struct px_target *t,
		     const struct px_smpl_opts *o, void **out)
{
	struct px_sampler *s = NULL;
	int ret = px_sampler_open(evs, n, pmds, t, o, &s);

	*out = s;
	return ret;
}

static int perf_enable(void *s)
{
	return px_sampler_enable(s);
}

static int perf_poll(void *s, int timeout_ms)
{
	return px_sampler_poll(s, timeout_ms);
}

static int perf_finish(void *s)
{
	return px_sampler_finish(s);
}

static void perf_close(void *s)
{
	px_sampler_close(s);
}

static void perf_stats(const void *s, struct px_smpl_stats *st)
{
	px_sampler_stats(s, st);
}

static size_t perf_mappings(const void *s, const struct px_mapping **m)
{
	return px_sampler_mappings(s, m);
}

static size_t perf_tasks(const void *s, const struct px_task_event **t)
{
	return px_sampler_tasks(s, t);
}

static int perf_exec(void *s, pid_t pid)
{
	return px_sampler_exec(s, pid);
}

static size_t perf_pollfds(const void *s, struct pollfd *fds, size_t max)
{
	return px_sampler_pollfds(s, fds, max);
}

static int perf_read(void *s, struct px_count *counts)
{
	return px_sampler_read(s, counts);
}

static int perf_pause(void *s, bool on)
{
	return px_sampler_pause(s, on);
}

static bool perf_switch_due(const void *s)
{
	return px_sampler_switch_due(s);
}

const struct px_sampler_ops px_sampler_perf_ops = {
	.name = "perf",
	.task_mappings = true,
	.inherits = true,
	.open = perf_open,
	.enable = perf_enable,
	.poll = perf_poll,
	.finish = perf_finish,
	.close = perf_close,
	.stats = perf_stats,
	.mappings = perf_mappings,
	.tasks = perf_tasks,
	.stops = px_smpl_periods_change,
	.exec = perf_exec,
	.pollfds = perf_pollfds,
	.read = perf_read,
	.pause = perf_pause,
	.switch_due = perf_switch_due,
};
