/* pfmon's sampling session: options -> sampler(s) -> samples -> symbols ->
 * sample file, summary and profile. */
#include "smpl_session.h"
#include "callchain/perfmon_cc_smpl.h"
#include "double-buffer/perfmon_dbl_smpl.h"
#include "emit.h"
#include "error.h"
#include "grow.h"
#include "perfmon.h"
#include "procfs.h"
#include "random.h"
#include "interval.h"
#include "mon_report.h"
#include "prefetch.h"
#include "procs.h"
#include "sampler_module.h"
#include "smpl_chains.h"
#include "smpl_output.h"
#include "flamegraph.h"
#include "symbols.h"
#include "target.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* One sample as kept until the run is over (its body in s->vals). */
struct px_smpl_rec {
	uint32_t pid, tid;
	uint16_t cpu, set, pmd, nvalues;
	uint64_t last_reset, tstamp, ip;
	size_t voff;
	/* the call chain: nkernel + nuser addresses at chain_ips + coff;
	 * with a stack copy (DWARF), its registers then stack_size bytes at
	 * stacks + soff */
	size_t coff, soff;
	uint16_t nkernel, nuser, cc_flags;
	bool has_stack;
	uint32_t stack_size;
};

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

size_t px_smpl_event_index(const struct px_smpl_session_opts *o, size_t s, size_t i)
{
	size_t base = 0;

	for (size_t k = 0; k < s && k < o->mon.nsets; k++)
		base += o->mon.sets[k].n;
	return base + i;
}

void px_smpl_event_label(const struct px_smpl_session_opts *o, size_t s, size_t i,
			 char *buf, size_t len)
{
	if (o->mon.nsets > 1)
		snprintf(buf, len, "%s (set %zu)", o->mon.sets[s].events[i].name, s);
	else
		snprintf(buf, len, "%s", o->mon.sets[s].events[i].name);
}

/* What the perfmon module has loaded: each format a module of its own
 * that registered with it (kernel/README.md). */
static void print_kernel_formats(FILE *f)
{
	struct px_module_format fmts[PX_MODULE_FORMATS_MAX];
	size_t n = 0;

	if (px_module_formats(fmts, PX_MODULE_FORMATS_MAX, &n)) {
		fprintf(f, "loaded in the kernel: none (%s)\n", px_last_error());
		return;
	}
	fprintf(f, "loaded in the kernel (perfmon.ko, --backend=module): %zu format%s\n",
		n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "  %-16s ", fmts[i].name);
		for (int b = 0; b < 16; b++)
			fprintf(f, "%02x%s", fmts[i].uuid[b],
				b == 3 || b == 5 || b == 7 || b == 9 ? "-" : "");
		fprintf(f, "%s\n", fmts[i].flags & PFM_FMTFL_NOSET ? "  set 0 only" : "");
	}
}

void px_smpl_formats_print(FILE *f)
{
	fprintf(f,
		"%s: spec section 3.6.  One buffer: a header (count, current offset,\n"
		"  buffer-full events) then samples, each an entry header (pid, tid, cpu,\n"
		"  set, overflowed PMD, last reset value, timestamp, IP) and the sampled\n"
		"  PMDs in increasing register order.  When fewer bytes than the largest\n"
		"  sample remain the buffer is full: with notification the tool takes the\n"
		"  samples and restarts it (nothing is lost); with --smpl-saturate recording\n"
		"  stops and the buffer keeps its first samples.\n"
		"  layout: formats/default/perfmon_dfl_smpl.h, version %d.%d\n",
		PFM_DFL_SMPL_NAME, PFM_DFL_SMPL_VERSION_MAJ, PFM_DFL_SMPL_VERSION_MIN);
	fprintf(f,
		"%s: spec section 6.3.1.  Two halves of --smpl-entries samples each:\n"
		"  when one fills the tool is notified and recording goes on in the other;\n"
		"  a restart frees the half the tool has read.  When the tool is late it\n"
		"  cycles in its own half (counted as overwritten), or with --smpl-saturate\n"
		"  (MASK_WHEN_FULL) stops until a half is freed.\n"
		"  layout: formats/double-buffer/perfmon_dbl_smpl.h, version %d.%d\n",
		PFM_DBL_SMPL_NAME, PFM_DBL_SMPL_VERSION_MAJ, PFM_DBL_SMPL_VERSION_MIN);
	fprintf(f,
		"%s: the default format's samples, each with its call chain: kernel\n"
		"  frames then user frames, innermost first, and with --call-graph=dwarf\n"
		"  (perf backend) the user registers and a copy of the user stack, unwound\n"
		"  after the run.  Chosen by --call-graph; notifies and saturates as the\n"
		"  default format does.\n"
		"  layout: formats/callchain/perfmon_cc_smpl.h, version %d.%d\n",
		PFM_CC_SMPL_NAME, PFM_CC_SMPL_VERSION_MAJ, PFM_CC_SMPL_VERSION_MIN);
	print_kernel_formats(f);
}

