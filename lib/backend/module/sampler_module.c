/* Sampling through the perfmon kernel module (kernel/perfmon.ko): a
 * context created with the default, double-buffer or callchain format,
 * its buffer mapped read-only, the samples the kernel records handed to
 * the tool as the perf sampler (lib/backend/perf/sampler_perf.c) hands
 * its own, so both give the same records.
 *
 * How pfmon's sampling maps onto the module (kernel/README.md):
 *  - one context per target (the command's thread, or a CPU), every event
 *    a PMD; sampling PMDs start at -long_period and reload -short_period
 *    in the kernel after each sample, -long_period at a restart;
 *  - notification (default): PFM_FL_NOTIFY_BLOCK, so the command waits
 *    while the tool takes a full buffer and restarts: nothing is lost;
 *    no_block leaves it running (its overflows while masked are lost);
 *    saturation: no OVFL_NOTIFY, the buffer keeps its first samples;
 *  - the buffer holds exactly `entries` samples of the session's size:
 *    the module's post-check keeps room for its largest sample (every PMD
 *    in the body, and with call chains max_frames frames), so the buffer
 *    is sized for that on top;
 *  - call chains (the callchain format, perfmon_cc.ko): the kernel walks
 *    the kernel stack and the user stack's frame pointers in the
 *    overflow handler (--call-graph=fp, max_frames frames); it copies no
 *    user stack, so --call-graph=dwarf is refused: the perf backend
 *    does it;
 *  - randomisation is the kernel's, from a seed advanced once: the first
 *    period (PMD value) is drawn here, as the perf sampler draws it;
 *  - the module records no mappings or exec names (the spec leaves the
 *    correlation of samples with processes to the tool, section 6.3.2):
 *    per task, the caller reads the mappings of each process at its exit
 *    (lib/session/smpl_session.c); per CPU, each context has a side band beside
 *    it (lib/backend/perfev/sideband.h: the kernel's mmap, exec, fork and exit records of
 *    every task on that CPU, through a perf dummy event), so the
 *    processes that start and end during the session resolve too;
 *  - event sets: one context holds every set, and the kernel
 *    switches them.  Set s is created with PFM_SETFL_OVFL_SWITCH when one
 *    of its sampling PMDs has switch_ovfls (that PMD's
 *    reg_ovfl_switch_cnt: the set is switched out after that many of its
 *    overflows in one activation, before the target runs on, so exactly
 *    that many samples are recorded per activation unless the buffer
 *    masks first: the switch then waits for the restart), otherwise with
 *    PFM_SETFL_TIME_SWITCH every switch_ns of the target's time.  PMDs
 *    are numbered from 0 in each set (PMD i of set s = sets[s].evs[i]),
 *    smpl_pmds name PMDs of their own set, and each sample carries the
 *    set the kernel recorded it in; the buffer is sized for the largest
 *    sample of any set.  read(), activations() and set_runs() give every
 *    set's events, one set after the other, as the counting backend
 *    (the same functions: lib/backend/module/sampler_module.h).  With
 *    one set no set is created: set 0
 *    does not switch, switch_ovfls is ignored (there is no other set to
 *    switch to) and so is o->set (samples carry the kernel's set 0). */
#include "sampler_module.h"
#include "error.h"
#include "perfmon.h"
#include "random.h"
#include "sideband.h"
#include "callchain/px_cc.h"
#include "double-buffer/px_dbl.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define DEFAULT_ENTRIES 4096

_Static_assert(PX_MODULE_MAX_SAMPLE ==
	       sizeof(struct pfm_dfl_smpl_entry) + 8 * PFM_NUM_COUNTERS,
	       "the module's largest sample");
_Static_assert(PX_MODULE_CC_MAX_SAMPLE(1) ==
	       sizeof(struct pfm_cc_smpl_entry) + 8 * PFM_NUM_COUNTERS + 8,
	       "the module's largest callchain sample");

