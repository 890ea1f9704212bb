/* The resolution after a sampling run: each sample against the program
 * its process ran when it was taken (per process and exec, from the
 * records and /proc reads the session kept), counted in the profile and,
 * with call graphs, its chain resolved and counted in the call graph. */
#include "smpl_resolve.h"
#include "chains.h"
#include "smpl_store.h"
#include "symbols.h"
#include "procs.h"
#include "callchain/perfmon_cc_smpl.h"
#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One program of a process (an epoch: from one of its execs to the next),
 * as the resolver knows it: its name now, its symbols when first asked. */
struct proc_epoch {
	bool named;
	char comm[16];
	struct px_symbols *res;
	struct px_maps maps;	/* what res was built from */
};

struct proc_res {
	uint32_t pid;
	struct px_proc_execs execs;
	struct proc_epoch *ep;	/* [execs.n + 1] */
};

struct resolver {
	struct px_procs procs;
	struct px_symbols_opts opts;
	struct proc_res *v;
	size_t n;
	size_t last;		/* the process of the last sample */
	uint64_t unwound[PFM_CC_MAX_FRAMES];	/* the last DWARF unwind */
};

static int resolver_find(struct resolver *r, uint32_t pid, struct proc_res **out)
{
	struct proc_res *g;
	int ret;

	if (r->n && r->v[r->last].pid == pid) {	/* most often */
		*out = &r->v[r->last];
		return 0;
	}
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].pid == pid) {
			r->last = i;
			*out = &r->v[i];
			return 0;
		}
	g = realloc(r->v, (r->n + 1) * sizeof(*g));
	if (!g)
		return px_fail(ENOMEM, "out of memory");
	r->v = g;
	g = &r->v[r->n];
	memset(g, 0, sizeof(*g));
	g->pid = pid;
	if ((ret = px_procs_execs(&r->procs, pid, &g->execs)))
		return ret;
	g->ep = calloc(g->execs.n + 1, sizeof(*g->ep));
	if (!g->ep) {
		px_proc_execs_free(&g->execs);
		return px_fail(ENOMEM, "out of memory");
	}
	r->last = r->n++;
	*out = g;
	return 0;
}

/* The program process pid ran at time t: *ep, its epoch number in *k. */
static int resolver_get(struct resolver *r, uint32_t pid, uint64_t t,
			struct proc_res **p, size_t *k)
{
	int ret = resolver_find(r, pid, p);
	struct proc_epoch *e;

	if (ret)
		return ret;
	*k = px_proc_execs_epoch(&(*p)->execs, t);
	e = &(*p)->ep[*k];
	if (!e->named) {
		px_procs_name(&r->procs, pid, &(*p)->execs, *k, e->comm);
		e->named = true;
	}
	return 0;
}

/* The symbols of that program: the mappings recorded or read for it, or,
 * for a task that was running before sampling began and was not seen at
 * the start, its mappings now if it still lives. */
static int resolver_symbols(struct resolver *r, struct proc_res *p, size_t k,
			    struct px_symbols **out)
{
	struct proc_epoch *e = &p->ep[k];
	int ret;

	if (e->res) {
		*out = e->res;
		return 0;
	}
	ret = px_procs_maps(&r->procs, p->pid, &p->execs, k, &e->maps);
	if (!ret && !e->maps.n && p->pid && k == p->execs.n)
		(void)px_maps_snapshot(&e->maps, (pid_t)p->pid);
	if (!ret)
		ret = px_symbols_open_maps(&e->res, &e->maps, &r->opts);
	*out = e->res;
	return ret;
}

static void resolver_free(struct resolver *r)
{
	for (size_t i = 0; i < r->n; i++) {
		for (size_t k = 0; k <= r->v[i].execs.n; k++) {
			if (r->v[i].ep[k].res)
				px_symbols_free(r->v[i].ep[k].res);
			px_maps_free(&r->v[i].ep[k].maps);
		}
		free(r->v[i].ep);
		px_proc_execs_free(&r->v[i].execs);
	}
	free(r->v);
}

static void rec_sample(const struct px_smpl_session *s, const struct px_smpl_rec *r,
		       struct px_sample *x)
{
	memset(x, 0, offsetof(struct px_sample, values));
	x->pid = r->pid;
	x->tid = r->tid;
	x->cpu = r->cpu;
	x->set = r->set;
	x->ovfl_pmd = r->pmd;
	x->last_reset_val = r->last_reset;
	x->tstamp = r->tstamp;
	x->ip = r->ip;
	x->nvalues = r->nvalues;
	if (r->nvalues)		/* vals is NULL when no sample has values */
		memcpy(x->values, s->vals + r->voff, r->nvalues * sizeof(*x->values));
}