/* ---- the run ---- */

/* A sample's chain and stack copy, kept until the run is over. */
static int keep_chain(struct px_smpl_session *s, struct px_smpl_rec *r,
		      const struct px_sample *x)
{
	size_t n = (size_t)x->nr_kernel + x->nr_user;
	unsigned char *p;

	if (px_grow((void **)&s->chain_ips, &s->chain_cap, s->nchain_ips, n,
		    sizeof(*s->chain_ips), 65536))
		return -ENOMEM;
	r->coff = s->nchain_ips;
	r->nkernel = (uint16_t)x->nr_kernel;
	r->nuser = (uint16_t)x->nr_user;
	r->cc_flags = (uint16_t)x->cc_flags;
	memcpy(s->chain_ips + s->nchain_ips, x->frames, n * sizeof(*x->frames));
	s->nchain_ips += n;
	r->has_stack = x->regs != NULL;
	r->stack_size = 0;
	if (!x->regs)
		return 0;
	p = px_bigbuf_append(&s->stacks, 8 * PFM_CC_NREGS + ((x->stack_size + 7) & ~7u));
	if (!p)
		return -ENOMEM;
	r->soff = (size_t)(p - (unsigned char *)s->stacks.p);
	r->stack_size = x->stack_size;
	memcpy(p, x->regs, 8 * PFM_CC_NREGS);
	memcpy(p + 8 * PFM_CC_NREGS, x->stack, x->stack_size);
	return 0;
}

static int keep_sample(void *arg, const struct px_sample *x)
{
	struct px_smpl_session *s = arg;
	struct px_smpl_rec *r;

	if (px_grow((void **)&s->recs, &s->cap, s->nrecs, 1, sizeof(*r), 4096) ||
	    px_grow((void **)&s->vals, &s->vcap, s->nvals, x->nvalues,
		    sizeof(*s->vals), 4096))
		return px_fail(ENOMEM, "out of memory keeping %zu samples", s->nrecs);
	r = &s->recs[s->nrecs++];
	r->pid = x->pid;
	r->tid = x->tid;
	r->cpu = x->cpu;
	r->set = x->set;
	r->pmd = x->ovfl_pmd;
	r->nvalues = (uint16_t)x->nvalues;
	r->last_reset = x->last_reset_val;
	r->tstamp = x->tstamp;
	r->ip = x->ip;
	r->voff = s->nvals;
	memcpy(s->vals + s->nvals, x->values, x->nvalues * sizeof(*x->values));
	s->nvals += x->nvalues;
	if (s->o.smpl.callgraph != PX_CALLGRAPH_NONE && keep_chain(s, r, x))
		return px_fail(ENOMEM, "out of memory keeping the call chains of %zu samples",
			       s->nrecs);
	if (x->set < s->o.mon.nsets && x->ovfl_pmd < s->o.mon.sets[x->set].n)
		s->per_event[px_smpl_event_index(&s->o, x->set, x->ovfl_pmd)]++;
	return 0;
}

/* A file the command maps: its debug file is inflated while it runs. */
static void prefetch_map(void *arg, const struct px_mapping *m)
{
	struct px_smpl_session *s = arg;

	if (m->prot & PROT_EXEC)
		px_prefetch_file(s->prefetch, m->path);
}

