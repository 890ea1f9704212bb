/* The perfmon kernel module backend: its table of operations and its
 * counting groups (its sampling groups: sampler_module.c).  Each open()
 * is one context of its own, its target a thread or a CPU, with every
 * set of the unit: one set is set0; several are each created with
 * PFM_SETFL_TIME_SWITCH and the switch timeout so that the kernel
 * switches them (on the thread's CPU time, or the CPU's wall time
 * system-wide).  Event i of a set gets counter k of the set (PMC k
 * programs PMD k, PMC 64 + k holds a breakpoint address).  enable() is
 * PFM_START, disable() PFM_STOP, read() gives each PMD's value and the
 * time its set was active as enabled and running time, set_runs() the
 * sets' PFM_GETINFO_EVTSETS runs.  The context is loaded with
 * inheritance and start-at-exec when asked, as the perf backend does. */
#include "backend.h"
#include "scale.h"
#include "error.h"
#include "perfmon.h"
#include "sampler_module.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* A counting group: one context with a target's event sets. */
struct module_state {
	struct px_group group;	/* first: what the library sees */
	int fd;
	bool started;
	struct px_target target;
	uint32_t arg_size_max;
	size_t n;		/* events over every set */
	struct px_module_pmd ev[];
};

static int pfm_open_device(int *fd)
{
	*fd = open(PFM_DEVICE, O_RDWR | O_CLOEXEC);
	if (*fd >= 0)
		return 0;
	if (errno == ENOENT || errno == ENODEV || errno == ENXIO)
		return px_fail(ENODEV,
			       "the perfmon kernel module is not loaded (%s is missing): load perfmon.ko (see kernel/README.md) or use --backend=perf",
			       PFM_DEVICE);
	if (errno == EMFILE && access(PFM_DEVICE, F_OK) == 0)
		return px_fail(EMFILE,
			       "cannot open %s: too many perfmon contexts for this user (module parameter ctx_per_user_max)",
			       PFM_DEVICE);
	return px_fail(errno, "cannot open %s: %s", PFM_DEVICE, strerror(errno));
}

static int pfm_get_config(int fd, struct pfarg_config *cf)
{
	memset(cf, 0, sizeof(*cf));
	if (ioctl(fd, PFM_GET_CONFIG, cf))
		return px_fail(errno, "%s: cannot read the module configuration: %s",
			       PFM_DEVICE, strerror(errno));
	if (PFM_VERSION_MAJOR(cf->cf_version) != PFM_VERSION_MAJOR(PFM_VERSION))
		return px_fail(EPROTO,
			       "the loaded perfmon module has interface %u.%u, this program needs %u.x: rebuild one of them",
			       PFM_VERSION_MAJOR(cf->cf_version),
			       PFM_VERSION_MINOR(cf->cf_version),
			       PFM_VERSION_MAJOR(PFM_VERSION));
	return 0;
}

static int module_probe(void)
{
	struct pfarg_config cf;
	int fd, ret;

	ret = pfm_open_device(&fd);
	if (ret)
		return ret;
	ret = pfm_get_config(fd, &cf);
	close(fd);
	return ret;
}

/* One vector command; returns 0 or -errno (errno left as the kernel set it). */
static int pfm_vec(int fd, unsigned long cmd, void *elems, size_t n,
		   size_t esize)
{
	struct pfarg_vec vec;

	memset(&vec, 0, sizeof(vec));
	vec.vec_addr = (uintptr_t)elems;
	vec.vec_size = (uint32_t)(n * esize);
	vec.vec_elem_size = (uint32_t)esize;
	return ioctl(fd, cmd, &vec) ? -errno : 0;
}

static int pfm_write_pmc(int fd, uint16_t set, unsigned int num, uint64_t value)
{
	struct pfarg_pmc pmc;

	memset(&pmc, 0, sizeof(pmc));
	pmc.reg_num = (uint16_t)num;
	pmc.reg_set = set;
	pmc.reg_value = value;
	return pfm_vec(fd, PFM_WRITE_PMCS, &pmc, 1, sizeof(pmc));
}

/* The event select value (and extension) of an event, or -EOPNOTSUPP
 * for kinds of events the module has no encoding for. */
