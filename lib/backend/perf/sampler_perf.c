/* Sampling through perf_event_open(2) into the perfmon2 sampling formats.
 * The mapping of perfmon2's semantics is described in sampler_perf.h. */
#include "sampler_perf.h"
#include "error.h"
#include "perf_syscall.h"
#include "random.h"
#include "sideband.h"
#include "callchain/px_cc.h"
#include "double-buffer/px_dbl.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define DEFAULT_ENTRIES 4096
#define DEFAULT_RING_PAGES 256
/* a stack copy per sample: 8 KiB samples need a larger ring */
#define DWARF_RING_PAGES 2048
/* The user registers a DWARF unwinder needs, as perf numbers them
 * (asm/perf_regs.h): AX BX CX DX SI DI BP SP IP (bits 0-8) and R8-R15
 * (bits 16-23); the kernel writes them in increasing bit order. */
#define USER_REGS_MASK 0xff01ffull
#define SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
		     PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)
/* No PERF_SAMPLE_PERIOD: with it the kernel samples every occurrence of a
 * software, tracepoint or breakpoint event whatever the period (it records
 * the count as the period).  The period recorded is the one the tool set. */

/* The events of one CPU (or of the task): the PMDs' group, whose ring
 * holds the samples alone, and a dummy event whose ring has the mapping
 * and task records, so that pausing the samples (the mask) loses none of
 * those and every record the kernel reports lost is an overflow. */
struct ring {
	int cpu;
	int *fds;		/* one per PMD, -1 when not opened */
	uint64_t *ids;		/* perf's id of each PMD's event */
	struct px_ring samples;
	struct px_sideband side;
	uint64_t mask_head;	/* no_block: what the kernel had written by
				 * the last restart */
};

struct pmd_state {
	struct px_smpl_pmd cfg;
	struct px_random rnd;
	uint64_t cur_period;	/* the period of the overflow to come */
	uint64_t kperiod;	/* what the kernel was last told (differs
				 * after an exec, see px_sampler_exec()) */
	uint64_t base;		/* counted by events that ended at an exec */
	uint64_t at_reload;	/* stops: the count when the period began */
	bool reloaded;		/* stops: overflowed since the last drain */
	unsigned nbody;
	int same_as;		/* a counting PMD that is the same event as
				 * an earlier PMD reads that one's counter
				 * (no event of its own); else -1 */
};

struct px_sampler {
	struct px_group group;	/* first: the perf backend's sampling group */
	size_t n;
	struct px_event *evs;	/* to open them again after an exec */
	struct pmd_state *pmd;
	struct px_smpl_opts o;
	bool read_group;	/* samples carry the group's values */
	bool stops;		/* the task stops at every overflow (sampler_perf.h) */
	bool started;		/* enabled once: the side band records */
	struct ring *rings;
	size_t nrings;
	/* The format's buffer: the double buffer's bytes; for the default
	 * and callchain formats, whose samples go to the tool as they are
	 * decoded, only its header, which accounts for them as the buffer
	 * would (when it fills, its notification, its restart). */
	unsigned char *buf;
	struct pfm_dfl_smpl_hdr fill;
	size_t buf_size, max_sample;
	bool saturated;		/* masked until the end */
	uint64_t mask_from;	/* no_block: time of the last buffer-full
				 * sample; later samples written before the
				 * restart fell in the mask */
	struct px_smpl_stats st;
	struct px_records records;	/* mappings and tasks (side bands) */
	unsigned char *rec;	/* one record, unwrapped */
	int cb_ret;		/* a non-zero on_sample return */
	uint64_t act_ovfls;	/* the trigger's overflows since its set
				 * was last started */
	bool for_exec;		/* the samples start at the task's exec */
	unsigned max_frames;	/* call chains: frames per chain */
	uint64_t frames[PFM_CC_MAX_FRAMES];	/* the sample being decoded's */
	uint64_t regs[PFM_CC_NREGS];
};

static int check_trigger(const struct px_event *evs, size_t n,
			 const struct px_smpl_pmd *pmds, const struct px_target *t);

static int is_sampling(const struct pmd_state *p)
{
	return p->cfg.long_period != 0;
}

static uint64_t short_period(const struct pmd_state *p)
{
	return p->cfg.short_period ? p->cfg.short_period : p->cfg.long_period;
}

/* The next period: base - (random & mask) seen as a period is the spec's
 * base + (random & mask) on the PMD value 2^64 - base. */
static uint64_t next_period(struct pmd_state *p, bool use_long)
{
	uint64_t base = use_long ? p->cfg.long_period : short_period(p);

	if (!p->cfg.random)
		return base;
	return -px_random_reset_value(&p->rnd, -base, p->cfg.random_mask);
}

/* Two PMDs programmed with one event count the same occurrences, as two
 * hardware counters would: at an overflow of one, the other has counted
 * it too.  Two perf events on one trigger (a breakpoint address, a uprobe)
 * do not: the kernel runs their handlers one after the other, in an order
 * of its own, so the one read in the other's sample may lack the
 * occurrence.  A counting PMD therefore reads its twin's counter. */
static bool same_event(const struct px_event *a, const struct px_event *b)
{
	return a->kind == b->kind && a->type == b->type &&
	       a->config == b->config && a->config1 == b->config1 &&
	       a->config2 == b->config2 &&
	       a->bp_type == b->bp_type && a->bp_addr == b->bp_addr &&
	       a->bp_len == b->bp_len && a->exclude_user == b->exclude_user &&
	       a->exclude_kernel == b->exclude_kernel &&
	       a->exclude_hv == b->exclude_hv &&
	       !strcmp(a->encoded, b->encoded);
}