uint64_t px_module_smpl_buf_size(enum px_smpl_format f, size_t entries,
				 unsigned nbody, unsigned max_frames)
{
	/* entries - 1 samples leave room for the largest one; the last
	 * leaves less, and the post-check finds the buffer full */
	uint64_t n = entries ? entries - 1 : 0, half;

	if (f == PX_SMPL_CALLCHAIN)
		return sizeof(struct pfm_dfl_smpl_hdr) +
		       n * px_cc_max_sample_size(PX_MODULE_CC_FLAGS, nbody,
						 max_frames, 0) +
		       PX_MODULE_CC_MAX_SAMPLE(max_frames);
	half = n * px_dfl_max_sample_size(0, nbody) + PX_MODULE_MAX_SAMPLE;
	if (f == PX_SMPL_DOUBLE_BUFFER)
		return sizeof(struct pfm_dbl_smpl_hdr) + 2 * half;
	return sizeof(struct pfm_dfl_smpl_hdr) + half;
}

/* One event set's events and their sampling settings. */
struct smpl_set {
	const struct px_event *evs;
	size_t n;
	const struct px_smpl_pmd *pmds;
};

/* A sampling group of the module backend. */
struct msampler {
	struct px_group group;	/* first: what the library sees */
	int fd;
	uint32_t arg_size_max;	/* bytes of one vector command */
	size_t n;		/* the events of every set, set after set */
	size_t nsets;
	size_t *first;		/* [nsets + 1]: set s's events are
				 * first[s] .. first[s + 1] - 1 */
	struct px_smpl_pmd *pmd;	/* [n] */
	unsigned *nbody;	/* [n] values in the body of its samples */
	struct px_module_pmd *reg;	/* [n] its set and PMD */
	struct px_smpl_opts o;
	bool dbl;
	bool cc;		/* the callchain format */
	unsigned max_frames;	/* cc: frames per chain */
	unsigned char *buf;	/* the kernel's buffer, read-only */
	size_t map;
	unsigned char *copy;	/* double-buffer: a half taken from it */
	uint64_t read_seq;	/* double-buffer: halves handed over so far */
	bool consumed;		/* default: handed over, the restart came
				 * after the end */
	bool ended;
	bool side_on;		/* the side band was enabled */
	bool running;		/* started, not stopped since */
	struct px_smpl_stats st;
	int cb_ret;
	struct px_sideband side;	/* per CPU: mappings and tasks */
	struct px_records records;
	unsigned char *rec;		/* one side-band record, unwrapped */
};

/* The body size of the samples of PMD ovfl_pmd of set, or -1 when that
 * is not a sampling PMD of the session. */
static int m_body(void *arg, unsigned set, unsigned ovfl_pmd)
{
	struct msampler *s = arg;
	size_t i;

	if (set >= s->nsets || ovfl_pmd >= s->first[set + 1] - s->first[set])
		return -1;
	i = s->first[set] + ovfl_pmd;
	if (!s->pmd[i].long_period)
		return -1;
	return (int)s->nbody[i];
}

/* every sample handed over passes here: count it, then the tool's */
static int m_sample(void *arg, const struct px_sample *x)
{
	struct msampler *s = arg;

	s->st.samples++;
	return s->o.on_sample ? s->o.on_sample(s->o.arg, x) : 0;
}

/* Whether set has a trigger: it switches on overflows, not on time. */
static bool m_set_triggers(const struct smpl_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->pmds[i].long_period && set->pmds[i].switch_ovfls)
			return true;
	return false;
}

static int m_validate(const struct smpl_set *sets, size_t nsets,
		      const struct px_target *t, const struct px_smpl_opts *o,
		      uint64_t switch_ns)
{
	bool timed = false;
	int ret;

	if (o->format == PX_SMPL_CALLCHAIN && o->callgraph == PX_CALLGRAPH_DWARF)
		return px_fail(EOPNOTSUPP,
			       "--call-graph=dwarf needs the perf backend (pfmon's default for sampling: drop --backend=module): the perfmon module copies no user stack, it records frame-pointer chains only (--call-graph=fp)");
	if (t->inherit && t->pid >= 0)
		return px_fail(EOPNOTSUPP,
			       "the perfmon module does not sample the children of a command (its inherited counters only count): drop --follow-*, or use --backend=perf");
	if (!nsets)
		return px_fail(EINVAL, "sampling needs at least one event set");
	if ((ret = px_module_check_sets(nsets)))
		return ret;
	for (size_t s = 0; s < nsets; s++) {
		if ((ret = px_smpl_check(sets[s].evs, sets[s].n, sets[s].pmds, o)))
			return ret;
		timed |= !m_set_triggers(&sets[s]);
	}
	return nsets > 1 && timed ? px_module_check_timeout(switch_ns) : 0;
}

