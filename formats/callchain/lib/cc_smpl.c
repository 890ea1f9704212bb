/* The callchain sampling format, user side: record and read samples with
 * their call chains (layout in perfmon_cc_smpl.h, formats/README.md). */
#include "callchain/px_cc.h"
#include "error.h"

#include <errno.h>
#include <string.h>

#define HDR_SIZE sizeof(struct pfm_dfl_smpl_hdr)
#define ENTRY_SIZE sizeof(struct pfm_cc_smpl_entry)
#define REGS_SIZE (8 * PFM_CC_NREGS)

static size_t round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static int flags_valid(uint32_t flags)
{
	return !(flags & ~PFM_CC_SMPL_FLAGS) &&
	       (flags & (PFM_CC_SMPL_KERNEL | PFM_CC_SMPL_USER));
}

static size_t parts_size(uint32_t flags, size_t npmds, size_t nframes,
			 size_t stack)
{
	size_t n = ENTRY_SIZE + 8 * (npmds + nframes);

	if (flags & PFM_CC_SMPL_USER_STACK)
		n += REGS_SIZE + round8(stack);
	return n;
}

size_t px_cc_sample_size(uint32_t flags, const struct px_sample *s)
{
	size_t stack = s->regs ? s->stack_size : 0;

	return parts_size(flags, s->nvalues, (size_t)s->nr_kernel + s->nr_user,
			  stack);
}

size_t px_cc_max_sample_size(uint32_t flags, unsigned npmds, unsigned max_frames,
			     uint32_t stack_bytes)
{
	return parts_size(flags, npmds, max_frames, stack_bytes);
}

int px_cc_init(void *buf, size_t size, uint32_t flags, size_t max_sample)
{
	if (!flags_valid(flags) || max_sample < ENTRY_SIZE)
		return -EINVAL;
	return px_dfl_hdr_init(buf, size, PFM_CC_SMPL_VERSION, flags, max_sample);
}

static size_t put(unsigned char *p, uint32_t flags, const struct px_sample *s)
{
	size_t nframes = (size_t)s->nr_kernel + s->nr_user, off = ENTRY_SIZE;
	struct pfm_cc_smpl_entry e = {
		.pid = s->pid, .tid = s->tid, .ovfl_pmd = s->ovfl_pmd,
		.set = s->set, .cpu = s->cpu,
		.last_reset_val = s->last_reset_val, .tstamp = s->tstamp,
		.ip = s->ip, .nr_pmds = (uint16_t)s->nvalues,
		.nr_kernel = (uint16_t)s->nr_kernel,
		.nr_user = (uint16_t)s->nr_user,
		.cc_flags = (uint16_t)s->cc_flags,
	};

	if ((flags & PFM_CC_SMPL_USER_STACK) && s->regs)
		e.stack_size = s->stack_size;
	memcpy(p, &e, sizeof(e));
	memcpy(p + off, s->values, 8 * (size_t)s->nvalues);
	off += 8 * (size_t)s->nvalues;
	if (nframes)
		memcpy(p + off, s->frames, 8 * nframes);
	off += 8 * nframes;
	if (!(flags & PFM_CC_SMPL_USER_STACK))
		return off;
	if (s->regs)
		memcpy(p + off, s->regs, REGS_SIZE);
	else
		memset(p + off, 0, REGS_SIZE);
	off += REGS_SIZE;
	if (e.stack_size) {
		memcpy(p + off, s->stack, e.stack_size);
		memset(p + off + e.stack_size, 0, round8(e.stack_size) - e.stack_size);
	}
	return off + round8(e.stack_size);
}

int px_cc_append(void *buf, size_t max_sample, const struct px_sample *s)
{
	const struct pfm_dfl_smpl_hdr *h = buf;
	size_t offs;
	int r;

	if (s->nvalues > PX_SMPL_MAX_PMDS ||
	    (size_t)s->nr_kernel + s->nr_user > PFM_CC_MAX_FRAMES ||
	    (s->regs && s->stack_size > PFM_CC_MAX_STACK) ||
	    (s->cc_flags & ~(unsigned)(PFM_CC_TRUNCATED | PFM_CC_USER_CUT)))
		return -EINVAL;
	r = px_dfl_take(buf, px_cc_sample_size(h->hdr_flags, s), max_sample, &offs);
	if (r >= 0)
		put((unsigned char *)buf + offs, h->hdr_flags, s);
	return r;
}