static int twin_of(const struct px_event *evs, const struct pmd_state *pmd,
		   size_t i)
{
	if (is_sampling(&pmd[i]))
		return -1;
	for (size_t j = 0; j < i; j++)
		if (pmd[j].same_as < 0 && same_event(&evs[i], &evs[j]))
			return (int)j;
	return -1;
}

static int validate(const struct px_event *evs, size_t n,
		    const struct px_smpl_pmd *pmds, const struct px_smpl_opts *o)
{
	int ret = px_smpl_check(evs, n, pmds, o);

	if (ret)
		return ret;
	if (o->ring_pages & (o->ring_pages - 1))
		return px_fail(EINVAL, "the ring buffer size must be a power of 2 pages, not %u",
			       o->ring_pages);
	return 0;
}

static void fill_attr(struct px_sampler *s, const struct px_event *ev, size_t i,
		      const struct px_target *t, struct perf_event_attr *a)
{
	const struct pmd_state *p = &s->pmd[i];
	size_t rb = (size_t)s->o.ring_pages * (size_t)sysconf(_SC_PAGESIZE);

	px_perf_event_attr(ev, a);
	a->disabled = i == 0;
	/* a trigger is started by the tool with its overflow limit */
	a->enable_on_exec = i == 0 && t->enable_on_exec && !p->cfg.switch_ovfls;
	a->inherit = t->inherit;
	/* the times scale a set's sample counts when sets are switched */
	a->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
			 PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a->sample_id_all = 1;
	a->sample_type = SAMPLE_TYPE | (s->read_group ? PERF_SAMPLE_READ : 0);
	if (s->o.callgraph != PX_CALLGRAPH_NONE) {
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->sample_max_stack = (uint16_t)s->max_frames;
	}
	if (s->o.callgraph == PX_CALLGRAPH_DWARF) {
		/* the user part is unwound after the run from these */
		a->exclude_callchain_user = 1;
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = USER_REGS_MASK;
		a->sample_stack_user = s->o.stack_bytes;
	}
	/* the kernel allows its synchronous SIGTRAP only on events that end
	 * at exec */
	a->remove_on_exec = s->stops;
	a->sigtrap = s->stops && is_sampling(p);
	if (is_sampling(p)) {
		a->sample_period = p->kperiod;
		if (p->cfg.random || p->cfg.switch_ovfls) {
			/* a trigger: the tool hears of the overflow that ends
			 * its set's turn at once */
			a->wakeup_events = 1;
		} else if (s->o.no_block && s->o.format == PX_SMPL_DEFAULT && p->cfg.notify) {
			/* no_block: the tool hears of the sample that fills
			 * the buffer (as perfmon2 notifies) within an eighth
			 * of a buffer.  Not at every sample: each wake-up is
			 * an irq_work, a self-IPI that costs several us in a
			 * VM, and at a 10 us period of cpu-clock its hrtimer
			 * then fires again on return: the task it samples
			 * made no progress at all */
			a->wakeup_events = (uint32_t)(s->o.entries ? s->o.entries : DEFAULT_ENTRIES) / 8;
			if (!a->wakeup_events)
				a->wakeup_events = 1;
		} else {
			a->watermark = 1;
			/* double-buffer: wake at half the ring; default: when
			 * it is three quarters full */
			a->wakeup_watermark = (uint32_t)(s->o.format == PX_SMPL_DOUBLE_BUFFER ?
							 rb / 2 : rb / 4 * 3);
		}
	}
}

static int open_event(struct px_sampler *s, struct px_event *ev, size_t i,
		      const struct px_target *t, int cpu, int group)
{
	struct perf_event_attr a;
	int fd;

	fill_attr(s, ev, i, t, &a);
	fd = px_perf_event_open(&a, t->pid, cpu, group);
	if ((fd == -EACCES || fd == -EPERM) && !ev->priv_explicit &&
	    !ev->exclude_kernel && t->pid >= 0) {
		ev->exclude_kernel = true;
		ev->exclude_hv = true;
		ev->kernel_dropped = true;
		fill_attr(s, ev, i, t, &a);
		fd = px_perf_event_open(&a, t->pid, cpu, group);
	}
	if (fd >= 0)
		return fd;
	if (fd == -ENOENT || fd == -EOPNOTSUPP || fd == -ENODEV)
		return px_fail(-fd, "cannot sample '%s': not supported on this machine (no hardware PMU for it?)",
			       ev->name);
	if (fd == -EACCES || fd == -EPERM)
		return px_fail(-fd, "no permission to sample '%s': lower kernel.perf_event_paranoid or run as root",
			       ev->name);
	if (fd == -EOVERFLOW && s->o.callgraph != PX_CALLGRAPH_NONE)
		return px_fail(EOVERFLOW, "cannot record call chains of %u frames: the kernel allows at most kernel.perf_event_max_stack (see /proc/sys/kernel/perf_event_max_stack)",
			       s->max_frames);
	if (fd == -EINVAL && t->inherit && s->read_group)
		return px_fail(EINVAL, "cannot sample '%s' with its group's values while following children on this kernel: record only one event, or do not follow children",
			       ev->name);
	return px_fail(-fd, "cannot sample '%s': %s", ev->name, strerror(-fd));
}