static int m_create(struct msampler *s, const struct px_target *t,
		    uint64_t buf_size)
{
	struct pfm_dfl_smpl_arg arg = { .buf_size = buf_size };
	struct pfm_cc_smpl_arg cc_arg = {
		.buf_size = buf_size,
		.buf_flags = PX_MODULE_CC_FLAGS,
		.max_frames = (uint16_t)s->max_frames,
	};
	const char *name = s->dbl ? PFM_DBL_SMPL_NAME :
			   s->cc ? PFM_CC_SMPL_NAME : PFM_DFL_SMPL_NAME;
	struct pfarg_ctx c;

	if (s->dbl && s->o.mask_when_full)
		arg.buf_flags = PFM_DBL_SMPL_MASK_WHEN_FULL;
	memset(&c, 0, sizeof(c));
	c.ctx_flags = PFM_FL_SMPL_FMT;
	if (t->pid < 0)
		c.ctx_flags |= PFM_FL_SYSTEM_WIDE;
	else if (!s->o.no_block)
		c.ctx_flags |= PFM_FL_NOTIFY_BLOCK;
	c.ctx_smpl_name = (uintptr_t)name;
	if (s->cc) {
		c.ctx_smpl_arg = (uintptr_t)&cc_arg;
		c.ctx_smpl_arg_size = sizeof(cc_arg);
	} else {
		c.ctx_smpl_arg = (uintptr_t)&arg;
		c.ctx_smpl_arg_size = sizeof(arg);
	}
	if (ioctl(s->fd, PFM_CREATE_CONTEXT, &c)) {
		if (errno == ENOMEM)
			return px_fail(ENOMEM,
				       "the perfmon module refused a %llu-byte sampling buffer: over its limit for all buffers (smpl_buf_size_max in /sys/module/perfmon/parameters/); lower --smpl-entries",
				       (unsigned long long)buf_size);
		if (errno == EPERM)
			return px_fail(EPERM,
				       "no permission to create a %s perfmon context (module parameters sys_gid, thread_gid; system-wide needs CAP_PERFMON)",
				       t->pid < 0 ? "system-wide" : "per-thread");
		if (errno == EINVAL && s->cc)
			return px_fail(EINVAL,
				       "the perfmon module refused the 'callchain' sampling format: is perfmon_cc.ko loaded (formats/callchain/kernel, kernel/README.md)?");
		return px_fail(errno, "the perfmon module refused the '%s' sampling format: %s",
			       name, strerror(errno));
	}
	s->map = c.ctx_smpl_buf_size;
	s->buf = mmap(NULL, s->map, PROT_READ, MAP_SHARED, s->fd, 0);
	if (s->buf == MAP_FAILED) {
		s->buf = NULL;
		return px_fail(errno, "cannot map the perfmon sampling buffer: %s",
			       strerror(errno));
	}
	if (s->dbl && !(s->copy = malloc(s->map)))
		return px_fail(ENOMEM, "out of memory");
	return 0;
}

/* The PMD of event i: its first value, reset values, sampling fields
 * and overflow count before its set switches. */
static int m_write_pmd(struct msampler *s, size_t i)
{
	const struct px_smpl_pmd *p = &s->pmd[i];
	uint64_t sp = p->short_period ? p->short_period : p->long_period;
	struct pfarg_pmd d;
	struct pfarg_vec v;

	memset(&d, 0, sizeof(d));
	d.reg_num = (uint16_t)s->reg[i].ctr;
	d.reg_set = s->reg[i].set;
	if (p->long_period) {
		d.reg_flags = PFM_PMDFL_SMPL | (p->notify ? PFM_PMDFL_OVFL_NOTIFY : 0);
		d.reg_value = -p->long_period;
		d.reg_long_reset = -p->long_period;
		d.reg_short_reset = -sp;
		d.reg_smpl_pmds[0] = p->smpl_pmds;
	}
	if (p->long_period && p->switch_ovfls) {
		d.reg_flags |= PFM_PMDFL_SWITCH;
		d.reg_ovfl_switch_cnt = p->switch_ovfls;
	}
	if (p->long_period && p->random) {
		struct px_random r;

		/* the first period is drawn here, as the perf sampler does;
		 * the kernel goes on from the generator's next state */
		px_random_seed(&r, p->random_seed);
		d.reg_value = px_random_reset_value(&r, -p->long_period,
						    p->random_mask);
		d.reg_flags |= PFM_PMDFL_RANDOM;
		d.reg_random_mask = p->random_mask;
		d.reg_random_seed = r.state;
	}
	memset(&v, 0, sizeof(v));
	v.vec_addr = (uintptr_t)&d;
	v.vec_size = sizeof(d);
	v.vec_elem_size = sizeof(d);
	if (ioctl(s->fd, PFM_WRITE_PMDS, &v)) {
		if (s->nsets > 1)
			return px_fail(errno, "the perfmon module refused the sampling settings of PMD %d of set %u: %s",
				       s->reg[i].ctr, s->reg[i].set, strerror(errno));
		return px_fail(errno, "the perfmon module refused the sampling settings of PMD %d: %s",
			       s->reg[i].ctr, strerror(errno));
	}
	return 0;
}