/* Whether the resolution reads DWARF (lines, inline chains: call chains
 * name their inlined functions), or only the symbol tables, as perf
 * report's default sort needs. */
static bool reads_dwarf(const struct px_smpl_session *s)
{
	const struct px_smpl_session_opts *o = &s->o;

	return o->resolve || s->cg ||
	       (o->by != PX_PROFILE_FUNCTIONS && px_profile_by_place(o->by));
}

/* The resolution's slow reads, started now on another thread: the
 * kernel's table when an event samples the kernel, the inflation of the
 * mapped files' compressed debug files when DWARF is read (prefetch.h).
 * Without the thread, the resolvers do the same work themselves, as they
 * do system-wide: there the thread's work would be sampled into the
 * profile it is for, and taken from the CPUs being measured. */
static void prefetch_start(struct px_smpl_session *s)
{
	const struct px_smpl_session_opts *o = &s->o;
	bool kernel = false;

	if (o->mon.ncpus)
		return;

	for (size_t set = 0; set < o->mon.nsets; set++)
		for (size_t i = 0; i < o->mon.sets[set].n; i++)
			kernel |= o->pmds[set][i].long_period &&
				  !o->mon.sets[set].events[i].exclude_kernel;
	if (kernel || reads_dwarf(s))
		(void)px_prefetch_start(&s->prefetch, kernel, o->kallsyms);
}

static void keep_prefetch_stats(struct px_smpl_session *s)
{
	struct px_prefetch_stats st;

	px_prefetch_stats(s->prefetch, &st);
	s->ahead_kernel = st.kernel;
	s->ahead_files = st.files;
	s->ahead_bytes = st.bytes;
	s->ahead_ns = st.busy_ns;
}

/* Keep maps as process pid's, as of time. */
static int keep_maps(struct px_smpl_session *s, const struct px_maps *maps, pid_t pid,
		     uint64_t time)
{
	void *g;

	if (!maps->n)
		return 0;
	g = realloc(s->maps, (s->nmaps + maps->n) * sizeof(*s->maps));
	if (!g)
		return px_fail(ENOMEM, "out of memory");
	s->maps = g;
	for (size_t i = 0; i < maps->n; i++) {
		struct px_mapping *m = &s->maps[s->nmaps++];

		memset(m, 0, sizeof(*m));
		m->pid = m->tid = (uint32_t)pid;
		m->time = time;
		m->start = maps->v[i].start;
		m->len = maps->v[i].len;
		m->pgoff = maps->v[i].pgoff;
		snprintf(m->path, sizeof(m->path), "%s", maps->v[i].path);
	}
	return 0;
}

/* Keep the mappings /proc shows for pid now, as of time (procs.h: 0 at
 * the start, UINT64_MAX at its exit).  The module's per-task samplers get
 * no mapping records: the command stays traced (PTRACE_O_TRACEEXIT) and
 * its mappings are read when it stops at its exit, its memory still there
 * (the spec's /proc snapshots, section 6.3.2, taken at the one moment that
 * sees them all). */
static int snapshot_maps(struct px_smpl_session *s, pid_t pid, uint64_t time)
{
	struct px_maps maps = { 0 };
	int ret = px_maps_snapshot(&maps, pid);

	if (!ret)
		ret = keep_maps(s, &maps, pid, time);
	px_maps_free(&maps);
	return ret;
}

/* Whether process pid's exec was recorded (a COMM record of it). */
static bool exec_recorded(const struct px_smpl_session *s, pid_t pid)
{
	for (size_t i = 0; i < s->ntasks; i++)
		if (s->tasks[i].kind == PX_TASK_COMM && s->tasks[i].exec &&
		    s->tasks[i].pid == (uint32_t)pid)
			return true;
	return false;
}

/* The command before its exec is this process forked: its program then is
 * ours (self, read before the fork), the program a sample taken during
 * the exec has the user registers of (count_chain).  Kept only once the
 * exec is on record, which makes them the command's first epoch alone. */
static int keep_pre_exec_maps(struct px_smpl_session *s, const struct px_maps *self,
			      pid_t pid)
{
	return pid > 0 && exec_recorded(s, pid) ? keep_maps(s, self, pid, 0) : 0;
}