static int pfm_encode(const struct px_event *ev, uint64_t *evtsel,
		      uint64_t *ext1, uint64_t *ext2, uint64_t *ext3)
{
	uint64_t levels = 0;

	if (!ev->exclude_user)
		levels |= PFM_PMC_USR;
	if (!ev->exclude_kernel)
		levels |= PFM_PMC_OS;
	if (!ev->exclude_hv)
		levels |= PFM_PMC_HV;
	*ext1 = ev->config1;
	*ext2 = ev->config2;
	*ext3 = 0;

	if (ev->kind == PX_EVENT_BREAKPOINT) {
		*evtsel = PFM_PMC_VIRT_EVENT(PFM_EVT_TYPE_BREAKPOINT,
					     ev->bp_type | (ev->bp_len << PFM_PMC_BP_LEN_SHIFT),
					     levels);
		*ext1 = ev->bp_addr;
		*ext2 = 0;
		return 0;
	}
	switch (ev->type) {
	case PFM_EVT_TYPE_HARDWARE:
	case PFM_EVT_TYPE_HW_CACHE:
		/* bits 32..63 (a hybrid CPU's PMU type) in PMC 192 + k */
		*ext3 = ev->config >> 32;
		*evtsel = PFM_PMC_VIRT_EVENT(ev->type, ev->config, levels);
		return 0;
	case PFM_EVT_TYPE_SOFTWARE:
		if (ev->config > PFM_PMC_CONFIG_MASK)
			return -EOPNOTSUPP;
		*evtsel = PFM_PMC_VIRT_EVENT(ev->type, ev->config, levels);
		return 0;
	case 4:	/* PERF_TYPE_RAW */
		if (ev->config & PFM_PMC_VIRT)
			return -EOPNOTSUPP;
		*evtsel = ev->config & ~(PFM_PMC_RAW_USR | PFM_PMC_RAW_OS);
		if (!ev->exclude_user)
			*evtsel |= PFM_PMC_RAW_USR;
		if (!ev->exclude_kernel)
			*evtsel |= PFM_PMC_RAW_OS;
		return 0;
	}
	return -EOPNOTSUPP;
}

/* Program counter k for ev: 0, -EOPNOTSUPP (not countable here) or a
 * failure already reported with px_fail(). */
static int pfm_program(int fd, uint16_t set, unsigned int k, struct px_event *ev)
{
	uint64_t evtsel, ext1, ext2, ext3;
	int ret;

	if (pfm_encode(ev, &evtsel, &ext1, &ext2, &ext3))
		return px_fail(EINVAL,
			       "the perfmon module cannot count '%s' (perf type %u): it counts generic, software, cache, raw and breakpoint events; use --backend=perf",
			       ev->name, ev->type);
	ret = pfm_write_pmc(fd, set, PFM_PMC_EXT1_BASE + k, ext1);
	if (!ret)
		ret = pfm_write_pmc(fd, set, PFM_PMC_EXT2_BASE + k, ext2);
	if (!ret && ext3)	/* written only when used: older modules lack it */
		ret = pfm_write_pmc(fd, set, PFM_PMC_EXT3_BASE + k, ext3);
	if (!ret)
		ret = pfm_write_pmc(fd, set, k, evtsel);
	if (ret == -EACCES && !ev->priv_explicit && !ev->exclude_kernel) {
		/* as the perf backend: count user level only */
		ev->exclude_kernel = true;
		ev->exclude_hv = true;
		ev->kernel_dropped = true;
		return pfm_program(fd, set, k, ev);
	}
	if (ret == -EOPNOTSUPP || !ret)
		return ret;
	if (ret == -EACCES)
		return px_fail(EACCES,
			       "no permission to count '%s' at kernel level through the perfmon module: it needs CAP_PERFMON; add :u to count user space only",
			       ev->name);
	return px_fail(-ret, "the perfmon module refused event '%s': %s",
		       ev->name, strerror(-ret));
}