static struct msampler *msampler(const struct px_group *g)
{
	return (struct msampler *)g;
}

static void m_close(struct msampler *s)
{
	if (!s)
		return;
	if (s->buf)
		munmap(s->buf, s->map);
	if (s->fd >= 0)
		close(s->fd);
	px_sideband_close(&s->side);
	px_records_free(&s->records);
	free(s->rec);
	free(s->copy);
	free(s->first);
	free(s->pmd);
	free(s->nbody);
	free(s->reg);
	free(s);
}

/* The sampler's copy of the sets' settings, nothing opened yet. */
static int m_alloc(const struct smpl_set *sets, size_t nsets,
		   const struct px_smpl_opts *o, struct msampler **out)
{
	struct msampler *s = calloc(1, sizeof(*s));
	size_t idx = 0;

	*out = s;
	if (!s)
		return px_fail(ENOMEM, "out of memory");
	s->group = (struct px_group){ .backend = &px_backend_module, .sampling = true };
	s->fd = -1;
	s->side.fd = -1;
	s->nsets = nsets;
	for (size_t k = 0; k < nsets; k++)
		s->n += sets[k].n;
	s->o = *o;
	s->dbl = o->format == PX_SMPL_DOUBLE_BUFFER;
	s->cc = o->format == PX_SMPL_CALLCHAIN;
	s->max_frames = o->max_frames ? o->max_frames : PX_CALLGRAPH_MAX_FRAMES;
	s->first = calloc(nsets + 1, sizeof(*s->first));
	s->pmd = calloc(s->n, sizeof(*s->pmd));
	s->nbody = calloc(s->n, sizeof(*s->nbody));
	s->reg = calloc(s->n, sizeof(*s->reg));
	if (!s->first || !s->pmd || !s->nbody || !s->reg)
		return px_fail(ENOMEM, "out of memory");
	for (size_t k = 0; k < nsets; k++) {
		size_t n = sets[k].n;

		s->first[k] = idx;
		for (size_t i = 0; i < n; i++, idx++) {
			struct px_smpl_pmd *p = &s->pmd[idx];

			*p = sets[k].pmds[i];
			if (nsets == 1)
				p->switch_ovfls = 0;	/* no other set */
			if (n < 64)
				p->smpl_pmds &= (1ull << n) - 1;
			s->nbody[idx] = (unsigned)__builtin_popcountll(p->smpl_pmds);
			s->reg[idx].ctr = (int)i;
			s->reg[idx].set = (uint16_t)k;
			s->reg[idx].event_count = p->long_period != 0;
		}
	}
	s->first[nsets] = idx;
	return 0;
}

/* Create the sets (with more than one) and program their PMCs and PMDs. */
static int m_program(struct msampler *s, const struct smpl_set *sets,
		     uint64_t switch_ns)
{
	int ret;

	for (size_t k = 0; k < s->nsets; k++) {
		if (s->nsets > 1) {
			bool ovfl = m_set_triggers(&sets[k]);

			ret = px_module_create_set(s->fd, (unsigned)k,
						   ovfl ? PFM_SETFL_OVFL_SWITCH :
							  PFM_SETFL_TIME_SWITCH,
						   switch_ns);
			if (ret)
				return ret;
		}
		for (size_t i = 0; i < sets[k].n; i++) {
			size_t idx = s->first[k] + i;
			struct px_event ev = sets[k].evs[i];

			if ((ret = px_module_program(s->fd, s->reg[idx].set,
						     (unsigned)s->reg[idx].ctr, &ev)) ||
			    (ret = m_write_pmd(s, idx)))
				return ret;
		}
	}
	return 0;
}