/* Count one sample in the profile under what the profile is by. */
static int profile_sample(struct px_smpl_result *result, size_t ev, const struct px_smpl_rec *rec,
			  uint32_t pid, size_t k, const char *comm, const struct px_location *loc)
{
	/* pids are below 2^22: the epoch above tells its programs apart */
	struct px_profile_proc proc = { pid | (uint32_t)(k << 22), comm };
	char label[48];

	switch (result->o.by) {
	case PX_PROFILE_COMM:
		return px_profile_count_label(result->profile, ev, comm, 1);
	case PX_PROFILE_PID:
		snprintf(label, sizeof(label), "%u:%s", pid, comm);
		return px_profile_count_label(result->profile, ev, label, 1);
	case PX_PROFILE_CPU:
		snprintf(label, sizeof(label), "cpu %u", rec->cpu);
		return px_profile_count_label(result->profile, ev, label, 1);
	default:
		result->unresolved += !strcmp(loc->func, "??");
		return px_profile_count_in(result->profile, ev,
					   px_smpl_per_process(&result->session->o, &result->o) ? &proc : NULL,
					   loc, 1);
	}
}

/* --call-graph=dwarf: the user part of a chain, unwound from the sample's
 * registers and stack copy with the CFI of the process's modules. */
_Static_assert(PX_UNWIND_NREGS == PFM_CC_NREGS,
	       "the unwinder takes the registers the callchain format records");

static int unwind_user(const struct px_smpl_session *s, struct px_symbols *res,
		       const struct px_smpl_rec *rec, uint64_t *ips, struct px_chain *c)
{
	const unsigned char *p = (const unsigned char *)s->stacks.p + rec->soff;
	size_t max = s->o.smpl.max_frames ? s->o.smpl.max_frames : PX_CALLGRAPH_MAX_FRAMES;
	unsigned flags = 0;
	int ret;

	max = max > c->nkernel ? max - c->nkernel : 1;
	ret = px_symbols_unwind(res, rec->tid, (const uint64_t *)(const void *)p,
				p + 8 * PFM_CC_NREGS, rec->stack_size, ips, max,
				&c->nuser, &flags);
	c->user = ips;
	c->cut |= flags != 0;
	return ret;
}

/* The user address in a sample's registers: its chain's first user frame
 * (frame pointers), or the IP of its registers (DWARF: rip is DWARF
 * register 16). */
static uint64_t user_ip(const struct px_smpl_session *s, const struct px_smpl_rec *rec,
			const struct px_chain *c)
{
	uint64_t ip = 0;

	if (rec->has_stack)
		memcpy(&ip, (const char *)s->stacks.p + rec->soff + 8 * 16, sizeof(ip));
	else if (c->nuser)
		ip = c->user[0];
	return ip;
}

/* The resolver that reads a sample's chain, and its epoch: epoch k's.
 * But a sample taken in the kernel while an exec completes (the process
 * already has its new program's memory, the registers still hold the old
 * one's until the exec returns) holds an address in no mapping of the new
 * program: when the program before maps it, it is read there (perf reads
 * it in the new one: [unknown]). */
static int chain_symbols(const struct px_smpl_session *s, struct resolver *r,
			 struct proc_res *p, size_t k, const struct px_smpl_rec *rec,
			 const struct px_chain *c, size_t *ck, struct px_symbols **res)
{
	uint64_t ip = user_ip(s, rec, c);
	struct px_symbols *before;
	int ret = resolver_symbols(r, p, k, res);

	*ck = k;
	if (ret || !k || !c->nkernel || !ip || px_maps_find(&p->ep[k].maps, ip))
		return ret;
	if ((ret = resolver_symbols(r, p, k - 1, &before)))
		return ret;
	if (px_maps_find(&p->ep[k - 1].maps, ip)) {
		*ck = k - 1;
		*res = before;
	}
	return 0;
}

/* Count a sample's call chain in the call graph: *out gets its
 * addresses, *stack its stack. */
static int count_chain(struct px_smpl_result *result, struct px_chains *chains,
		       struct resolver *r, struct proc_res *p, size_t k, size_t ev,
		       const struct px_smpl_rec *rec, struct px_chain *out,
		       struct px_chain_stack *stack)
{
	const struct px_smpl_session *s = result->session;
	const uint64_t *ips = s->chain_ips + rec->coff;
	struct px_chain c = {
		.kernel = ips, .nkernel = rec->nkernel,
		.user = ips + rec->nkernel, .nuser = rec->nuser,
		.cut = rec->cc_flags != 0,
	};
	struct px_symbols *res;
	size_t ck;
	int ret = chain_symbols(s, r, p, k, rec, &c, &ck, &res);

	if (ret)
		return ret;
	if (rec->has_stack && (ret = unwind_user(s, res, rec, r->unwound, &c)))
		return ret;
	if (!c.nkernel && !c.nuser) {	/* the kernel gave no chain */
		c.user = &rec->ip;
		c.nuser = 1;
	}
	ret = px_chains_add(chains, res, &p->ep[ck].maps, ev,
			    px_smpl_per_process(&s->o, &result->o) ? p->ep[k].comm : NULL,
			    &c, stack, &result->unknown_frames);
	result->frames += (uint64_t)c.nkernel + c.nuser;
	result->cut_chains += c.cut;
	*out = c;
	return ret;
}

bool px_smpl_per_process(const struct px_smpl_session_opts *so,
			 const struct px_smpl_resolve_opts *o)
{
	return so->mon.ncpus && px_profile_by_place(o->by);
}