/* Keep process pid's name and mappings as /proc shows them now, as of the
 * start: an attached task's, or each running one's system-wide.  A task
 * that vanished meanwhile is skipped.  0 or -ENOMEM. */
static int snapshot_process(struct px_smpl_session *s, pid_t pid)
{
	struct px_proc_name *g;
	int ret = px_grow((void **)&s->names, &s->names_cap, s->nnames, 1,
			  sizeof(*g), 256);

	if (ret)
		return ret;
	g = &s->names[s->nnames];
	g->pid = (uint32_t)pid;
	if (!px_proc_comm(pid, g->comm, sizeof(g->comm)))
		return 0;
	s->nnames++;
	return snapshot_maps(s, pid, 0) == -ENOMEM ? -ENOMEM : 0;
}

/* System-wide, the processes already running have no records of their
 * mappings or names: read them all when the session starts, as perf
 * record -a does, so that a process sampled and gone by the end still
 * resolves. */
static int snapshot_system(struct px_smpl_session *s)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int ret = 0;

	if (!d)
		return px_fail(errno, "cannot read /proc: %s", strerror(errno));
	while (!ret && (e = readdir(d))) {
		char *end;
		unsigned long pid = strtoul(e->d_name, &end, 10);

		if (!*end && pid && pid <= INT32_MAX)
			ret = snapshot_process(s, (pid_t)pid);
	}
	closedir(d);
	return ret;
}

bool px_smpl_session_per_process(const struct px_smpl_session_opts *o)
{
	return o->mon.ncpus && px_profile_by_place(o->by);
}

uint64_t px_smpl_lost_total(const struct px_smpl_stats *st)
{
	return st->lost + st->dropped + st->overwritten + st->late;
}

static void add_stats(struct px_smpl_stats *a, const struct px_smpl_stats *b)
{
	a->overflows += b->overflows;
	a->samples += b->samples;
	a->lost += b->lost;
	a->dropped += b->dropped;
	a->overwritten += b->overwritten;
	a->late += b->late;
	a->buffer_full += b->buffer_full;
	a->notifications += b->notifications;
	a->restarts += b->restarts;
	a->period_changes += b->period_changes;
	a->throttled += b->throttled;
	a->side_lost += b->side_lost;
}

/* Keep what a sampler recorded about mappings and tasks. */
static int keep_records(struct px_smpl_session *s, const void *sp)
{
	const struct px_mapping *m;
	const struct px_task_event *t;
	size_t nm = s->o.ops->mappings(sp, &m), nt = s->o.ops->tasks(sp, &t);
	void *g;

	if (nm) {
		g = realloc(s->maps, (s->nmaps + nm) * sizeof(*s->maps));
		if (!g)
			return px_fail(ENOMEM, "out of memory");
		s->maps = g;
		memcpy(s->maps + s->nmaps, m, nm * sizeof(*m));
		s->nmaps += nm;
	}
	if (nt) {
		g = realloc(s->tasks, (s->ntasks + nt) * sizeof(*s->tasks));
		if (!g)
			return px_fail(ENOMEM, "out of memory");
		s->tasks = g;
		memcpy(s->tasks + s->ntasks, t, nt * sizeof(*t));
		s->ntasks += nt;
	}
	return 0;
}

static void exit_snapshot(pid_t pid, void *arg)
{
	(void)snapshot_maps(arg, pid, UINT64_MAX);
}

static void smpl_totals(const struct px_monitor *m, struct px_smpl_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < m->nunits; i++) {
		for (size_t k = 0; k < m->nsamplers; k++) {
			struct px_smpl_stats one;

			if (!m->units[i].samplers[k])
				continue;
			m->opts.sampling->ops->stats(m->units[i].samplers[k], &one);
			add_stats(st, &one);
		}
	}
}