static int open_ring(struct px_sampler *s, const struct px_event *evs,
		     const struct px_target *t, struct ring *r)
{
	int ret;

	r->fds = malloc(s->n * sizeof(int));
	r->ids = calloc(s->n, sizeof(uint64_t));
	if (!r->fds || !r->ids)
		return px_fail(ENOMEM, "out of memory");
	for (size_t i = 0; i < s->n; i++)
		r->fds[i] = -1;
	for (size_t i = 0; i < s->n; i++) {
		struct px_event ev = evs[i];

		if (s->pmd[i].same_as >= 0)
			continue;
		ret = open_event(s, &ev, i, t, r->cpu, i ? r->fds[0] : -1);
		if (ret < 0)
			return ret;
		r->fds[i] = ret;
		if (ioctl(r->fds[i], PERF_EVENT_IOC_ID, &r->ids[i]))
			return px_fail(errno, "cannot get the id of '%s': %s",
				       evs[i].name, strerror(errno));
	}
	if ((ret = px_ring_map(&r->samples, r->fds[0], s->o.ring_pages)))
		return ret;
	for (size_t i = 1; i < s->n; i++)
		if (is_sampling(&s->pmd[i]) &&
		    ioctl(r->fds[i], PERF_EVENT_IOC_SET_OUTPUT, r->fds[0]))
			return px_fail(errno, "cannot direct '%s' to the ring: %s",
				       evs[i].name, strerror(errno));
	/* the mappings and tasks in a ring of their own, so that pausing
	 * the samples (the mask) loses none of those and every record the
	 * kernel reports lost in the samples' ring is an overflow */
	if (s->o.no_sideband)
		return 0;
	return px_sideband_open(&r->side, t, r->cpu, s->stops, s->o.on_map != NULL);
}

static void close_ring(struct px_sampler *s, struct ring *r)
{
	px_ring_unmap(&r->samples);
	px_sideband_close(&r->side);
	if (r->fds)
		for (size_t i = 0; i < s->n; i++)
			if (r->fds[i] >= 0)
				close(r->fds[i]);
	free(r->fds);
	free(r->ids);
}

/* The callchain format's flags for the call-graph mode. */
static uint32_t cc_flags(const struct px_sampler *s)
{
	uint32_t f = PFM_CC_SMPL_KERNEL | PFM_CC_SMPL_USER;

	return s->o.callgraph == PX_CALLGRAPH_DWARF ? f | PFM_CC_SMPL_USER_STACK : f;
}

static int init_buffer(struct px_sampler *s)
{
	size_t entries = s->o.entries ? s->o.entries : DEFAULT_ENTRIES;
	unsigned most = 0;
	int ret;

	for (size_t i = 0; i < s->n; i++)
		if (is_sampling(&s->pmd[i]) && s->pmd[i].nbody > most)
			most = s->pmd[i].nbody;
	s->max_sample = px_dfl_max_sample_size(0, most);
	if (s->o.format == PX_SMPL_CALLCHAIN)
		s->max_sample = px_cc_max_sample_size(cc_flags(s), most, s->max_frames,
						      s->o.stack_bytes);
	if (s->o.format != PX_SMPL_DOUBLE_BUFFER) {
		s->buf_size = sizeof(struct pfm_dfl_smpl_hdr) + entries * s->max_sample;
		ret = s->o.format == PX_SMPL_CALLCHAIN ?
		      px_cc_init(&s->fill, s->buf_size, cc_flags(s), s->max_sample) :
		      px_dfl_init(&s->fill, s->buf_size, 0, s->max_sample);
	} else {
		s->buf_size = sizeof(struct pfm_dbl_smpl_hdr) + 2 * entries * s->max_sample;
		s->buf = calloc(1, s->buf_size);
		if (!s->buf)
			return px_fail(ENOMEM, "cannot allocate a %zu-byte sampling buffer",
				       s->buf_size);
		ret = px_dbl_init(s->buf, s->buf_size,
				  s->o.mask_when_full ? PFM_DBL_SMPL_MASK_WHEN_FULL : 0,
				  s->max_sample);
	}
	if (ret)
		return px_fail(-ret, "cannot set up the sampling buffer");
	return 0;
}

int px_sampler_open(const struct px_event *evs, size_t n,
		    const struct px_smpl_pmd *pmds,
		    const struct px_target *t, const struct px_smpl_opts *o,
		    struct px_sampler **out)
{
	struct px_sampler *s;
	long ncpu;
	int ret;