static int m_open_sets(const struct smpl_set *sets, size_t nsets,
		       const struct px_target *t, const struct px_smpl_opts *o,
		       uint64_t switch_ns, struct msampler **out)
{
	size_t entries = o->entries ? o->entries : DEFAULT_ENTRIES;
	unsigned most = 0;
	uint64_t buf_size;
	struct msampler *s;
	int ret;

	*out = NULL;
	if ((ret = m_validate(sets, nsets, t, o, switch_ns)))
		return ret;
	if ((ret = m_alloc(sets, nsets, o, &s)))
		goto out_close;
	/* room for the largest sample of any set */
	for (size_t i = 0; i < s->n; i++)
		if (s->pmd[i].long_period && s->nbody[i] > most)
			most = s->nbody[i];
	buf_size = px_module_smpl_buf_size(o->format, entries, most,
					   s->max_frames);
	if ((ret = px_module_open_device(&s->fd, &s->arg_size_max)) ||
	    (ret = m_create(s, t, buf_size)) ||
	    (ret = m_program(s, sets, switch_ns)) ||
	    (ret = px_module_load(s->fd, t)))
		goto out_close;
	/* per CPU: every task's mappings and names from a side band */
	if (t->pid < 0) {
		s->rec = malloc(PX_RING_MAX_RECORD);
		ret = s->rec ? px_sideband_open(&s->side, t, t->cpu, false, s->o.on_map != NULL) :
			       px_fail(ENOMEM, "out of memory");
		if (ret)
			goto out_close;
	}
	if (fcntl(s->fd, F_SETFL, O_NONBLOCK)) {
		ret = px_fail(errno, "cannot set up the perfmon context: %s", strerror(errno));
		goto out_close;
	}
	*out = s;
	return 0;
out_close:
	m_close(s);
	return ret;
}

int px_msmpl_open(const struct px_event_set *sets, size_t nsets,
		  const struct px_target *t, const struct px_group_opts *o,
		  struct px_group **out)
{
	struct smpl_set ss[nsets ? nsets : 1];
	struct msampler *s = NULL;
	int ret;

	for (size_t k = 0; k < nsets; k++)
		ss[k] = (struct smpl_set){ sets[k].events, sets[k].n, o->pmds[k] };
	ret = m_open_sets(ss, nsets, t, &o->smpl, o->switch_ns, &s);
	*out = s ? &s->group : NULL;
	return ret;
}

static int m_start(struct msampler *s, uint32_t flags)
{
	struct pfarg_start st;

	memset(&st, 0, sizeof(st));
	st.start_flags = flags;
	return ioctl(s->fd, PFM_START, &st) ? -errno : 0;
}

int px_msmpl_enable(struct px_group *g)
{
	struct msampler *s = msampler(g);
	int ret;

	if (s->running)
		return 0;
	if (!s->side_on && (ret = px_sideband_enable(&s->side)))
		return ret;
	s->side_on = true;
	ret = m_start(s, 0);
	if (ret)
		return px_fail(-ret, "cannot start sampling: %s", strerror(-ret));
	s->running = true;
	return 0;
}

static int m_stop(struct msampler *s)
{
	struct pfarg_flags f;

	memset(&f, 0, sizeof(f));
	/* a context whose command ended is unloaded already: nothing to stop */
	if (ioctl(s->fd, PFM_STOP, &f) && errno != EBUSY)
		return px_fail(errno, "cannot stop sampling: %s", strerror(errno));
	return 0;
}

int px_msmpl_disable(struct px_group *g)
{
	struct msampler *s = msampler(g);
	int ret = m_stop(s);

	if (!ret)
		s->running = false;
	return ret;
}

/* PFM_RESTART after a handed-over buffer.  EBUSY: the context unloaded
 * itself at the command's end (what was read stays in the buffer). */
static int m_restart(struct msampler *s)
{
	int ret = m_start(s, PFM_STARTFL_RESTART);

	if (ret == -EBUSY)
		return 1;
	if (ret)
		return px_fail(-ret, "cannot restart sampling: %s", strerror(-ret));
	s->st.restarts++;
	return 0;
}

