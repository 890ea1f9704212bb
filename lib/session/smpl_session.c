/* pfmon's sampling session: the run (the session engine with sampling
 * groups) and what it keeps for the resolution after it: the samples,
 * their bodies, chains and stack copies, the mappings and task records,
 * the processes read from /proc, the groups' statistics and the counts
 * of their events. */
#include "smpl_session.h"
#include "smpl_store.h"
#include "callchain/perfmon_cc_smpl.h"
#include "error.h"
#include "grow.h"
#include "maps.h"
#include "procfs.h"

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
	if (n)		/* chain_ips is NULL until a sample has frames */
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
	if (x->stack_size)
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
	if (x->nvalues)	/* vals is NULL until a sample has values */
		memcpy(s->vals + s->nvals, x->values, x->nvalues * sizeof(*x->values));
	s->nvals += x->nvalues;
	if (s->o.smpl.callgraph != PX_CALLGRAPH_NONE && keep_chain(s, r, x))
		return px_fail(ENOMEM, "out of memory keeping the call chains of %zu samples",
			       s->nrecs);
	if (x->set < s->o.mon.nsets && x->ovfl_pmd < s->o.mon.sets[x->set].n)
		s->per_event[px_smpl_event_index(&s->o, x->set, x->ovfl_pmd)]++;
	return 0;
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

/* Append k elements of size bytes at src to the array *v of *n. */
static int append(void **v, size_t *n, const void *src, size_t k, size_t size)
{
	void *g;

	if (!k)
		return 0;
	g = realloc(*v, (*n + k) * size);
	if (!g)
		return px_fail(ENOMEM, "out of memory");
	memcpy((char *)g + *n * size, src, k * size);
	*v = g;
	*n += k;
	return 0;
}

/* Keep what a sampling group recorded about mappings and tasks. */
static int keep_records(struct px_smpl_session *s, const struct px_group *g)
{
	const struct px_mapping *m;
	const struct px_task_event *t;
	size_t nm = px_group_mappings(g, &m), nt = px_group_tasks(g, &t);

	return append((void **)&s->maps, &s->nmaps, m, nm, sizeof(*m)) ?:
	       append((void **)&s->tasks, &s->ntasks, t, nt, sizeof(*t));
}

static void exit_snapshot(pid_t pid, void *arg)
{
	(void)snapshot_maps(arg, pid, UINT64_MAX);
}

void px_smpl_totals(const struct px_monitor *m, struct px_smpl_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < m->nunits; i++) {
		for (size_t k = 0; k < m->ngroups; k++) {
			struct px_smpl_stats one;

			if (!m->units[i].groups[k])
				continue;
			px_group_stats(m->units[i].groups[k], &one);
			add_stats(st, &one);
		}
	}
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

/* A file mapping recorded during the run, for the caller's on_map. */
static void forward_map(void *arg, const struct px_mapping *m)
{
	const struct px_smpl_session *s = arg;

	s->o.on_map(s->o.map_arg, m);
}

static int sample_run(struct px_smpl_session *s)
{
	const struct px_smpl_session_opts *o = &s->o;
	const struct px_backend *be = o->mon.backend;
	bool records = be->task_mappings;
	/* groups that record no mappings, and those opened after the exec
	 * (they stop at overflows): the command's are read at its exit */
	struct px_monitor_sampling sm = {
		.pmds = o->pmds, .opts = o->smpl,
		.at_exit = !records || (be->stops && be->stops(o->pmds[0], o->mon.sets[0].n)) ?
			   exit_snapshot : NULL,
		.arg = s,
	};
	struct px_monitor_opts mo = o->mon;
	struct px_monitor m;
	struct px_maps self = { 0 };
	int ret = 0;

	mo.sampling = &sm;
	mo.inherit = be->sampling_inherits && o->mon.follow;
	mo.system_wide = o->mon.ncpus > 0;
	sm.opts.on_sample = keep_sample;
	sm.opts.on_map = o->on_map ? forward_map : NULL;
	sm.opts.arg = s;
	if (o->mon.ncpus)
		ret = snapshot_system(s);
	else if (o->mon.attach_pid > 0)
		ret = snapshot_process(s, o->mon.attach_pid);
	else if (records && o->mon.argv && o->smpl.callgraph != PX_CALLGRAPH_NONE)
		/* the command's before its exec, for its chains */
		(void)px_maps_snapshot(&self, 0);
	if (ret)
		return ret;
	ret = px_monitor_run(&mo, &m);
	s->exec_errno = m.exec_errno;	/* the command could not run */
	s->run.exit_code = m.exit_code;
	s->run.signal = m.signal;
	s->run.signal = m.signal;
	s->run.elapsed_ns = m.elapsed_ns;
	if (!ret) {
		px_smpl_totals(&m, &s->st);
		keep_event_values(s, &m);
	}
	for (size_t i = 0; i < m.nunits && !ret; i++)
		for (size_t k = 0; k < m.ngroups && !ret; k++)
			if (m.units[i].groups[k])
				ret = keep_records(s, m.units[i].groups[k]);
	if (!ret && self.n && m.nunits)
		ret = keep_pre_exec_maps(s, &self, m.units[0].pid);
	px_maps_free(&self);
	px_monitor_free(&m);
	return ret;
}

int px_smpl_session_run(const struct px_smpl_session_opts *o,
			struct px_smpl_session *s)
{
	memset(s, 0, sizeof(*s));
	s->o = *o;
	if (!s->o.mon.backend)
		s->o.mon.backend = &px_backend_perf;
	s->nevents = px_smpl_event_index(o, o->mon.nsets, 0);
	s->per_event = calloc(s->nevents + 1, sizeof(*s->per_event));
	s->event_values = calloc(s->nevents + 1, sizeof(*s->event_values));
	s->set_runs = calloc(o->mon.nsets + 1, sizeof(*s->set_runs));
	if (!s->per_event || !s->event_values || !s->set_runs)
		return px_fail(ENOMEM, "out of memory");
	return sample_run(s);
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
	memset(s, 0, sizeof(*s));
}