bool px_smpl_reads_dwarf(const struct px_smpl_session_opts *so,
			 const struct px_smpl_resolve_opts *o)
{
	return o->resolve || so->smpl.callgraph != PX_CALLGRAPH_NONE ||
	       (o->by != PX_PROFILE_FUNCTIONS && px_profile_by_place(o->by));
}

void px_smpl_result_free(struct px_smpl_result *r)
{
	for (size_t i = 0; i < r->nreplaced; i++)
		free(r->replaced[i]);
	free(r->replaced);
	px_cg_free(r->cg);
	px_profile_free(r->profile);
	memset(r, 0, sizeof(*r));
}

/* Every sampling event has its profile, added first, set by set (below):
 * the profile's event e is the e-th sampling event. */
void px_smpl_result_event(const struct px_smpl_result *r, size_t e,
			  const char **name, long *set)
{
	const struct px_smpl_session_opts *o = &r->session->o;

	for (size_t s = 0; s < o->mon.nsets; s++)
		for (size_t i = 0; i < o->mon.sets[s].n; i++) {
			if (!o->pmds[s][i].long_period || e--)
				continue;
			*name = o->mon.sets[s].events[i].name;
			*set = (long)s;
			return;
		}
	*name = "?";
	*set = -1;
}

int px_smpl_resolve(const struct px_smpl_session *s, const struct px_smpl_resolve_opts *ro,
		    struct px_smpl_result *result, px_smpl_resolved_fn fn, void *arg)
{
	struct resolver r = {
		.procs = { s->maps, s->nmaps, s->tasks, s->ntasks, s->names, s->nnames },
	};
	const struct px_smpl_session_opts *o = &s->o;
	bool by_place = px_profile_by_place(ro->by);
	ssize_t *ev_id = NULL;
	struct px_chains *chains = NULL;
	char label[PX_EVENT_NAME_MAX + 16];
	int ret;

	memset(result, 0, sizeof(*result));
	result->session = s;
	result->o = *ro;
	r.opts.kallsyms = ro->kallsyms;
	r.opts.functions_only = !px_smpl_reads_dwarf(o, ro);
	if ((ret = px_profile_new(&result->profile, ro->by)))
		return ret;
	if (o->smpl.callgraph != PX_CALLGRAPH_NONE && (ret = px_cg_new(&result->cg)))
		return ret;
	if (result->cg && (ret = px_chains_new(&chains, result->cg)))
		return ret;
	/* every sampling event has a profile, even an empty one */
	for (size_t set = 0; set < o->mon.nsets; set++)
		for (size_t i = 0; i < o->mon.sets[set].n; i++) {
			if (!o->pmds[set][i].long_period)
				continue;
			px_smpl_event_label(o, set, i, label, sizeof(label));
			if ((ret = px_profile_add(result->profile, label, "", "", 0, 0)))
				goto out;
		}
	/* each event's number in the profile, found on its first sample:
	 * s->nevents stands for a record of no known event */
	ev_id = malloc((s->nevents + 1) * sizeof(*ev_id));
	if (!ev_id) {
		ret = px_fail(ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i <= s->nevents; i++)
		ev_id[i] = -1;
	for (size_t i = 0; i < s->nrecs; i++) {
		const struct px_smpl_rec *rec = &s->recs[i];
		const struct px_location *loc = NULL;
		struct px_symbols *res;
		struct proc_res *p = NULL;
		struct px_chain ch = { 0 };
		struct px_chain_stack stack = { 0 };
		size_t k = 0;
		bool known = rec->set < o->mon.nsets && rec->pmd < o->mon.sets[rec->set].n;
		size_t e = known ? px_smpl_event_index(o, rec->set, rec->pmd) : s->nevents;

		if (ev_id[e] < 0) {
			if (known)
				px_smpl_event_label(o, rec->set, rec->pmd, label, sizeof(label));
			ev_id[e] = px_profile_event_id(result->profile, known ? label : "?");
			if (ev_id[e] < 0) {
				ret = (int)ev_id[e];
				goto out;
			}
		}
		if ((ret = resolver_get(&r, rec->pid, rec->tstamp, &p, &k)))
			goto out;
		if ((by_place || (fn && ro->resolve)) &&
		    ((ret = resolver_symbols(&r, p, k, &res)) ||
		     (ret = px_symbols_resolve(res, rec->ip, &loc))))
			goto out;
		if ((ret = profile_sample(result, (size_t)ev_id[e], rec, p->pid, k, p->ep[k].comm, loc)))
			goto out;
		if (chains && (ret = count_chain(result, chains, &r, p, k, (size_t)ev_id[e], rec,
						 &ch, &stack)))
			goto out;
		if (fn) {
			struct px_sample x;
			struct px_smpl_resolved sr = {
				&x, p->ep[k].comm, ro->resolve ? loc : NULL, &ch, stack,
			};

			rec_sample(s, rec, &x);
			if ((ret = fn(arg, result, &sr)))
				goto out;
		}
	}
out:
	free(ev_id);
	px_chains_free(chains);
	resolver_free(&r);
	return ret;
}