	*out = NULL;
	if ((ret = validate(evs, n, pmds, o)))
		return ret;
	if (px_smpl_periods_change(pmds, n) &&
	    (t->pid <= 0 || t->cpu >= 0 || t->inherit || t->enable_on_exec))
		return px_fail(EINVAL,
			       "periods that change at overflows (randomised, or a short period other than the long) need the sampled task stopped at each overflow on this backend: one traced task after its exec, not children, CPUs or a task before exec");
	if ((ret = check_trigger(evs, n, pmds, t)))
		return ret;
	s = calloc(1, sizeof(*s));
	if (!s)
		return px_fail(ENOMEM, "out of memory");
	s->group = (struct px_group){ .backend = &px_backend_perf, .sampling = true };
	s->n = n;
	s->o = *o;
	s->for_exec = t->enable_on_exec;
	s->stops = px_smpl_periods_change(pmds, n);
	s->max_frames = o->max_frames ? o->max_frames : PX_CALLGRAPH_MAX_FRAMES;
	if (o->callgraph == PX_CALLGRAPH_DWARF && !o->stack_bytes)
		s->o.stack_bytes = PX_CALLGRAPH_STACK_BYTES;
	if (!s->o.ring_pages)
		s->o.ring_pages = o->callgraph == PX_CALLGRAPH_DWARF ?
				  DWARF_RING_PAGES : DEFAULT_RING_PAGES;
	s->pmd = calloc(n, sizeof(*s->pmd));
	s->evs = malloc(n * sizeof(*evs));
	s->rec = malloc(PX_RING_MAX_RECORD);
	if (!s->pmd || !s->evs || !s->rec) {
		ret = px_fail(ENOMEM, "out of memory");
		goto out_close;
	}
	memcpy(s->evs, evs, n * sizeof(*evs));
	for (size_t i = 0; i < n; i++) {
		struct pmd_state *p = &s->pmd[i];

		p->cfg = pmds[i];
		if (n < 64)
			p->cfg.smpl_pmds &= (1ull << n) - 1;
		p->nbody = (unsigned)__builtin_popcountll(p->cfg.smpl_pmds);
		if (p->nbody)
			s->read_group = true;
		if (p->cfg.random)
			px_random_seed(&p->rnd, p->cfg.random_seed);
		if (is_sampling(p))
			p->kperiod = p->cur_period = next_period(p, true);
		p->same_as = twin_of(evs, s->pmd, i);
	}
	if ((ret = init_buffer(s)))
		goto out_close;
	/* perf maps no ring of an inherited per-task event: one per CPU */
	ncpu = t->inherit && t->cpu < 0 ? sysconf(_SC_NPROCESSORS_CONF) : 1;
	s->rings = calloc((size_t)ncpu, sizeof(*s->rings));
	if (!s->rings) {
		ret = px_fail(ENOMEM, "out of memory");
		goto out_close;
	}
	for (long c = 0; c < ncpu; c++) {
		struct ring *r = &s->rings[s->nrings++];

		r->cpu = t->inherit && t->cpu < 0 ? (int)c : t->cpu;
		r->side.fd = -1;
		ret = open_ring(s, evs, t, r);
		if (ret == -ENODEV && ncpu > 1) {	/* offline CPU */
			close_ring(s, r);
			memset(r, 0, sizeof(*r));
			s->nrings--;
			continue;
		}
		if (ret)
			goto out_close;
	}
	*out = s;
	return 0;
out_close:
	px_sampler_close(s);
	return ret;
}

/* Start or stop the samples (the group leaders).  A trigger, the
 * leader, is started for its switch_ovfls overflows: perf's event limit
 * (PERF_EVENT_IOC_REFRESH) then stops the group in the overflow that
 * ends its set's turn, as perfmon2 switches in its interrupt handler. */
static int samples_ioctl(struct px_sampler *s, bool on)
{
	uint64_t limit = s->pmd[0].cfg.switch_ovfls;
	unsigned long req = !on ? PERF_EVENT_IOC_DISABLE :
			    limit ? PERF_EVENT_IOC_REFRESH : PERF_EVENT_IOC_ENABLE;

	if (on)
		s->act_ovfls = 0;
	for (size_t r = 0; r < s->nrings; r++)
		if (ioctl(s->rings[r].fds[0], req, on && limit ? (int)limit : 0))
			return px_fail(errno, "cannot %s sampling: %s",
				       on ? "start" : "stop", strerror(errno));
	return 0;
}

static int sideband_ioctl(struct px_sampler *s, bool on)
{
	for (size_t r = 0; r < s->nrings; r++) {
		int ret = on ? px_sideband_enable(&s->rings[r].side) :
			       px_sideband_disable(&s->rings[r].side);

		if (ret)
			return ret;
	}
	return 0;
}

/* The records of mappings and tasks start now, to have every mapping of
 * the exec to come; the samples of a task before its exec are not its
 * command's: they start at the exec (enable_on_exec), or, a trigger, when
 * the tool starts its set there. */
/* The side band and the samples on (the samples armed for exec when
 * opened so). */
static int start(struct px_sampler *s)
{
	int ret = sideband_ioctl(s, true);

	return ret || s->for_exec ? ret : samples_ioctl(s, true);
}

int px_sampler_enable(struct px_sampler *s)
{
	if (s->started)
		return samples_ioctl(s, true);
	s->started = true;
	return start(s);
}

int px_sampler_disable(struct px_sampler *s)
{
	int ret = samples_ioctl(s, false);

	return ret ? ret : sideband_ioctl(s, false);
}

int px_sampler_pause(struct px_sampler *s, bool on)
{
	return samples_ioctl(s, on);
}

bool px_sampler_switch_due(const struct px_sampler *s)
{
	uint64_t limit = s->pmd[0].cfg.switch_ovfls;

	return limit && s->act_ovfls >= limit;
}

/* A trigger on this backend is the first event (the group leader, which
 * perf's event limit stops with its group), on one task or CPU: perf
 * refuses an event limit on inherited events. */