static int pfm_load(int fd, const struct px_target *t)
{
	struct pfarg_load ld;

	memset(&ld, 0, sizeof(ld));
	if (t->pid >= 0) {
		ld.load_pid = (uint32_t)t->pid;
		if (t->inherit)
			ld.load_flags |= PFM_LOADFL_INHERIT;
		if (t->enable_on_exec)
			ld.load_flags |= PFM_LOADFL_ENABLE_ON_EXEC;
	} else {
		ld.load_cpu = (uint32_t)t->cpu;
	}
	if (!ioctl(fd, PFM_LOAD_CONTEXT, &ld))
		return 0;
	if (errno == EPERM && t->pid < 0)
		return px_fail(EPERM,
			       "no permission to count on CPU %d through the perfmon module: system-wide counting needs CAP_PERFMON or CAP_SYS_ADMIN",
			       t->cpu);
	if (errno == EPERM)
		return px_fail(EPERM,
			       "the perfmon module cannot attach to task %d: it attaches only to the caller or to a stopped task the caller traces",
			       (int)t->pid);
	if (errno == EBUSY)
		return px_fail(EBUSY, "%s %d already has a perfmon context",
			       t->pid >= 0 ? "task" : "CPU",
			       t->pid >= 0 ? (int)t->pid : t->cpu);
	if (errno == ESRCH)
		return px_fail(ESRCH, "no task %d to count", (int)t->pid);
	if (errno == EOPNOTSUPP && t->inherit)
		return px_fail(EOPNOTSUPP,
			       "the perfmon module cannot switch event sets in the tasks a command creates (their inherited counters ignore switches): count one event set, or use --backend=perf");
	return px_fail(errno, "cannot attach the perfmon context: %s",
		       strerror(errno));
}

static int pfm_create(int fd, const struct px_target *t)
{
	struct pfarg_ctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	if (t->pid < 0)
		ctx.ctx_flags = PFM_FL_SYSTEM_WIDE;
	if (!ioctl(fd, PFM_CREATE_CONTEXT, &ctx))
		return 0;
	if (errno == EPERM)
		return px_fail(EPERM,
			       "no permission to create a %s perfmon context (module parameters sys_gid, thread_gid; system-wide needs CAP_PERFMON)",
			       t->pid < 0 ? "system-wide" : "per-thread");
	return px_fail(errno, "cannot create a perfmon context: %s",
		       strerror(errno));
}

static struct module_state *counters(const struct px_group *g)
{
	return (struct module_state *)g;
}

static void close_counters(struct module_state *st)
{
	if (!st)
		return;
	if (st->fd >= 0)
		close(st->fd);
	free(st);
}

/* A new context for target t with room for n events, created (not
 * loaded). */
static int ctx_new(const struct px_target *t, size_t n, struct module_state **out)
{
	struct module_state *st;
	struct pfarg_config cf;
	int ret;

	if (t->pid >= 0 && t->cpu >= 0)
		return px_fail(EOPNOTSUPP,
			       "the perfmon module counts a task on every CPU or a whole CPU, not a task on one CPU");
	st = calloc(1, sizeof(*st) + n * sizeof(st->ev[0]));
	if (!st)
		return px_fail(ENOMEM, "out of memory");
	st->group = (struct px_group){ .backend = &px_backend_module };
	st->n = n;
	st->target = *t;
	ret = pfm_open_device(&st->fd);
	if (ret) {
		free(st);
		return ret;
	}
	ret = pfm_get_config(st->fd, &cf);
	if (!ret)
		ret = pfm_create(st->fd, t);
	if (ret) {
		close_counters(st);
		return ret;
	}
	st->arg_size_max = (uint32_t)cf.cf_arg_size_max;
	*out = st;
	return 0;
}

/* Program set s's events as counters 0.. of the set, from st->ev[*idx]
 * on; an event this machine cannot count gets status -EOPNOTSUPP and no
 * counter. */
static int program_set(struct module_state *st, uint16_t s,
		       const struct px_event_set *set, size_t *idx, int *status)
{
	unsigned int k = 0;

	for (size_t i = 0; i < set->n; i++, (*idx)++) {
		int ret;

		status[*idx] = 0;
		st->ev[*idx].ctr = -1;
		st->ev[*idx].set = s;
		ret = pfm_program(st->fd, s, k, &set->events[i]);
		if (ret == -EOPNOTSUPP) {
			status[*idx] = -EOPNOTSUPP;
			continue;
		}
		if (ret)
			return ret;
		st->ev[*idx].ctr = (int)k++;
	}
	return 0;
}

/* Every set in one new context; with several, each switched by the
 * kernel every switch_ns. */