static int m_keep_cb(struct msampler *s, int ret)
{
	if (ret > 0 && !s->cb_ret)
		s->cb_ret = ret;
	return ret < 0 ? ret : 0;
}

/* A half of the double buffer, from a copy of the header and that half:
 * the kernel goes on writing the other half meanwhile. */
static int m_hand_over_half(struct msampler *s, int i)
{
	struct pfm_dbl_smpl_hdr h;
	uint64_t start;
	unsigned cur;

	memcpy(&h, s->buf, sizeof(h));
	if (h.hdr_half_size > s->map || i < 0 || i > 1)
		return px_fail(EPROTO, "the module's double buffer has a bad header");
	start = sizeof(h) + (uint64_t)i * h.hdr_half_size;
	cur = (unsigned)i ^ 1;
	/* the half being recorded is not read: show it empty */
	h.hdr_half[cur].half_count = 0;
	h.hdr_half[cur].half_cur_offs = sizeof(h) + cur * h.hdr_half_size;
	h.hdr_cur_half = cur;
	memcpy(s->copy, &h, sizeof(h));
	if (start + h.hdr_half_size > s->map)
		return px_fail(EPROTO, "the module's double buffer has a bad header");
	memcpy(s->copy + start, s->buf + start, h.hdr_half_size);
	s->read_seq = h.hdr_half[i].half_seq;
	return m_keep_cb(s, px_dbl_read(s->copy, s->map, i, m_body, s,
					  m_sample, s));
}

/* The FULL half of the double buffer not handed over yet with the lowest
 * sequence number, or -1.  A half handed over stays FULL when its restart
 * found the context unloaded (the command had ended): it is not read
 * again at the next notification. */
static int m_next_unread_half(const struct msampler *s)
{
	const struct pfm_dbl_smpl_hdr *h = (const void *)s->buf;
	int best = -1;

	for (int i = 0; i < 2; i++)
		if (h->hdr_half[i].half_state == PFM_DBL_HALF_FULL &&
		    h->hdr_half[i].half_seq > s->read_seq &&
		    (best < 0 || h->hdr_half[i].half_seq < h->hdr_half[best].half_seq))
			best = i;
	return best;
}

/* The default or callchain buffer (their headers are the same): every
 * sample to the tool. */
static int m_read_buffer(struct msampler *s)
{
	if (s->cc)
		return px_cc_read(s->buf, s->map, m_sample, s);
	return px_dfl_read(s->buf, s->map, m_body, s, m_sample, s);
}

static int m_notification(struct msampler *s)
{
	int ret, i;

	s->st.notifications++;
	if (!s->dbl) {
		ret = m_keep_cb(s, m_read_buffer(s));
	} else {
		i = m_next_unread_half(s);
		if (i < 0)
			return 0;
		ret = m_hand_over_half(s, i);
	}
	if (ret)
		return ret;
	ret = m_restart(s);
	if (ret == 1 && !s->dbl)
		s->consumed = true;
	return ret < 0 ? ret : 0;
}

static int m_drain(struct msampler *s)
{
	union pfarg_msg m;
	int ret;

	for (;;) {
		ssize_t got = read(s->fd, &m, sizeof(m));

		if (got < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		if (got != (ssize_t)sizeof(m))
			return px_fail(got < 0 ? errno : EIO,
				       "cannot read the perfmon context's messages: %s",
				       got < 0 ? strerror(errno) : "short read");
		if (m.type == PFM_MSG_END) {
			s->ended = true;
			continue;
		}
		if (m.type == PFM_MSG_OVFL && (ret = m_notification(s)))
			return ret;
	}
	if (s->side.fd >= 0 && (ret = px_sideband_drain(&s->side, s->rec, &s->records, &s->o)))
		return ret;
	return s->cb_ret;
}

int px_msmpl_poll(struct px_group *g, int timeout_ms)
{
	struct msampler *s = msampler(g);
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };

	if (poll(&pfd, 1, timeout_ms) < 0 && errno != EINTR)
		return px_fail(errno, "cannot wait for samples: %s", strerror(errno));
	return m_drain(s);
}