static int check_trigger(const struct px_event *evs, size_t n,
			 const struct px_smpl_pmd *pmds, const struct px_target *t)
{
	for (size_t i = 1; i < n; i++)
		if (pmds[i].switch_ovfls)
			return px_fail(EINVAL,
				       "'%s' cannot switch its set on its overflows on the perf backend: only the set's first event can (perf stops a group on its leader's overflows); list it first, or use --backend=module",
				       evs[i].name);
	/* perf starts no uprobe or tracepoint event again after its limit
	 * stopped it (kernel 6.18: it counts nothing more): the set's next
	 * turns would record nothing */
	if (pmds[0].switch_ovfls && evs[0].kind == PX_EVENT_GENERIC &&
	    evs[0].type != PERF_TYPE_HARDWARE && evs[0].type != PERF_TYPE_SOFTWARE &&
	    evs[0].type != PERF_TYPE_HW_CACHE && evs[0].type != PERF_TYPE_RAW)
		return px_fail(EINVAL,
			       "'%s' cannot switch its set on its overflows on the perf backend: perf does not restart a uprobe or tracepoint event stopped by its overflow limit; use a software or hardware event as the trigger, or --backend=module",
			       evs[0].name);
	if (pmds[0].switch_ovfls > INT_MAX)
		return px_fail(EINVAL, "a set switches after at most %d overflows on the perf backend",
			       INT_MAX);
	if (pmds[0].switch_ovfls && t->inherit)
		return px_fail(EINVAL,
			       "switching sets on overflows follows one task on the perf backend (perf limits no inherited event): drop --follow-*, or use --backend=module");
	return 0;
}

static int set_period(struct px_sampler *s, size_t pmd, uint64_t period)
{
	struct pmd_state *p = &s->pmd[pmd];

	p->cur_period = period;
	if (period == p->kperiod)
		return 0;
	p->kperiod = period;
	for (size_t r = 0; r < s->nrings; r++) {
		s->st.period_changes++;
		if (ioctl(s->rings[r].fds[pmd], PERF_EVENT_IOC_PERIOD, &period))
			return px_fail(errno, "cannot change the sampling period: %s",
				       strerror(errno));
	}
	return 0;
}

static int sampler_body(void *sampler, unsigned set, unsigned ovfl_pmd)
{
	struct px_sampler *s = sampler;

	if (set != s->o.set || ovfl_pmd >= s->n || !is_sampling(&s->pmd[ovfl_pmd]))
		return -1;
	return (int)s->pmd[ovfl_pmd].nbody;
}

/* A sample of the default or callchain format goes to the tool as it is
 * recorded: the buffer it fills holds nothing the tool has not had. */
static int hand_over_one(struct px_sampler *s, const struct px_sample *x)
{
	int ret = s->o.on_sample ? s->o.on_sample(s->o.arg, x) : 0;

	if (ret > 0 && !s->cb_ret)
		s->cb_ret = ret;
	return ret < 0 ? ret : 0;
}

static int hand_over_dbl(struct px_sampler *s, int half)
{
	int ret = px_dbl_read(s->buf, s->buf_size, half, sampler_body, s,
			      s->o.on_sample, s->o.arg);

	if (ret > 0 && !s->cb_ret)
		s->cb_ret = ret;
	return ret < 0 ? ret : 0;
}

/* The default (or callchain) format's full buffer: notify (the tool has
 * its samples; restart) or saturate.  With no_block perfmon2 masks the PMDs from the overflow that
 * filled the buffer until the tool's restart, and the task runs on: the
 * samples the kernel wrote after that one and before the restart (the
 * ring's head now) are that blind spot, dropped as they come (in_mask). */
static int dfl_full(struct px_sampler *s, size_t pmd, uint64_t tstamp)
{
	int ret;

	s->st.buffer_full++;
	if (!s->pmd[pmd].cfg.notify) {
		s->saturated = true;
		return 0;
	}
	s->st.notifications++;
	px_dfl_reset(&s->fill);
	s->st.restarts++;
	ret = set_period(s, pmd, next_period(&s->pmd[pmd], true));
	if (!ret && s->o.no_block) {
		s->mask_from = tstamp;
		for (size_t r = 0; r < s->nrings; r++)
			s->rings[r].mask_head = __atomic_load_n(&s->rings[r].samples.meta->data_head,
								__ATOMIC_ACQUIRE);
	}
	return ret;
}

/* A sample perfmon2 would not have taken: no_block's blind spot. */
static bool in_mask(const struct px_sampler *s, const struct ring *r,
		    uint64_t pos, uint64_t tstamp)
{
	return s->o.no_block && pos < r->mask_head && tstamp > s->mask_from;
}

/* Samples the double buffer cycled over are no longer recorded: they
 * move from samples to overwritten. */
static void count_overwritten(struct px_sampler *s)
{
	const struct pfm_dbl_smpl_hdr *h = (const void *)s->buf;

	s->st.samples -= h->hdr_lost - s->st.overwritten;
	s->st.overwritten = h->hdr_lost;
}

static int dbl_event(struct px_sampler *s, size_t pmd, int what)
{
	int half, ret;

	switch (what) {
	case PX_DBL_RECORDED:
		return 1;
	case PX_DBL_CYCLED:
		s->st.buffer_full++;
		count_overwritten(s);
		return 1;
	case PX_DBL_MASKED:
		break;
	}
	s->st.buffer_full++;
	if (!s->pmd[pmd].cfg.notify) {
		if (what == PX_DBL_MASKED)
			s->saturated = true;
		return 1;
	}
	half = px_dbl_next_full(s->buf);
	s->st.notifications++;
	if ((ret = hand_over_dbl(s, half)))
		return ret;
	ret = px_dbl_restart(s->buf);
	s->st.restarts++;
	if (ret == 1) {		/* a saturation ended: long reset */
		if ((ret = set_period(s, pmd, next_period(&s->pmd[pmd], true))))
			return ret;
		return 1;
	}
	return 1;		/* recording goes on: short reset */
}