/* --print-interval: the samples recorded and lost since the last line. */
static void print_interval(const struct px_monitor *m, void *arg)
{
	struct px_smpl_session *s = arg;
	double t = m->elapsed_ns / 1e9;
	struct px_smpl_stats st;
	struct { const char *name; uint64_t value, *prev; } rows[2];

	smpl_totals(m, &st);
	rows[0] = (typeof(rows[0])){ "samples", st.samples, &s->iv_samples };
	rows[1] = (typeof(rows[1])){ "lost", px_smpl_lost_total(&st), &s->iv_lost };
	for (size_t i = 0; i < 2; i++) {
		uint64_t delta = rows[i].value - *rows[i].prev;

		*rows[i].prev = rows[i].value;
		px_interval_row(s->o.interval_f, s->o.interval_out, t, -1, rows[i].name,
				(double)delta, (double)rows[i].value);
	}
	fflush(s->o.interval_f);
}

/* The counts of the samplers' events, to scale each set's samples, and
 * how many times each set was active. */
static void keep_event_values(struct px_smpl_session *s, const struct px_monitor *m)
{
	for (size_t set = 0; set < s->o.mon.nsets; set++) {
		s->set_runs[set] = m->set_runs[set];
		for (size_t i = 0; i < s->o.mon.sets[set].n; i++)
			px_mon_value(m, NULL, set, i,
				     &s->event_values[px_smpl_event_index(&s->o, set, i)]);
	}
}

static int sample_run(struct px_smpl_session *s)
{
	const struct px_smpl_session_opts *o = &s->o;
	bool records = o->ops->task_mappings;
	/* samplers that record no mappings, and those opened after the exec
	 * (they stop at overflows): the command's are read at its exit */
	struct px_monitor_sampling sm = {
		.ops = o->ops, .pmds = o->pmds, .opts = o->smpl,
		.at_exit = !records || (o->ops->stops && o->ops->stops(o->pmds[0], o->mon.sets[0].n)) ?
			   exit_snapshot : NULL,
		.arg = s,
	};
	struct px_monitor_opts mo = o->mon;
	struct px_monitor m;
	struct px_maps self = { 0 };
	int ret = 0;

	mo.sampling = &sm;
	mo.inherit = o->ops->inherits && o->mon.follow;
	mo.system_wide = o->mon.ncpus > 0;
	mo.print_interval_ns = 0;
	mo.on_interval = NULL;
	sm.opts.on_sample = keep_sample;
	sm.opts.on_map = s->prefetch && reads_dwarf(s) ? prefetch_map : NULL;
	sm.opts.arg = s;
	if (o->mon.print_interval_ns && o->interval_f && o->interval_out) {
		mo.print_interval_ns = o->mon.print_interval_ns;
		mo.on_interval = print_interval;
		mo.interval_arg = s;
	}
	if (o->mon.ncpus)
		ret = snapshot_system(s);
	else if (o->mon.attach_pid > 0)
		ret = snapshot_process(s, o->mon.attach_pid);
	else if (records && o->mon.argv && s->cg)	/* the command's before its exec */
		(void)px_maps_snapshot(&self, 0);
	if (ret)
		return ret;
	ret = px_monitor_run(&mo, &m);
	s->exec_errno = m.exec_errno;	/* the command could not run */
	s->run.exit_code = m.exit_code;
	s->run.signal = m.signal;
	s->run.elapsed_ns = m.elapsed_ns;
	if (!ret) {
		smpl_totals(&m, &s->st);
		keep_event_values(s, &m);
	}
	for (size_t i = 0; i < m.nunits && !ret; i++)
		for (size_t k = 0; k < m.nsamplers && !ret; k++)
			if (m.units[i].samplers[k])
				ret = keep_records(s, m.units[i].samplers[k]);
	if (!ret && self.n && m.nunits)
		ret = keep_pre_exec_maps(s, &self, m.units[0].pid);
	px_maps_free(&self);
	px_monitor_free(&m);
	return ret;
}

/* ---- resolution ---- */

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
	const struct px_smpl_session *s;
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
	memcpy(x->values, s->vals + r->voff, r->nvalues * sizeof(*x->values));
}