static int open_counters(struct px_event_set *sets, size_t nsets,
			 const struct px_target *t, uint64_t switch_ns,
			 int *status, struct px_group **out)
{
	struct module_state *st = NULL;
	size_t total = 0, idx = 0;
	int ret;

	if (px_module_check_sets(nsets))
		return -EINVAL;
	for (size_t s = 0; s < nsets; s++) {
		if (sets[s].n > PFM_NUM_COUNTERS)
			return px_fail(EINVAL,
				       "the perfmon module has %d counters, %zu events were asked for",
				       PFM_NUM_COUNTERS, sets[s].n);
		total += sets[s].n;
	}
	if (nsets > 1 && (ret = px_module_check_timeout(switch_ns)))
		return ret;
	if ((ret = ctx_new(t, total, &st)))
		return ret;
	for (size_t s = 0; s < nsets; s++) {
		/* set0 exists: creating it again modifies it */
		if (nsets > 1 &&
		    (ret = px_module_create_set(st->fd, (unsigned)s,
						PFM_SETFL_TIME_SWITCH, switch_ns)))
			goto out_close;
		if ((ret = program_set(st, (uint16_t)s, &sets[s], &idx, status)))
			goto out_close;
	}
	ret = pfm_load(st->fd, t);
	if (ret)
		goto out_close;
	*out = &st->group;
	return 0;

out_close:
	close_counters(st);
	return ret;
}

static int module_open(struct px_event_set *sets, size_t nsets,
		       const struct px_target *t, const struct px_group_opts *o,
		       int *status, struct px_group **out)
{
	size_t total = 0;
	int ret;

	*out = NULL;
	if (!o || !o->pmds)
		return open_counters(sets, nsets, t, o ? o->switch_ns : 0, status, out);
	ret = px_msmpl_open(sets, nsets, t, o, out);
	for (size_t s = 0; !ret && s < nsets; s++)
		total += sets[s].n;
	if (!ret)
		memset(status, 0, total * sizeof(*status));
	return ret;
}

static int count_enable(struct module_state *st)
{
	struct pfarg_start arg;

	/* the kernel goes on with its active set (set0 at first) */
	if (st->started)
		return 0;
	memset(&arg, 0, sizeof(arg));
	if (ioctl(st->fd, PFM_START, &arg))
		return px_fail(errno, "perfmon start failed: %s", strerror(errno));
	st->started = true;
	return 0;
}

static int count_disable(struct module_state *st)
{
	struct pfarg_flags arg;

	if (!st->started)
		return 0;
	memset(&arg, 0, sizeof(arg));
	/* EBUSY: the target has ended and the context unloaded itself */
	if (ioctl(st->fd, PFM_STOP, &arg) && errno != EBUSY) {
		/* tasks the command created still run, and their inherited
		 * counters cannot be stopped: they count until the read, as
		 * the perf backend's do (kernel/README.md) */
		if (errno == EOPNOTSUPP && st->target.inherit)
			return 0;
		return px_fail(errno, "perfmon stop failed: %s", strerror(errno));
	}
	st->started = false;
	return 0;
}

/* PFM_READ_PMDS of every counted PMD of regs[0..n-1], in that order
 * without the uncounted ones, in calls of at most arg_size_max bytes;
 * *out is the caller's to free. */
static int read_pmds(int fd, uint32_t arg_size_max,
		     const struct px_module_pmd *regs, size_t n,
		     struct pfarg_pmd **out)
{
	struct pfarg_pmd *pmds;
	size_t per_call = arg_size_max / sizeof(pmds[0]);
	size_t nctr = 0;
	int ret;

	pmds = calloc(n ? n : 1, sizeof(pmds[0]));
	if (!pmds)
		return px_fail(ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		if (regs[i].ctr < 0)
			continue;
		pmds[nctr].reg_num = (uint16_t)regs[i].ctr;
		pmds[nctr].reg_set = regs[i].set;
		nctr++;
	}
	if (!per_call)
		per_call = 1;
	for (size_t k = 0; k < nctr; k += per_call) {
		size_t m = nctr - k < per_call ? nctr - k : per_call;

		ret = pfm_vec(fd, PFM_READ_PMDS, &pmds[k], m, sizeof(pmds[0]));
		if (ret) {
			free(pmds);
			return px_fail(-ret, "cannot read the perfmon counters: %s",
				       strerror(-ret));
		}
	}
	*out = pmds;
	return 0;
}

