/* pfmon's sampling options into the samplers' settings (smpl_spec.h). */
#include "smpl_spec.h"
#include "callchain/perfmon_cc_smpl.h"
#include "error.h"
#include "random.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool px_smpl_spec_sampling(const struct px_smpl_spec *sp)
{
	for (size_t s = 0; s < sp->nsets; s++) {
		const struct px_smpl_set_spec *ss = &sp->sets[s];

		if (ss->long_periods || ss->short_periods || ss->random || ss->switch_ovfls)
			return true;
	}
	return sp->module || sp->entries || sp->saturate;
}

/* "N,..." into positive 64-bit numbers. */
static int parse_periods(const char *opt, const char *list, uint64_t **v, size_t *n)
{
	const char *p = list;

	*v = NULL;
	*n = 0;
	if (!list)
		return 0;
	for (;;) {
		uint64_t *grown;
		char *end;

		errno = 0;
		if (*p < '0' || *p > '9')
			goto bad;
		grown = realloc(*v, (*n + 1) * sizeof(**v));
		if (!grown)
			return px_fail(ENOMEM, "out of memory");
		*v = grown;
		(*v)[*n] = strtoull(p, &end, 0);
		if (errno || end == p || !(*v)[*n])
			goto bad;
		(*n)++;
		if (!*end)
			return 0;
		if (*end != ',')
			goto bad;
		p = end + 1;
	}
bad:
	free(*v);
	*v = NULL;
	return px_fail(EINVAL, "--%s: bad period list '%s': write positive numbers separated by commas",
		       opt, list);
}

/* --call-graph=fp|dwarf[,BYTES] (and --call-graph-depth): the callchain
 * format, which is the only one that records chains. */
static int parse_call_graph(const struct px_smpl_spec *sp, struct px_smpl_opts *o)
{
	const char *cg = sp->call_graph;

	if (!cg)
		return px_fail(EINVAL, "--smpl-module=callchain records call chains: give --call-graph=fp or --call-graph=dwarf");
	if (sp->module && strcmp(sp->module, "callchain"))
		return px_fail(EINVAL, "--call-graph records into the callchain format, not '%s': drop --smpl-module",
			       sp->module);
	o->format = PX_SMPL_CALLCHAIN;
	if (!strcmp(cg, "fp")) {
		o->callgraph = PX_CALLGRAPH_FP;
	} else if (!strcmp(cg, "dwarf")) {
		o->callgraph = PX_CALLGRAPH_DWARF;
	} else if (!strncmp(cg, "dwarf,", 6)) {
		char *end;
		unsigned long n;

		errno = 0;
		n = strtoul(cg + 6, &end, 0);
		if (errno || *end || end == cg + 6 || cg[6] == '-' || !n || n % 8 ||
		    n > PFM_CC_MAX_STACK)
			return px_fail(EINVAL, "--call-graph=dwarf,%s: the stack bytes per sample must be a multiple of 8 from 8 to %d",
				       cg + 6, PFM_CC_MAX_STACK);
		o->callgraph = PX_CALLGRAPH_DWARF;
		o->stack_bytes = (uint32_t)n;
	} else {
		return px_fail(EINVAL, "--call-graph: unknown mode '%s': use fp or dwarf[,STACK_BYTES]", cg);
	}
	if (sp->max_frames < 0 || sp->max_frames > PFM_CC_MAX_FRAMES)
		return px_fail(EINVAL, "--call-graph-depth: %ld is out of range (1 to %d)",
			       sp->max_frames, PFM_CC_MAX_FRAMES);
	o->max_frames = (unsigned)sp->max_frames;
	return 0;
}

/* "MASK:SEED,..." */
static int parse_random(const char *list, struct px_smpl_pmd *pmds, size_t n,
			const uint64_t *slot, size_t nslots)
{
	char *copy = strdup(list), *save = NULL, *tok;
	size_t k = 0;
	int ret = 0;

	if (!copy)
		return px_fail(ENOMEM, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save), k++) {
		unsigned long long mask, seed;
		char *end, *colon = strchr(tok, ':');
		struct px_smpl_pmd *p;

		if (k >= nslots) {
			ret = px_fail(EINVAL, "--smpl-periods-random: more MASK:SEED pairs than sampling events (%zu)",
				      nslots);
			break;
		}
		p = &pmds[slot[k]];
		errno = 0;
		mask = colon ? strtoull(tok, &end, 0) : 0;
		if (!colon || errno || end != colon || *tok == '-') {
			ret = px_fail(EINVAL, "--smpl-periods-random: bad pair '%s': write MASK:SEED, e.g. 0xff:5", tok);
			break;
		}
		seed = strtoull(colon + 1, &end, 0);
		if (errno || *end || end == colon + 1 || colon[1] == '-' || seed > UINT32_MAX) {
			ret = px_fail(EINVAL, "--smpl-periods-random: bad seed in '%s': a number from 1 to 4294967295", tok);
			break;
		}
		if (px_random_check_mask(mask) || !mask) {
			ret = px_fail(EINVAL, "--smpl-periods-random: mask 0x%llx must be non-zero and fit in 31 bits", mask);
			break;
		}
		if (seed % PX_RANDOM_MODULUS == 0) {
			ret = px_fail(EINVAL, "--smpl-periods-random: seed %llu is a multiple of 2^31-1 (0 included), which would stop the generator",
				      seed);
			break;
		}
		if (mask >= p->short_period || mask >= p->long_period) {
			ret = px_fail(EINVAL, "--smpl-periods-random: mask 0x%llx of '%s' must be below its periods (%" PRIu64 ", %" PRIu64 ")",
				      mask, tok, p->long_period, p->short_period);
			break;
		}
		p->random = true;
		p->random_mask = (uint32_t)mask;
		p->random_seed = (uint32_t)seed;
	}
	free(copy);
	(void)n;
	return ret;
}