/* Count one sample in the profile under what the profile is by. */
static int profile_sample(struct px_smpl_session *s, size_t ev, const struct px_smpl_rec *rec,
			  uint32_t pid, size_t k, const char *comm, const struct px_location *loc)
{
	/* pids are below 2^22: the epoch above tells its programs apart */
	struct px_profile_proc proc = { pid | (uint32_t)(k << 22), comm };
	char label[48];

	switch (s->o.by) {
	case PX_PROFILE_COMM:
		return px_profile_count_label(s->profile, ev, comm, 1);
	case PX_PROFILE_PID:
		snprintf(label, sizeof(label), "%u:%s", pid, comm);
		return px_profile_count_label(s->profile, ev, label, 1);
	case PX_PROFILE_CPU:
		snprintf(label, sizeof(label), "cpu %u", rec->cpu);
		return px_profile_count_label(s->profile, ev, label, 1);
	default:
		s->unresolved += !strcmp(loc->func, "??");
		return px_profile_count_in(s->profile, ev,
					   px_smpl_session_per_process(&s->o) ? &proc : NULL,
					   loc, 1);
	}
}

/* --call-graph=dwarf: the user part of a chain, unwound from the sample's
 * registers and stack copy with the CFI of the process's modules. */
_Static_assert(PX_UNWIND_NREGS == PFM_CC_NREGS,
	       "the unwinder takes the registers the callchain format records");

static int unwind_user(struct px_smpl_session *s, struct px_symbols *res,
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

/* Count a sample's call chain in the call graph: *c gets its addresses,
 * *frames (n of them) its stack, outermost first. */
static int count_chain(struct px_smpl_session *s, struct px_chains *chains,
		       struct resolver *r, struct proc_res *p, size_t k, size_t ev,
		       const struct px_smpl_rec *rec, struct px_chain *out,
		       const uint32_t **frames, size_t *n)
{
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
			    px_smpl_session_per_process(&s->o) ? p->ep[k].comm : NULL,
			    &c, frames, n, &s->unknown_frames);
	s->frames += (uint64_t)c.nkernel + c.nuser;
	s->cut_chains += c.cut;
	*out = c;
	return ret;
}

/* A sample and its chain into the sample file (names: room for the
 * chain's frames, grown as needed). */
static int write_sample(struct px_smpl_session *s, struct px_smpl_out *out,
			const struct px_smpl_rec *rec, const struct px_location *loc,
			const struct px_chain *c, const uint32_t *frames, size_t n,
			const char ***names, size_t *cap)
{
	struct px_smpl_out_chain oc = {
		c->kernel, c->nkernel, c->user, c->nuser, c->cut, NULL, 0,
	};
	struct px_sample x;

	rec_sample(s, rec, &x);
	if (!s->cg)
		return px_smpl_out_write_resolved(out, &x, loc);
	if (s->o.resolve) {
		if (px_grow((void **)names, cap, 0, n, sizeof(**names), 256))
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)	/* innermost first */
			(*names)[i] = px_cg_frame_name(s->cg, frames[n - 1 - i]);
		oc.names = *names;
		oc.nnames = n;
	}
	return px_smpl_out_write_chain(out, &x, loc, &oc);
}