static int record(struct px_sampler *s, size_t pmd, const struct px_sample *x)
{
	struct pmd_state *p = &s->pmd[pmd];
	int r, ret;

	if (s->saturated) {
		s->st.dropped++;
		return 0;
	}
	if (s->o.format != PX_SMPL_DOUBLE_BUFFER) {
		size_t offs;

		r = px_dfl_take(&s->fill, s->o.format == PX_SMPL_CALLCHAIN ?
				px_cc_sample_size(cc_flags(s), x) :
				px_dfl_sample_size(0, x->nvalues),
				s->max_sample, &offs);
		if (r < 0) {
			s->st.dropped++;
			return 0;
		}
		s->st.samples++;
		if ((ret = hand_over_one(s, x)))
			return ret;
		if (r == 1)
			return dfl_full(s, pmd, x->tstamp);
	} else {
		r = px_dbl_append(s->buf, s->max_sample, x);
		if (r < 0) {
			s->st.dropped++;
			return 0;
		}
		s->st.samples++;
		ret = dbl_event(s, pmd, r);
		if (ret <= 0)
			return ret;
	}
	/* recorded without notification: the short period.  The long one
	 * a restart set was this sample's (the restart's caller returned
	 * above), so it is used for one sample only, as in the module. */
	if (p->cfg.random || p->cur_period != short_period(p))
		return set_period(s, pmd, next_period(p, false));
	return 0;
}

static int find_pmd(const struct ring *r, size_t n, uint64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (r->ids[i] == id)
			return (int)i;
	return -1;
}

/* perf's callchain (u[k]: nr, then the addresses with context markers)
 * into x's frames, kernel ones then user ones; and with DWARF the user
 * registers and stack copy that follow.  Returns the words used, or 0 for a
 * malformed sample. */
static size_t decode_callchain(struct px_sampler *s, const uint64_t *u, size_t nu,
			       size_t k, struct px_sample *x)
{
	uint64_t nr, ctx, *f = s->frames;
	size_t nk = 0, nuser = 0;
	bool user_end = false;

	if (k >= nu || u[k] > nu - k - 1)
		return 0;
	nr = u[k++];
	/* two passes keep the kernel frames first whatever the order */
	for (int pass = 0; pass < 2; pass++) {
		ctx = PERF_CONTEXT_KERNEL;
		for (uint64_t j = 0; j < nr; j++) {
			uint64_t ip = u[k + j];

			if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
				ctx = ip;
				continue;
			}
			if ((ctx == PERF_CONTEXT_USER) != (pass == 1) ||
			    nk + nuser >= PFM_CC_MAX_FRAMES || user_end)
				continue;
			/* A return address of 0 is no call: the kernel's walk
			 * followed frame pointers of code built without them
			 * (the dynamic loader, libc) into a frame that points
			 * at itself, and stored 0 to its depth limit.  The
			 * user part ends there, cut, as the module's walker
			 * (formats/callchain) ends it. */
			if (pass && nuser && !ip) {
				user_end = true;
				x->cc_flags |= PFM_CC_USER_CUT;
				continue;
			}
			f[nk + nuser] = ip;
			if (pass)
				nuser++;
			else
				nk++;
		}
	}
	x->frames = f;
	x->nr_kernel = (unsigned)nk;
	x->nr_user = (unsigned)nuser;
	if (nk + nuser >= s->max_frames)
		x->cc_flags |= PFM_CC_TRUNCATED;
	return (size_t)nr + 1;
}

/* Perf's user registers (USER_REGS_MASK order) in DWARF numbering. */
static const uint8_t dwarf_from_perf[PFM_CC_NREGS] = {
	0 /* rax: AX */, 3 /* rdx: DX */, 2 /* rcx: CX */, 1 /* rbx: BX */,
	4 /* rsi */, 5 /* rdi */, 6 /* rbp */, 7 /* rsp */,
	9, 10, 11, 12, 13, 14, 15, 16 /* r8-r15 */, 8 /* rip: IP */,
};

/* The user registers and stack of a DWARF sample; words used or 0. */
static size_t decode_user_stack(struct px_sampler *s, const uint64_t *u, size_t nu,
				size_t k, struct px_sample *x)
{
	size_t start = k;
	uint64_t abi, size, dyn;

	if (k >= nu)
		return 0;
	abi = u[k++];
	if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
		if (nu - k < PFM_CC_NREGS)
			return 0;
		for (size_t i = 0; i < PFM_CC_NREGS; i++)
			s->regs[i] = u[k + dwarf_from_perf[i]];
		k += PFM_CC_NREGS;
	}
	if (k >= nu)
		return 0;
	size = u[k++];
	if (!size)
		return k - start;	/* no user context (a kernel thread) */
	if (size % 8 || size / 8 >= nu - k)
		return 0;
	dyn = u[k + size / 8];
	if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
		x->regs = s->regs;
		x->stack = &u[k];
		x->stack_size = (uint32_t)(dyn < size ? dyn : size);
	}
	return k + size / 8 + 1 - start;
}