/* With several sets, the set an option error is about. */
static int name_set(const struct px_smpl_spec *sp, size_t set, int ret)
{
	char msg[512];

	if (!ret || sp->nsets < 2)
		return ret;
	snprintf(msg, sizeof(msg), "%s", px_last_error());
	return px_fail(-ret, "event set %zu (-e number %zu): %s", set, set + 1, msg);
}

static int build_set(const struct px_smpl_spec *sp, size_t set, size_t n,
		     struct px_smpl_pmd **pmds, struct px_smpl_opts *o)
{
	static const struct px_smpl_set_spec none;
	const struct px_smpl_set_spec *ss = set < sp->nsets ? &sp->sets[set] : &none;
	uint64_t *lp = NULL, *shp = NULL, *sw = NULL, slot[PX_SMPL_MAX_PMDS];
	size_t nl = 0, ns = 0, nsw = 0, nslots = 0;
	uint64_t counting = 0;
	int ret;

	*pmds = NULL;
	memset(o, 0, sizeof(*o));
	if (n > PX_SMPL_MAX_PMDS)
		return px_fail(EINVAL, "sampling takes at most %d events", PX_SMPL_MAX_PMDS);
	if (!ss->long_periods)
		return px_fail(EINVAL, "sampling options need --long-smpl-periods=N,...: the period of each sampling event, in order%s",
			       sp->nsets > 1 ? ", after each set's -e" : "");
	if ((ret = parse_periods("long-smpl-periods", ss->long_periods, &lp, &nl)) ||
	    (ret = parse_periods("short-smpl-periods", ss->short_periods, &shp, &ns)) ||
	    (ret = parse_periods("switch-ovfls", ss->switch_ovfls, &sw, &nsw)))
		goto out;
	ret = px_fail(EINVAL, "--switch-ovfls gives %zu counts for %zu sampling events (those with a long period)",
		      nsw, nl);
	if (nsw > nl)
		goto out;
	ret = px_fail(EINVAL, "--switch-ovfls switches event sets: give it to one of several sets (-e more than once)");
	if (nsw && sp->nsets < 2)
		goto out;
	ret = px_fail(EINVAL, "--long-smpl-periods gives %zu periods for %zu events", nl, n);
	if (nl > n)
		goto out;
	ret = px_fail(EINVAL, "--short-smpl-periods gives %zu periods for %zu sampling events (those with a long period)",
		      ns, nl);
	if (ns > nl)
		goto out;
	ret = -ENOMEM;
	*pmds = calloc(n, sizeof(**pmds));
	if (!*pmds)
		goto out;
	for (size_t i = nl; i < n; i++)
		counting |= 1ull << i;
	for (size_t i = 0; i < nl; i++) {
		(*pmds)[i].long_period = lp[i];
		(*pmds)[i].short_period = i < ns ? shp[i] : lp[i];
		(*pmds)[i].smpl_pmds = counting;
		(*pmds)[i].notify = !sp->saturate;
		(*pmds)[i].switch_ovfls = i < nsw ? sw[i] : 0;
		slot[nslots++] = i;
	}
	ret = 0;
	if (ss->random)
		ret = parse_random(ss->random, *pmds, n, slot, nslots);
	if (ret)
		goto out;
	if (sp->call_graph || (sp->module && !strcmp(sp->module, "callchain"))) {
		ret = parse_call_graph(sp, o);
		if (ret)
			goto out;
	} else if (!sp->module || !strcmp(sp->module, "default")) {
		o->format = PX_SMPL_DEFAULT;
	} else if (!strcmp(sp->module, "double-buffer")) {
		o->format = PX_SMPL_DOUBLE_BUFFER;
		/* the double buffer notifies and saturates when both halves
		 * are full, instead of cycling in its own half */
		if (sp->saturate) {
			o->mask_when_full = true;
			for (size_t i = 0; i < nl; i++)
				(*pmds)[i].notify = true;
		}
	} else {
		ret = px_fail(EINVAL, "--smpl-module: unknown format '%s': use default, double-buffer or callchain (see --smpl-module-info)",
			      sp->module);
		goto out;
	}
	if (sp->entries < 0 || sp->entries > 1L << 24) {
		ret = px_fail(EINVAL, "--smpl-entries: %ld is out of range (1 to 16777216)", sp->entries);
		goto out;
	}
	o->entries = (size_t)sp->entries;
	o->no_block = sp->no_block;
out:
	free(lp);
	free(shp);
	free(sw);
	if (ret) {
		free(*pmds);
		*pmds = NULL;
	}
	return ret;
}

int px_smpl_spec_build(const struct px_smpl_spec *sp, size_t set, size_t n,
		       struct px_smpl_pmd **pmds, struct px_smpl_opts *o)
{
	return name_set(sp, set, build_set(sp, set, n, pmds, o));
}