int px_module_read(int fd, uint32_t arg_size_max,
		   const struct px_module_pmd *regs, size_t n,
		   struct px_count *counts)
{
	struct pfarg_pmd *pmds;
	int ret = read_pmds(fd, arg_size_max, regs, n, &pmds);

	if (ret)
		return ret;
	for (size_t i = 0, k = 0; i < n; i++) {
		memset(&counts[i], 0, sizeof(counts[i]));
		if (regs[i].ctr < 0)
			continue;
		counts[i].value = regs[i].event_count ? pmds[k].reg_act_count :
							pmds[k].reg_value;
		counts[i].enabled = pmds[k].reg_time_enabled;
		counts[i].running = pmds[k].reg_time_running;
		k++;
	}
	free(pmds);
	return 0;
}

/* The kernel's sums over each counter's set activations (reg_act_*). */
int px_module_activations(int fd, uint32_t arg_size_max,
			  const struct px_module_pmd *regs, size_t n,
			  struct px_activations *acts)
{
	struct pfarg_pmd *pmds;
	int ret = read_pmds(fd, arg_size_max, regs, n, &pmds);

	if (ret)
		return ret;
	for (size_t i = 0, k = 0; i < n; i++) {
		memset(&acts[i], 0, sizeof(acts[i]));
		if (regs[i].ctr < 0)
			continue;
		/* an overflowed sum (U64_MAX) leaves the interval unknown */
		if (pmds[k].reg_act_time2_us != UINT64_MAX &&
		    pmds[k].reg_act_count2_ms != UINT64_MAX) {
			acts[i].t = (double)pmds[k].reg_act_time;
			acts[i].t2 = (double)pmds[k].reg_act_time2_us * 1e6;
			acts[i].c = (double)pmds[k].reg_act_count;
			acts[i].c2_t = (double)pmds[k].reg_act_count2_ms / 1e6;
		}
		k++;
	}
	free(pmds);
	return 0;
}

int px_module_set_runs(int fd, uint64_t *runs, size_t nsets)
{
	for (size_t s = 0; s < nsets; s++) {
		struct pfarg_setinfo si;
		int ret;

		memset(&si, 0, sizeof(si));
		si.set_id = (uint16_t)s;
		ret = pfm_vec(fd, PFM_GETINFO_EVTSETS, &si, 1, sizeof(si));
		if (ret)
			return px_fail(-ret, "cannot read perfmon event set %zu: %s",
				       s, strerror(-ret));
		runs[s] = si.set_runs;
	}
	return 0;
}

static int module_enable(struct px_group *g)
{
	return g->sampling ? px_msmpl_enable(g) : count_enable(counters(g));
}

static int module_disable(struct px_group *g)
{
	return g->sampling ? px_msmpl_disable(g) : count_disable(counters(g));
}

static int module_read(struct px_group *g, struct px_count *counts)
{
	struct module_state *st = counters(g);

	if (g->sampling)
		return px_msmpl_read(g, counts);
	return px_module_read(st->fd, st->arg_size_max, st->ev, st->n, counts);
}

static int module_activations(struct px_group *g, struct px_activations *acts)
{
	struct module_state *st = counters(g);

	if (g->sampling)
		return px_msmpl_activations(g, acts);
	return px_module_activations(st->fd, st->arg_size_max, st->ev, st->n, acts);
}

static int module_set_runs(struct px_group *g, uint64_t *runs, size_t nsets)
{
	if (g->sampling)
		return px_msmpl_set_runs(g, runs, nsets);
	return px_module_set_runs(counters(g)->fd, runs, nsets);
}

static void module_close(struct px_group *g)
{
	if (g->sampling)
		px_msmpl_close(g);
	else
		close_counters(counters(g));
}

/* The module records no mappings or task names (task_mappings false): a
 * task's sampling group has no side band, a CPU's has one. */
const struct px_backend px_backend_module = {
	.name = "module",
	.switches_sets = true,
	.task_mappings = false,
	.sampling_inherits = false,
	.probe = module_probe,
	.open = module_open,
	.enable = module_enable,
	.disable = module_disable,
	.read = module_read,
	.set_runs = module_set_runs,
	.activations = module_activations,
	.close = module_close,
	.finish = px_msmpl_finish,
	.poll = px_msmpl_poll,
	.pollfds = px_msmpl_pollfds,
	.stats = px_msmpl_stats,
	.mappings = px_msmpl_mappings,
	.tasks = px_msmpl_tasks,
};

