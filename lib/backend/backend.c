/* Choosing a backend by name, checking what it can do before anything is
 * opened, and the operations on a group whatever it is. */
#include "backend.h"
#include "error.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#define PERFMON_DEVICE "/dev/perfmon"

int px_backend_select(const char *name, const struct px_backend **out)
{
	const struct px_backend *be;
	int ret;

	if (!name || !strcmp(name, "auto")) {
		/* the module when it is loaded and this user may open it
		 * (perfmon.ko wants CAP_PERFMON or its dev_gid group), else
		 * perf: a loaded module must not cost others their counters */
		if (!access(PERFMON_DEVICE, F_OK) && !px_backend_module.probe()) {
			*out = &px_backend_module;
			return 0;
		}
		be = &px_backend_perf;
	} else if (!strcmp(name, "perf"))
		be = &px_backend_perf;
	else if (!strcmp(name, "module"))
		be = &px_backend_module;
	else
		return px_fail(EINVAL,
			       "unknown backend '%s': use auto, perf or module",
			       name);
	ret = be->probe();
	if (ret)
		return ret;
	*out = be;
	return 0;
}

/* The perf backend's limits (perf/sampler_perf.h): a sampling group
 * whose periods change at overflows stops its task at each one, which
 * needs the command's one traced task and one set; a trigger counts the
 * overflows of one task's event, never an inherited one's, and each
 * CPU's would switch alone.  The module has neither limit: it switches
 * sets and sets periods in the kernel.  Counting has no such limit. */
int px_backend_check(const struct px_backend *be,
		     const struct px_event_set *sets, size_t nsets,
		     const struct px_smpl_pmd *const *pmds,
		     bool system_wide, bool follow)
{
	for (size_t s = 0; pmds && s < nsets; s++) {
		bool stops = be->stops && be->stops(pmds[s], sets[s].n);

		if (stops && nsets > 1)
			return px_fail(EINVAL, "with several event sets, randomised periods and short periods other than the long are exact on the %s backend only with one set (its task is stopped at each overflow): use --backend=module",
				       be->name);
		if (stops && system_wide)
			return px_fail(EINVAL, "randomised periods (--smpl-periods-random) and short periods other than the long are exact on the %s backend only for a command's own task, stopped at each overflow; a CPU's tasks cannot be stopped: use --backend=module, which sets each period in its overflow handler",
				       be->name);
		if (stops && follow)
			return px_fail(EINVAL, "randomised periods (--smpl-periods-random) and short periods other than the long are exact on the %s backend only for a command's own task, stopped at each overflow, not for the children and threads --follow-* adds: drop --follow-*, or use --backend=module, which sets each period in its overflow handler",
				       be->name);
		if (!be->switches_sets && nsets > 1 && pmds[s][0].switch_ovfls &&
		    (system_wide || follow))
			return px_fail(EINVAL, "--switch-ovfls switches the sets of one task on the %s backend (perf limits the overflows of no inherited event, and each CPU would switch on its own): drop --follow-* and --system-wide, or use --backend=module",
				       be->name);
	}
	return 0;
}

int px_group_set_runs(struct px_group *g, uint64_t *runs, size_t nsets)
{
	return g->backend->set_runs ? g->backend->set_runs(g, runs, nsets) : -EOPNOTSUPP;
}

int px_group_activations(struct px_group *g, struct px_activations *acts)
{
	return g->backend->activations ? g->backend->activations(g, acts) : -EOPNOTSUPP;
}

int px_group_finish(struct px_group *g)
{
	return g->sampling ? g->backend->finish(g) : g->backend->disable(g);
}

int px_group_poll(struct px_group *g, int timeout_ms)
{
	return g->sampling ? g->backend->poll(g, timeout_ms) : 0;
}

size_t px_group_pollfds(const struct px_group *g, struct pollfd *fds, size_t max)
{
	return g->sampling ? g->backend->pollfds(g, fds, max) : 0;
}

int px_group_exec(struct px_group *g, pid_t pid)
{
	return g->sampling && g->backend->exec ? g->backend->exec(g, pid) : 0;
}

bool px_group_switch_due(const struct px_group *g)
{
	return g->sampling && g->backend->switch_due && g->backend->switch_due(g);
}

void px_group_stats(const struct px_group *g, struct px_smpl_stats *st)
{
	if (g->sampling)
		g->backend->stats(g, st);
	else
		memset(st, 0, sizeof(*st));
}

size_t px_group_mappings(const struct px_group *g, const struct px_mapping **m)
{
	*m = NULL;
	return g->sampling ? g->backend->mappings(g, m) : 0;
}

size_t px_group_tasks(const struct px_group *g, const struct px_task_event **t)
{
	*t = NULL;
	return g->sampling ? g->backend->tasks(g, t) : 0;
}