static int resolve_all(struct px_smpl_session *s, struct px_smpl_out *out)
{
	struct resolver r = {
		.s = s,
		.procs = { s->maps, s->nmaps, s->tasks, s->ntasks, s->names, s->nnames },
	};
	const struct px_smpl_session_opts *o = &s->o;
	bool by_place = px_profile_by_place(o->by);
	ssize_t *ev_id = NULL;
	struct px_chains *chains = NULL;
	const char **names = NULL;
	size_t names_cap = 0;
	char label[PX_EVENT_NAME_MAX + 16];
	int ret;

	r.opts.kallsyms = o->kallsyms;
	r.opts.functions_only = !reads_dwarf(s);
	if ((ret = px_profile_new(&s->profile, o->by)))
		return ret;
	if (s->cg && (ret = px_chains_new(&chains, s->cg)))
		return ret;
	/* every sampling event has a profile, even an empty one */
	for (size_t set = 0; set < o->mon.nsets; set++)
		for (size_t i = 0; i < o->mon.sets[set].n; i++) {
			if (!o->pmds[set][i].long_period)
				continue;
			px_smpl_event_label(o, set, i, label, sizeof(label));
			if ((ret = px_profile_add(s->profile, label, "", "", 0, 0)))
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
		const uint32_t *frames = NULL;
		size_t k = 0, nframes = 0;
		bool known = rec->set < o->mon.nsets && rec->pmd < o->mon.sets[rec->set].n;
		size_t e = known ? px_smpl_event_index(o, rec->set, rec->pmd) : s->nevents;

		if (ev_id[e] < 0) {
			if (known)
				px_smpl_event_label(o, rec->set, rec->pmd, label, sizeof(label));
			ev_id[e] = px_profile_event_id(s->profile, known ? label : "?");
			if (ev_id[e] < 0) {
				ret = (int)ev_id[e];
				goto out;
			}
		}
		if ((ret = resolver_get(&r, rec->pid, rec->tstamp, &p, &k)))
			goto out;
		if ((by_place || (out && o->resolve)) &&
		    ((ret = resolver_symbols(&r, p, k, &res)) ||
		     (ret = px_symbols_resolve(res, rec->ip, &loc))))
			goto out;
		if ((ret = profile_sample(s, (size_t)ev_id[e], rec, p->pid, k, p->ep[k].comm, loc)))
			goto out;
		if (chains && (ret = count_chain(s, chains, &r, p, k, (size_t)ev_id[e], rec,
						 &ch, &frames, &nframes)))
			goto out;
		if (out && (ret = write_sample(s, out, rec, o->resolve ? loc : NULL, &ch, frames,
					      nframes, &names, &names_cap)))
			goto out;
	}
out:
	free(ev_id);
	free(names);
	px_chains_free(chains);
	resolver_free(&r);
	return ret;
}

/* --folded: every event's stacks; with several events each stack starts
 * with its event's name. */
static int write_folded(const struct px_smpl_session *s, FILE *f)
{
	size_t nev = px_profile_events(s->profile);
	int ret = 0;

	for (size_t e = 0; !ret && e < nev; e++)
		ret = px_cg_write_folded(s->cg, e, nev > 1 ? px_profile_event(s->profile, e) : NULL,
					 f);
	return ret;
}

/* An event's stacks for the flame graph: their frames' names. */
struct flame_event {
	const struct px_cg *cg;
	struct px_flame_stack *v;
	size_t n, cap;
	const char **names;	/* every stack's, back to back */
	size_t nnames, names_cap;
};

static int flame_stack(void *arg, const uint32_t *frames, size_t n, uint64_t count)
{
	struct flame_event *fe = arg;

	if (px_grow((void **)&fe->v, &fe->cap, fe->n, 1, sizeof(*fe->v), 256) ||
	    px_grow((void **)&fe->names, &fe->names_cap, fe->nnames, n, sizeof(*fe->names),
		    4096))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		fe->names[fe->nnames + i] = px_cg_frame_name(fe->cg, frames[i]);
	/* the names' offset for now: the array may still move */
	fe->v[fe->n++] = (struct px_flame_stack){ (const char *const *)(uintptr_t)fe->nnames,
						  n, count };
	fe->nnames += n;
	return 0;
}

/* A graph's title: the event, and the rank when a launcher started the
 * run, so that a job's graphs say which is which.  malloc'ed. */
static char *flame_title(const char *event)
{
	char run[400], *title;

	px_run_describe(run, sizeof(run));
	if (asprintf(&title, *run ? "%s, %s" : "%s", event, run) < 0)
		return NULL;
	return title;
}

/* --flamegraph: one graph per event, titled with its name. */
static int write_flamegraph(const struct px_smpl_session *s, FILE *f)
{
	size_t nev = px_profile_events(s->profile);
	struct flame_event *fe = calloc(nev + 1, sizeof(*fe));
	struct px_flame_graph *g = calloc(nev + 1, sizeof(*g));
	int ret = fe && g ? 0 : px_fail(ENOMEM, "out of memory");

	for (size_t e = 0; !ret && e < nev; e++) {
		fe[e].cg = s->cg;
		ret = px_cg_stacks(s->cg, e, flame_stack, &fe[e]);
		for (size_t i = 0; !ret && i < fe[e].n; i++)
			fe[e].v[i].frames = fe[e].names + (uintptr_t)fe[e].v[i].frames;
		g[e] = (struct px_flame_graph){ flame_title(px_profile_event(s->profile, e)),
						fe[e].v, fe[e].n };
		if (!g[e].title)
			ret = px_fail(ENOMEM, "out of memory");
	}
	if (!ret)
		ret = px_flamegraph_write(f, g, nev);
	for (size_t e = 0; fe && g && e < nev; e++) {
		free(fe[e].v);
		free(fe[e].names);
		free((char *)g[e].title);
	}
	free(fe);
	free(g);
	return ret;
}