size_t px_msmpl_pollfds(const struct px_group *g, struct pollfd *fds, size_t max)
{
	const struct msampler *s = msampler(g);

	if (max)
		fds[0] = (struct pollfd){ .fd = s->fd, .events = POLLIN };
	if (s->side.fd < 0)
		return 1;
	if (max > 1)
		fds[1] = (struct pollfd){ .fd = s->side.fd, .events = POLLIN };
	return 2;
}

int px_msmpl_finish(struct px_group *g)
{
	struct msampler *s = msampler(g);
	struct pfarg_ctxinfo ci;
	int ret;

	if ((ret = m_stop(s)) || (ret = px_sideband_disable(&s->side)) ||
	    (ret = m_drain(s)))
		return ret < 0 ? ret : s->cb_ret;
	s->running = false;
	memset(&ci, 0, sizeof(ci));
	if (ioctl(s->fd, PFM_GETINFO_CTX, &ci))
		return px_fail(errno, "cannot read the perfmon context: %s", strerror(errno));
	/* every overflow is a sample handed over here, or counted lost by
	 * the kernel: not recorded (ctx_smpl_lost: the overflows no
	 * interrupt came for in time, ctx_smpl_late, which are no buffer's
	 * fault; the others while masked or saturated), or recorded and
	 * then overwritten by the double buffer's cycling (hdr_lost).  The
	 * module has no ring to lose records in. */
	s->st.overflows = ci.ctx_smpl_ovfls;
	s->st.late = ci.ctx_smpl_late;
	s->st.dropped = ci.ctx_smpl_lost - ci.ctx_smpl_late;
	/* a throttled event counted nothing until the next tick: those
	 * overflows are in no figure above, as on perf (THROTTLE records) */
	s->st.throttled = ci.ctx_throttled;
	if (!s->dbl) {
		const struct pfm_dfl_smpl_hdr *h = (const void *)s->buf;

		s->st.buffer_full = h->hdr_overflows;
		if (!s->consumed && h->hdr_count)
			ret = m_keep_cb(s, m_read_buffer(s));
	} else {
		const struct pfm_dbl_smpl_hdr *h = (const void *)s->buf;
		unsigned cur = h->hdr_cur_half & 1;

		s->st.buffer_full = h->hdr_overflows + h->hdr_cycles;
		s->st.overwritten = h->hdr_lost;
		/* the FULL halves not handed over yet, oldest first */
		for (int k = 0; k < 2 && !ret; k++) {
			int i = m_next_unread_half(s);

			if (i < 0)
				break;
			ret = m_hand_over_half(s, i);
		}
		if (!ret && h->hdr_half[cur].half_state == PFM_DBL_HALF_FREE &&
		    h->hdr_half[cur].half_count) {
			memcpy(s->copy, s->buf, s->map);
			ret = m_keep_cb(s, px_dbl_read(s->copy, s->map, (int)cur,
						       m_body, s, m_sample, s));
		}
	}
	return ret ? ret : s->cb_ret;
}

void px_msmpl_stats(const struct px_group *g, struct px_smpl_stats *st)
{
	const struct msampler *s = msampler(g);

	*st = s->st;
	st->side_lost = s->records.lost;
}

/* Every set's events, one set after the other (as they were opened). */
int px_msmpl_read(struct px_group *g, struct px_count *counts)
{
	struct msampler *s = msampler(g);

	return px_module_read(s->fd, s->arg_size_max, s->reg, s->n, counts);
}

int px_msmpl_activations(struct px_group *g, struct px_activations *acts)
{
	struct msampler *s = msampler(g);

	return px_module_activations(s->fd, s->arg_size_max, s->reg, s->n, acts);
}

int px_msmpl_set_runs(struct px_group *g, uint64_t *runs, size_t nsets)
{
	return px_module_set_runs(msampler(g)->fd, runs, nsets);
}

size_t px_msmpl_mappings(const struct px_group *g, const struct px_mapping **m)
{
	const struct msampler *s = msampler(g);

	*m = s->records.maps;
	return s->records.nmaps;
}

size_t px_msmpl_tasks(const struct px_group *g, const struct px_task_event **t)
{
	const struct msampler *s = msampler(g);

	*t = s->records.tasks;
	return s->records.ntasks;
}

void px_msmpl_close(struct px_group *g)
{
	m_close(msampler(g));
}
