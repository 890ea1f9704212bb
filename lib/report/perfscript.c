/* --perf-script: resolved samples as `perf script` text (perfscript.h). */
#include "perfscript.h"
#include "error.h"
#include "grow.h"
#include "smpl_comm.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct px_perfscript {
	const struct px_smpl_session *session;
	struct px_smpl_comm *comm;
	FILE *f;
	uint64_t *addrs;	/* the chain's addresses, innermost first */
	size_t addrs_cap;
};

int px_perfscript_new(struct px_perfscript **out, const struct px_smpl_session *s, FILE *f)
{
	struct px_perfscript *p = calloc(1, sizeof(*p));
	int ret;

	*out = p;
	if (!p)
		return px_fail(ENOMEM, "out of memory");
	p->session = s;
	p->f = f;
	if ((ret = px_smpl_comm_new(&p->comm, s)))
		return ret;
	return 0;
}

void px_perfscript_free(struct px_perfscript *p)
{
	if (!p)
		return;
	px_smpl_comm_free(p->comm);
	free(p->addrs);
	free(p);
}

/* perf's names for what has no file: the importers match "(\S*)" */
static const char *module_name(const char *module)
{
	if (!module || !*module)
		return "[unknown]";
	return strcmp(module, "[kernel]") ? module : "[kernel.kallsyms]";
}

static void header(struct px_perfscript *p, const struct px_sample *x, const char *comm)
{
	const struct px_smpl_session_opts *o = &p->session->o;
	bool known = x->set < o->mon.nsets && x->ovfl_pmd < o->mon.sets[x->set].n;
	const char *event = known ? o->mon.sets[x->set].events[x->ovfl_pmd].name : "?";

	/* perfmon's reset value is 2^64 - period (sampler_perf.h) */
	fprintf(p->f, "%s %5u/%-5u [%03u] %5" PRIu64 ".%06" PRIu64 ": %10" PRIu64 " %s",
		comm, x->pid, x->tid, x->cpu, x->tstamp / 1000000000,
		x->tstamp % 1000000000 / 1000, -x->last_reset_val, event);
	if (o->mon.nsets > 1)
		fprintf(p->f, "/set%u", x->set);
	fputs(":\n", p->f);
}

static void frame_line(FILE *f, uint64_t addr, const char *name, bool offset, uint64_t off,
		       const char *module)
{
	fprintf(f, "\t%16" PRIx64 " %s", addr, name);
	if (offset)
		fprintf(f, "+0x%" PRIx64, off);
	fprintf(f, " (%s)\n", module_name(module));
}

/* The chain's user addresses as the call graph took them, innermost
 * first: the part ends at a return address of 0 (lib/profile/chains.h).
 * Their number in *na.  0 or -ENOMEM. */
static int user_addrs(struct px_perfscript *p, const struct px_chain *c, size_t *na)
{
	size_t n = 0;

	if (px_grow((void **)&p->addrs, &p->addrs_cap, 0, c->nuser + 1, sizeof(*p->addrs), 256))
		return -ENOMEM;
	for (size_t i = 0; i < c->nuser && (!i || c->user[i]); i++)
		p->addrs[n++] = c->user[i];
	*na = n;
	return 0;
}

/* The address of frame i of a part of the chain (the kernel's or the
 * user's: fc frames from na addresses, innermost first), whose first
 * `leaf` frames are the sampled place's.  Each address gave one frame a
 * level of its inline chain, which the resolution does not hand on: the
 * pairing is sure when no address but the sampled one gave more than
 * one, and 0 otherwise. */
static uint64_t frame_addr(size_t i, size_t fc, const uint64_t *addrs, size_t na, size_t leaf)
{
	if (i < leaf)
		return addrs[0];
	if (fc == na)
		return addrs[i];
	if (leaf && fc - leaf == na - 1)
		return addrs[i - leaf + 1];
	return 0;
}

/* The call graph's frames of a stack (frames[0..m), outermost first, the
 * root taken off), innermost first. */
static int chain_lines(struct px_perfscript *p, const struct px_smpl_result *r,
		       const struct px_sample *x, const struct px_location *loc,
		       const struct px_chain *c, const uint32_t *frames, size_t m)
{
	size_t mc = m - (c->cut && m);	/* without "[truncated]", outermost */
	size_t nkf = 0, nu, leaf, levels = loc->n_inline + 1;
	const uint64_t *first = c->nkernel ? c->kernel : c->user;
	int ret;

	if ((ret = user_addrs(p, c, &nu)))
		return ret;
	/* the kernel's frames first: kernel places have no inline levels,
	 * but they are told apart by their module all the same */
	while (nkf < mc && !strcmp(px_cg_frame_module(r->cg, frames[m - 1 - nkf]), "[kernel]"))
		nkf++;
	/* the sampled place's frames, when the chain starts at it: its
	 * inline levels, then its function */
	leaf = (c->nkernel || c->nuser) && first[0] == x->ip &&
	       (c->nkernel ? nkf : mc) >= levels ? levels : 0;
	for (size_t i = 0; i < m; i++) {
		uint32_t fr = frames[m - 1 - i];
		uint64_t addr = 0;

		if (i < nkf)
			addr = frame_addr(i, nkf, c->kernel, c->nkernel, c->nkernel ? leaf : 0);
		else if (i < mc)
			addr = frame_addr(i - nkf, mc - nkf, p->addrs, nu, c->nkernel ? 0 : leaf);
		frame_line(p->f, addr, px_cg_frame_name(r->cg, fr),
			   i + 1 == leaf && strcmp(loc->func, "??"), loc->offset,
			   px_cg_frame_module(r->cg, fr));
	}
	return 0;
}

int px_perfscript_add(struct px_perfscript *p, const struct px_smpl_result *r,
		      const struct px_sample *x, const struct px_location *loc,
		      const struct px_chain *c, const uint32_t *frames, size_t n)
{
	const char *comm;
	int ret;

	if ((ret = px_smpl_comm_get(p->comm, x->pid, x->tstamp, &comm)))
		return ret;
	header(p, x, comm);
	if (r->cg) {
		/* the root, system-wide: the process, which the header names */
		size_t skip = n && px_smpl_per_process(&r->session->o, &r->o);

		if ((ret = chain_lines(p, r, x, loc, c, frames + skip, n - skip)))
			return px_fail(-ret, "out of memory");
	} else {
		frame_line(p->f, loc->ip, strcmp(loc->func, "??") ? loc->func : "[unknown]",
			   strcmp(loc->func, "??"), loc->offset, loc->module);
	}
	fputc('\n', p->f);
	return 0;
}