/* The chain parts of a sample after its read values (u[k]); non-zero for
 * a malformed one, which is then not recorded. */
static int decode_chain(struct px_sampler *s, const uint64_t *u, size_t nu,
			size_t k, struct px_sample *x)
{
	size_t used = decode_callchain(s, u, nu, k, x);

	if (!used)
		return -1;
	if (s->o.callgraph == PX_CALLGRAPH_DWARF &&
	    !decode_user_stack(s, u, nu, k + used, x))
		return -1;
	return 0;
}

static int decode_sample(struct px_sampler *s, const struct ring *r,
			 uint64_t pos, const unsigned char *p, size_t size)
{
	const uint64_t *u = (const uint64_t *)(p + sizeof(struct perf_event_header));
	size_t nu = (size - sizeof(struct perf_event_header)) / 8, k = 0;
	struct px_sample x;
	uint64_t vals[PX_SMPL_MAX_PMDS] = { 0 };
	int pmd;

	if (nu < 5)
		return 0;
	memset(&x, 0, sizeof(x));
	pmd = find_pmd(r, s->n, u[k++]);
	if (pmd < 0 || !is_sampling(&s->pmd[pmd]))
		return 0;
	s->st.overflows++;
	x.ip = u[k++];
	x.pid = (uint32_t)u[k];
	x.tid = (uint32_t)(u[k++] >> 32);
	x.tstamp = u[k++];
	x.cpu = (uint16_t)u[k++];
	if (in_mask(s, r, pos, x.tstamp)) {
		s->st.dropped++;
		return 0;
	}
	x.last_reset_val = -s->pmd[pmd].cur_period;
	x.ovfl_pmd = (uint16_t)pmd;
	x.set = s->o.set;
	if (pmd == 0)
		s->act_ovfls++;
	s->pmd[pmd].reloaded = true;
	if (s->read_group) {
		uint64_t nr;

		if (nu - k < 3)	/* nr, time enabled and running */
			return 0;
		nr = u[k];
		k += 3;
		if (nr > s->n || 2 * nr > nu - k)
			return 0;
		for (uint64_t j = 0; j < nr; j++, k += 2) {
			int m = find_pmd(r, s->n, u[k + 1]);

			if (m >= 0)
				vals[m] = s->pmd[m].base + u[k];
		}
		for (size_t i = 0; i < s->n; i++)
			if (s->pmd[i].same_as >= 0)
				vals[i] = vals[s->pmd[i].same_as];
		for (size_t i = 0; i < s->n; i++)
			if (s->pmd[pmd].cfg.smpl_pmds >> i & 1)
				x.values[x.nvalues++] = vals[i];
	}
	if (s->o.callgraph != PX_CALLGRAPH_NONE &&
	    decode_chain(s, u, nu, k, &x))
		return 0;
	return record(s, (size_t)pmd, &x);
}

/* A record of a samples' ring. */
struct ring_ctx {
	struct px_sampler *s;
	const struct ring *r;
};

static int decode(void *arg, uint64_t pos, const unsigned char *p, size_t size)
{
	struct perf_event_header h;	/* copied: p need not be aligned */
	struct px_sampler *s = ((struct ring_ctx *)arg)->s;
	const struct ring *r = ((struct ring_ctx *)arg)->r;

	memcpy(&h, p, sizeof(h));
	switch (h.type) {
	case PERF_RECORD_SAMPLE:
		return decode_sample(s, r, pos, p, size);
	case PERF_RECORD_LOST:
		if (size >= sizeof(h) + 16) {
			uint64_t lost;

			memcpy(&lost, p + sizeof(h) + 8, 8);
			/* the samples' ring has nothing else to lose */
			s->st.lost += lost;
			s->st.overflows += lost;
		}
		return 0;
	case PERF_RECORD_THROTTLE:
		s->st.throttled++;
		return 0;
	}
	return 0;
}

static int drain_ring(struct px_sampler *s, struct ring *r)
{
	struct ring_ctx ctx = { s, r };

	return px_ring_drain(&r->samples, s->rec, decode, &ctx);
}

/* Add ring r's group read to the counts of the PMDs' events: the counts
 * add up over the rings (the CPUs of inherited events), and so does the
 * time each ran; every ring's event was enabled the whole time. */
static int read_ring(const struct px_sampler *s, const struct ring *r,
		     struct px_count *c)
{
	uint64_t buf[3 + 2 * PX_SMPL_MAX_PMDS];
	ssize_t got = read(r->fds[0], buf, sizeof(buf));

	if (got < (ssize_t)(3 * sizeof(uint64_t)) || buf[0] > s->n ||
	    (size_t)got < (3 + 2 * buf[0]) * sizeof(uint64_t))
		return px_fail(got < 0 ? errno : EIO, "cannot read the sampled counters: %s",
			       got < 0 ? strerror(errno) : "short read");
	for (uint64_t j = 0; j < buf[0]; j++) {
		int m = find_pmd(r, s->n, buf[4 + 2 * j]);

		if (m < 0)
			continue;
		c[m].value += buf[3 + 2 * j];
		if (buf[1] > c[m].enabled)
			c[m].enabled = buf[1];
		c[m].running += buf[2];
	}
	return 0;
}