/* The files a session writes besides its report, each whole or not at
 * all: opened before the run, so that one that cannot be written fails
 * before anything runs. */
struct session_files {
	struct px_smpl_out samples;
	struct px_outfile folded, flame;
	bool has_samples, has_folded, has_flame;
};

static int files_open(const struct px_smpl_session_opts *o, struct session_files *fl)
{
	int ret = 0;

	memset(fl, 0, sizeof(*fl));
	if (o->smpl_outfile && !(ret = px_smpl_out_open(&fl->samples, o->smpl_outfile, o->json)))
		fl->has_samples = true;
	if (!ret && o->folded && !(ret = px_outfile_open(&fl->folded, o->folded, false)))
		fl->has_folded = true;
	if (!ret && o->flamegraph && !(ret = px_outfile_open(&fl->flame, o->flamegraph, false)))
		fl->has_flame = true;
	return ret;
}

/* Commit them all after a run that succeeded, else discard them all. */
static int files_close(struct session_files *fl, int ret)
{
	if (fl->has_samples)
		ret = ret ? (px_smpl_out_discard(&fl->samples), ret) : px_smpl_out_commit(&fl->samples);
	if (fl->has_folded)
		ret = ret ? (px_outfile_discard(&fl->folded), ret) : px_outfile_commit(&fl->folded);
	if (fl->has_flame)
		ret = ret ? (px_outfile_discard(&fl->flame), ret) : px_outfile_commit(&fl->flame);
	return ret;
}

int px_smpl_session_run(const struct px_smpl_session_opts *o,
			struct px_smpl_session *s)
{
	struct session_files fl;
	int ret;

	memset(s, 0, sizeof(*s));
	s->o = *o;
	if (!s->o.ops)
		s->o.ops = &px_sampler_perf_ops;
	s->nevents = px_smpl_event_index(o, o->mon.nsets, 0);
	s->per_event = calloc(s->nevents + 1, sizeof(*s->per_event));
	s->event_values = calloc(s->nevents + 1, sizeof(*s->event_values));
	s->set_runs = calloc(o->mon.nsets + 1, sizeof(*s->set_runs));
	if (!s->per_event || !s->event_values || !s->set_runs)
		return px_fail(ENOMEM, "out of memory");
	if ((ret = files_open(o, &fl)))
		return files_close(&fl, ret);
	if (o->smpl.callgraph != PX_CALLGRAPH_NONE)
		ret = px_cg_new(&s->cg);
	if (!ret) {
		prefetch_start(s);
		ret = sample_run(s);
	}
	if (!ret) {
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		/* what the prefetch has not finished is waited for on this clock */
		px_prefetch_finish(s->prefetch);
		keep_prefetch_stats(s);
		ret = resolve_all(s, fl.has_samples ? &fl.samples : NULL);
		if (!ret && s->cg && fl.has_folded)
			ret = write_folded(s, fl.folded.f);
		if (!ret && s->cg && fl.has_flame)
			ret = write_flamegraph(s, fl.flame.f);
		ret = files_close(&fl, ret);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		s->resolve_ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ull +
				(uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec;
	} else {
		ret = files_close(&fl, ret);
	}
	px_prefetch_free(s->prefetch);
	s->prefetch = NULL;
	return ret;
}

void px_smpl_session_free(struct px_smpl_session *s)
{
	free(s->per_event);
	free(s->event_values);
	free(s->set_runs);
	free(s->recs);
	free(s->vals);
	free(s->maps);
	free(s->tasks);
	free(s->names);
	free(s->chain_ips);
	px_bigbuf_free(&s->stacks);
	px_cg_free(s->cg);
	px_profile_free(s->profile);
	memset(s, 0, sizeof(*s));
}