/* For the module sampler (lib/backend/module/sampler_module.c): the same device checks,
 * event programming and load as the counting backend. */
int px_module_open_device(int *fd, uint32_t *arg_size_max)
{
	struct pfarg_config cf;
	int ret = pfm_open_device(fd);

	if (ret)
		return ret;
	ret = pfm_get_config(*fd, &cf);
	if (ret) {
		close(*fd);
		*fd = -1;
		return ret;
	}
	if (arg_size_max)
		*arg_size_max = (uint32_t)cf.cf_arg_size_max;
	return 0;
}

int px_module_formats(struct px_module_format *out, size_t max, size_t *n)
{
	struct pfarg_fmtinfo fi[PX_MODULE_FORMATS_MAX];
	int fd, ret;

	*n = 0;
	if (max > PX_MODULE_FORMATS_MAX)
		max = PX_MODULE_FORMATS_MAX;
	ret = px_module_open_device(&fd, NULL);
	if (ret)
		return ret;
	memset(fi, 0, sizeof(fi));
	for (size_t i = 0; i < max; i++)
		fi[i].fmt_index = (uint32_t)i;
	/* the index past the last format fails (NOTAVAIL): the formats are
	 * the elements filled before it */
	ret = pfm_vec(fd, PFM_GETINFO_FMTS, fi, max, sizeof(fi[0]));
	close(fd);
	if (ret && ret != -EINVAL)
		return px_fail(-ret, "cannot list the perfmon module's sampling formats: %s",
			       strerror(-ret));
	for (; *n < max && fi[*n].fmt_name[0] && !fi[*n].fmt_retflags; (*n)++) {
		struct px_module_format *f = &out[*n];

		memcpy(f->name, fi[*n].fmt_name, sizeof(f->name));
		f->name[sizeof(f->name) - 1] = '\0';
		memcpy(f->uuid, fi[*n].fmt_uuid, sizeof(f->uuid));
		f->flags = fi[*n].fmt_flags;
		f->arg_size = fi[*n].fmt_arg_size;
	}
	return 0;
}

int px_module_program(int fd, uint16_t set, unsigned int k, struct px_event *ev)
{
	int ret = pfm_program(fd, set, k, ev);

	if (ret == -EOPNOTSUPP)
		return px_fail(EOPNOTSUPP,
			       "cannot sample '%s': not supported on this machine (no hardware PMU for it?)",
			       ev->name);
	return ret;
}

int px_module_load(int fd, const struct px_target *t)
{
	return pfm_load(fd, t);
}

int px_module_check_sets(size_t nsets)
{
	if (nsets > PX_MODULE_SETS_MAX)
		return px_fail(EINVAL, "the perfmon module backend takes at most %d event sets",
			       PX_MODULE_SETS_MAX);
	return 0;
}

int px_module_check_timeout(uint64_t timeout_ns)
{
	if (!timeout_ns || timeout_ns > (1ull << 62))
		return px_fail(EINVAL, "the perfmon module cannot switch sets every %llu ns",
			       (unsigned long long)timeout_ns);
	return 0;
}

int px_module_create_set(int fd, unsigned int id, uint32_t flags,
			 uint64_t timeout_ns)
{
	struct pfarg_setdesc sd;
	int ret;

	if ((ret = px_module_check_sets((size_t)id + 1)))
		return ret;
	if ((flags & PFM_SETFL_TIME_SWITCH) &&
	    (ret = px_module_check_timeout(timeout_ns)))
		return ret;
	memset(&sd, 0, sizeof(sd));
	sd.set_id = (uint16_t)id;
	sd.set_flags = flags;
	if (flags & PFM_SETFL_TIME_SWITCH)
		sd.set_timeout = timeout_ns;
	ret = pfm_vec(fd, PFM_CREATE_EVTSETS, &sd, 1, sizeof(sd));
	if (ret)
		return px_fail(-ret, "cannot create perfmon event set %u: %s",
			       id, strerror(-ret));
	return 0;
}