int px_sampler_read(struct px_sampler *s, struct px_count *c)
{
	memset(c, 0, s->n * sizeof(*c));
	for (size_t r = 0; r < s->nrings; r++) {
		int ret = read_ring(s, &s->rings[r], c);

		if (ret)
			return ret;
	}
	for (size_t i = 0; i < s->n; i++) {
		c[i].value += s->pmd[i].base;
		if (s->pmd[i].same_as >= 0)
			c[i] = c[s->pmd[i].same_as];
	}
	return 0;
}

/* The counts of the PMDs' events (the one ring of a stopping sampler),
 * earlier programs' included. */
static int read_totals(struct px_sampler *s, uint64_t *total)
{
	struct px_count c[PX_SMPL_MAX_PMDS];
	int ret = px_sampler_read(s, c);

	for (size_t i = 0; !ret && i < s->n; i++)
		total[i] = c[i].value;
	return ret;
}

/* A stopping sampler is drained with its task stopped just after an
 * overflow, whose PMD's new period begins there. */
static int note_reloads(struct px_sampler *s)
{
	uint64_t total[PX_SMPL_MAX_PMDS];
	bool any = false;
	int ret;

	for (size_t i = 0; i < s->n; i++)
		any |= s->pmd[i].reloaded;
	if (!any)
		return 0;
	if ((ret = read_totals(s, total)))
		return ret;
	for (size_t i = 0; i < s->n; i++)
		if (s->pmd[i].reloaded) {
			s->pmd[i].at_reload = total[i];
			s->pmd[i].reloaded = false;
		}
	return 0;
}

int px_sampler_drain(struct px_sampler *s)
{
	int ret;

	for (size_t r = 0; r < s->nrings; r++)
		if ((ret = px_sideband_drain(&s->rings[r].side, s->rec, &s->records, &s->o)) ||
		    (ret = drain_ring(s, &s->rings[r])))
			return ret;
	if (s->stops && (ret = note_reloads(s)))
		return ret;
	return s->cb_ret;
}

int px_sampler_exec(struct px_sampler *s, pid_t pid)
{
	struct px_target t = { .pid = pid, .cpu = -1 };
	uint64_t total[PX_SMPL_MAX_PMDS];
	int ret;

	if (!s->stops || s->nrings != 1)
		return 0;
	if ((ret = px_sampler_drain(s)) < 0 || (ret = read_totals(s, total)))
		return ret;
	for (size_t i = 0; i < s->n; i++) {
		struct pmd_state *p = &s->pmd[i];
		uint64_t done = total[i] - p->at_reload;

		if (is_sampling(p))
			p->kperiod = done < p->cur_period ? p->cur_period - done
							   : p->cur_period;
		p->base = total[i];
	}
	close_ring(s, &s->rings[0]);
	memset(&s->rings[0], 0, sizeof(s->rings[0]));
	s->rings[0].cpu = -1;
	s->rings[0].side.fd = -1;
	if ((ret = open_ring(s, s->evs, &t, &s->rings[0])))
		return ret;
	return start(s);
}

size_t px_sampler_pollfds(const struct px_sampler *s, struct pollfd *fds, size_t max)
{
	for (size_t r = 0; r < s->nrings; r++) {
		if (2 * r < max)
			fds[2 * r] = (struct pollfd){ .fd = s->rings[r].fds[0],
						      .events = POLLIN };
		if (2 * r + 1 < max)
			fds[2 * r + 1] = (struct pollfd){ .fd = s->rings[r].side.fd,
							  .events = POLLIN };
	}
	return 2 * s->nrings;
}

int px_sampler_poll(struct px_sampler *s, int timeout_ms)
{
	struct pollfd pfd[s->nrings ? 2 * s->nrings : 1];

	px_sampler_pollfds(s, pfd, 2 * s->nrings);
	if (poll(pfd, 2 * s->nrings, timeout_ms) < 0 && errno != EINTR)
		return px_fail(errno, "cannot wait for samples: %s", strerror(errno));
	return px_sampler_drain(s);
}

int px_sampler_finish(struct px_sampler *s)
{
	int ret = px_sampler_disable(s);

	if (!ret)
		ret = px_sampler_drain(s);
	if (ret < 0)
		return ret;
	if (s->o.format == PX_SMPL_DOUBLE_BUFFER) {
		count_overwritten(s);
		ret = hand_over_dbl(s, -1);
	}
	return ret ? ret : s->cb_ret;
}

void px_sampler_close(struct px_sampler *s)
{
	if (!s)
		return;
	for (size_t r = 0; r < s->nrings; r++)
		close_ring(s, &s->rings[r]);
	free(s->rings);
	free(s->pmd);
	free(s->evs);
	free(s->buf);
	free(s->rec);
	px_records_free(&s->records);
	free(s);
}

void px_sampler_stats(const struct px_sampler *s, struct px_smpl_stats *st)
{
	*st = s->st;
	st->side_lost = s->records.lost;
}

size_t px_sampler_mappings(const struct px_sampler *s,
			   const struct px_mapping **m)
{
	*m = s->records.maps;
	return s->records.nmaps;
}

size_t px_sampler_tasks(const struct px_sampler *s,
			const struct px_task_event **t)
{
	*t = s->records.tasks;
	return s->records.ntasks;
}

struct px_group *px_sampler_group(struct px_sampler *s)
{
	return &s->group;
}

/* The group is the sampler's first member (const only for the callers
 * that read through it). */
struct px_sampler *px_group_sampler(const struct px_group *g)
{
	return (struct px_sampler *)g;
}
