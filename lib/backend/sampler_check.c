/* The checks of sampling settings every sampler makes before it opens
 * anything (lib/backend/perf/sampler_perf.c, lib/backend/module/sampler_module.c). */
#include "error.h"
#include "random.h"
#include "sampler.h"
#include "callchain/perfmon_cc_smpl.h"

#include <errno.h>

int px_smpl_check(const struct px_event *evs, size_t n,
		  const struct px_smpl_pmd *pmds, const struct px_smpl_opts *o)
{
	size_t nsampling = 0;

	if (!n || n > PX_SMPL_MAX_PMDS)
		return px_fail(EINVAL, "sampling needs 1 to %d events, not %zu",
			       PX_SMPL_MAX_PMDS, n);
	if (o->format != PX_SMPL_DEFAULT && o->format != PX_SMPL_DOUBLE_BUFFER &&
	    o->format != PX_SMPL_CALLCHAIN)
		return px_fail(EINVAL, "unknown sampling format %d", o->format);
	if ((o->format == PX_SMPL_CALLCHAIN) != (o->callgraph != PX_CALLGRAPH_NONE))
		return px_fail(EINVAL,
			       "call chains are recorded in the callchain format, and that format needs a call-graph mode");
	if (o->max_frames > PFM_CC_MAX_FRAMES)
		return px_fail(EINVAL, "at most %d frames per call chain, not %u",
			       PFM_CC_MAX_FRAMES, o->max_frames);
	if (o->callgraph == PX_CALLGRAPH_DWARF &&
	    (o->stack_bytes % 8 || o->stack_bytes > PFM_CC_MAX_STACK))
		return px_fail(EINVAL,
			       "the stack copy per sample must be a multiple of 8 bytes up to %d, not %u",
			       PFM_CC_MAX_STACK, o->stack_bytes);
	for (size_t i = 0; i < n; i++) {
		const struct px_smpl_pmd *p = &pmds[i];
		uint64_t sp = p->short_period ? p->short_period : p->long_period;

		if (!p->long_period && p->switch_ovfls)
			return px_fail(EINVAL,
				       "'%s' only counts: a set switches on the overflows of a sampling event, give it a period",
				       evs[i].name);
		if (!p->long_period)
			continue;
		nsampling++;
		if (n < 64 && p->smpl_pmds >> n)
			return px_fail(EINVAL,
				       "'%s' records PMDs beyond the %zu events (smpl_pmds 0x%llx)",
				       evs[i].name, n,
				       (unsigned long long)p->smpl_pmds);
		if (!p->random)
			continue;
		if (px_random_check_mask(p->random_mask) ||
		    p->random_mask >= sp || p->random_mask >= p->long_period)
			return px_fail(EINVAL,
				       "randomisation mask 0x%x of '%s' must fit in 31 bits and be below its periods",
				       p->random_mask, evs[i].name);
		if (p->random_seed % PX_RANDOM_MODULUS == 0)
			return px_fail(EINVAL,
				       "randomisation seed %u of '%s' is not usable: choose one that is not 0 or a multiple of 2^31 - 1",
				       p->random_seed, evs[i].name);
	}
	if (!nsampling)
		return px_fail(EINVAL,
			       "no event has a sampling period: give at least one a period");
	return 0;
}

bool px_smpl_periods_change(const struct px_smpl_pmd *pmds, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct px_smpl_pmd *p = &pmds[i];

		if (p->long_period && (p->random ||
		    (p->short_period && p->short_period != p->long_period)))
			return true;
	}
	return false;
}

/* The perf sampler's limits (sampler.h): a sampler whose periods change
 * at overflows stops its task at each one, which needs the command's one
 * traced task and one set; a trigger counts the overflows of one task's
 * event, never an inherited one's, and each CPU's would switch alone.
 * The module's sampler has neither limit: it switches sets and sets
 * periods in the kernel (open_sets, no stops). */
int px_sampler_check_run(const struct px_sampler_ops *ops,
			 const struct px_event_set *sets, size_t nsets,
			 const struct px_smpl_pmd *const *pmds,
			 bool system_wide, bool follow)
{
	for (size_t s = 0; s < nsets; s++) {
		bool stops = ops->stops && ops->stops(pmds[s], sets[s].n);

		if (stops && nsets > 1)
			return px_fail(EINVAL, "with several event sets, randomised periods and short periods other than the long are exact on the %s backend only with one set (its task is stopped at each overflow): use --backend=module",
				       ops->name);
		if (stops && system_wide)
			return px_fail(EINVAL, "randomised periods (--smpl-periods-random) and short periods other than the long are exact on the %s backend only for a command's own task, stopped at each overflow; a CPU's tasks cannot be stopped: use --backend=module, which sets each period in its overflow handler",
				       ops->name);
		if (stops && follow)
			return px_fail(EINVAL, "randomised periods (--smpl-periods-random) and short periods other than the long are exact on the %s backend only for a command's own task, stopped at each overflow, not for the children and threads --follow-* adds: drop --follow-*, or use --backend=module, which sets each period in its overflow handler",
				       ops->name);
		if (!ops->open_sets && nsets > 1 && pmds[s][0].switch_ovfls &&
		    (system_wide || follow))
			return px_fail(EINVAL, "--switch-ovfls switches the sets of one task on the %s backend (perf limits the overflows of no inherited event, and each CPU would switch on its own): drop --follow-* and --system-wide, or use --backend=module",
				       ops->name);
	}
	return 0;
}
