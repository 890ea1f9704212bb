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