/* Decode the sample at b + off (end: where the samples end); its size in
 * *size, or -EPROTO naming the defect. */
static int take(const unsigned char *b, size_t off, size_t end, uint32_t flags,
		uint64_t i, struct px_sample *s, size_t *size)
{
	struct pfm_cc_smpl_entry e;
	size_t nframes, need;

	if (end - off < ENTRY_SIZE)
		return px_fail(EPROTO,
			       "callchain buffer: sample %llu is cut at byte %zu (samples end at %zu)",
			       (unsigned long long)i, off, end);
	memcpy(&e, b + off, sizeof(e));
	if (e.reserved1 || e.reserved2)
		return px_fail(EPROTO,
			       "callchain buffer: sample %llu at byte %zu has a non-zero reserved field",
			       (unsigned long long)i, off);
	nframes = (size_t)e.nr_kernel + e.nr_user;
	if (e.nr_pmds > PX_SMPL_MAX_PMDS || nframes > PFM_CC_MAX_FRAMES ||
	    e.stack_size > PFM_CC_MAX_STACK ||
	    (e.stack_size && !(flags & PFM_CC_SMPL_USER_STACK)) ||
	    (e.cc_flags & ~(PFM_CC_TRUNCATED | PFM_CC_USER_CUT)))
		return px_fail(EPROTO,
			       "callchain buffer: sample %llu at byte %zu has impossible sizes (%u values, %zu frames, %u stack bytes) or flags 0x%x",
			       (unsigned long long)i, off, e.nr_pmds, nframes,
			       e.stack_size, e.cc_flags);
	need = parts_size(flags, e.nr_pmds, nframes, e.stack_size);
	if (end - off < need)
		return px_fail(EPROTO,
			       "callchain buffer: sample %llu at byte %zu needs %zu bytes, %zu are left",
			       (unsigned long long)i, off, need, end - off);
	memset(s, 0, sizeof(*s));
	s->pid = e.pid;
	s->tid = e.tid;
	s->ovfl_pmd = e.ovfl_pmd;
	s->set = e.set;
	s->cpu = e.cpu;
	s->last_reset_val = e.last_reset_val;
	s->tstamp = e.tstamp;
	s->ip = e.ip;
	s->nvalues = e.nr_pmds;
	off += ENTRY_SIZE;
	memcpy(s->values, b + off, 8 * (size_t)e.nr_pmds);
	off += 8 * (size_t)e.nr_pmds;
	s->nr_kernel = e.nr_kernel;
	s->nr_user = e.nr_user;
	s->cc_flags = e.cc_flags;
	/* the buffer is 8-byte aligned and so is every part */
	s->frames = (const uint64_t *)(const void *)(b + off);
	off += 8 * nframes;
	if (flags & PFM_CC_SMPL_USER_STACK) {
		s->regs = (const uint64_t *)(const void *)(b + off);
		s->stack = b + off + REGS_SIZE;
		s->stack_size = e.stack_size;
	}
	*size = need;
	return 0;
}

int px_cc_read(const void *buf, size_t len, px_sample_fn fn, void *arg)
{
	const unsigned char *b = buf;
	struct pfm_dfl_smpl_hdr h;
	struct px_sample s;
	size_t off = HDR_SIZE;
	int ret = px_dfl_hdr_check(buf, len, "callchain buffer", "callchain",
				   PFM_CC_SMPL_VERSION_MAJ, flags_valid, ENTRY_SIZE, &h);

	if (ret)
		return ret;
	for (uint64_t i = 0; i < h.hdr_count; i++) {
		size_t size = 0;
		int r = take(b, off, h.hdr_cur_offs, h.hdr_flags, i, &s, &size);

		if (r)
			return r;
		off += size;
		if (fn && (r = fn(arg, &s)))
			return r;
	}
	if (off != h.hdr_cur_offs)
		return px_fail(EPROTO,
			       "callchain buffer: %llu samples end at byte %zu but the header says %llu",
			       (unsigned long long)h.hdr_count, off,
			       (unsigned long long)h.hdr_cur_offs);
	return 0;
}
