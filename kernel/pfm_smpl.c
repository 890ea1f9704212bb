// SPDX-License-Identifier: GPL-2.0
/*
 * Sampling formats of perfmon.ko: "default" (spec section 3.6) and
 * "double-buffer" (spec section 6.3.1), with the byte layouts of
 * formats/default/perfmon_dfl_smpl.h and formats/double-buffer/
 * perfmon_dbl_smpl.h, which user space reads (formats/README.md).
 *
 * The buffer is allocated zeroed at PFM_CREATE_CONTEXT, initialised by
 * the format, mapped read-only into the tool by mmap() on the context's
 * fd and freed with the context.  The overflow handler records into it
 * in interrupt context under ctx->ovfl_lock: it never sleeps and never
 * touches user memory.  Every sample is one overflow of one PMD.
 */
#include <linux/atomic.h>
#include <linux/mm.h>
#include <linux/ptrace.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <linux/vmalloc.h>

#include "default/perfmon_dfl_smpl.h"
#include "double-buffer/perfmon_dbl_smpl.h"
#include "pfm.h"

/* bytes of all sampling buffers (module parameter, PFM_SET_CONFIG) */
unsigned long pfm_smpl_buf_size_max = 64UL << 20;
static atomic64_t pfm_smpl_bytes = ATOMIC64_INIT(0);

struct pfm_smpl_fmt {
	const char *name;
	size_t arg_size;
	u32 known_flags;
	u64 hdr_size;
	/* the smallest buffer: the header and room for the largest sample */
	u64 (*min_size)(u32 max_sample);
	void (*init)(struct pfm_smpl *s);
	unsigned int (*record)(struct pfm_smpl *s, const void *entry,
			       size_t entry_size, const u64 *body,
			       unsigned int nbody);
	int (*restart)(struct pfm_smpl *s, bool masked);
};

u64 pfm_smpl_mem(void)
{
	return atomic64_read(&pfm_smpl_bytes);
}

/* --- default ------------------------------------------------------------ */

static u64 pfm_dfl_min_size(u32 max_sample)
{
	return sizeof(struct pfm_dfl_smpl_hdr) + max_sample;
}

static void pfm_dfl_init(struct pfm_smpl *s)
{
	struct pfm_dfl_smpl_hdr *h = s->buf;

	h->hdr_cur_offs = sizeof(*h);
	h->hdr_buf_size = s->buf_size;
	h->hdr_version = PFM_DFL_SMPL_VERSION;
	h->hdr_flags = s->flags;
}

static void pfm_smpl_put(void *buf, u64 offs, const void *entry,
			 size_t entry_size, const u64 *body, unsigned int nbody)
{
	memcpy(buf + offs, entry, entry_size);
	memcpy(buf + offs + entry_size, body, nbody * sizeof(u64));
}

/*
 * Record one sample, then the post-check: when fewer bytes than the
 * largest sample are left the buffer is full: count it, mask and ask for
 * a notification (saturation when the PMD does not notify).  A buffer
 * found full before recording (a context loaded again without a restart)
 * records nothing and masks again.
 */
static unsigned int pfm_dfl_record(struct pfm_smpl *s, const void *entry,
				   size_t entry_size, const u64 *body,
				   unsigned int nbody)
{
	struct pfm_dfl_smpl_hdr *h = s->buf;
	u64 need = entry_size + nbody * sizeof(u64);

	if (!need) {			/* NO_HDR and an empty body */
		s->lost++;
		return PFM_SMPL_RESET;
	}
	if (h->hdr_buf_size - h->hdr_cur_offs < s->max_sample) {
		s->lost++;
		return PFM_SMPL_MASK | PFM_SMPL_NOTIFY;
	}
	pfm_smpl_put(s->buf, h->hdr_cur_offs, entry, entry_size, body, nbody);
	h->hdr_cur_offs += need;
	h->hdr_count++;
	if (h->hdr_buf_size - h->hdr_cur_offs < s->max_sample) {
		h->hdr_overflows++;
		return PFM_SMPL_MASK | PFM_SMPL_NOTIFY;
	}
	return PFM_SMPL_RESET;
}

/* Masked or active, a restart empties the buffer; old bytes stay. */
static int pfm_dfl_restart(struct pfm_smpl *s, bool masked)
{
	struct pfm_dfl_smpl_hdr *h = s->buf;

	h->hdr_count = 0;
	h->hdr_cur_offs = sizeof(*h);
	return 0;
}

/* --- double-buffer ------------------------------------------------------ */

static u64 pfm_dbl_min_size(u32 max_sample)
{
	return sizeof(struct pfm_dbl_smpl_hdr) + 2ULL * max_sample;
}

static u64 pfm_dbl_half_start(const struct pfm_dbl_smpl_hdr *h, unsigned int i)
{
	return sizeof(*h) + i * h->hdr_half_size;
}

static void pfm_dbl_half_empty(struct pfm_dbl_smpl_hdr *h, unsigned int i)
{
	h->hdr_half[i].half_count = 0;
	h->hdr_half[i].half_cur_offs = pfm_dbl_half_start(h, i);
	h->hdr_half[i].half_state = PFM_DBL_HALF_FREE;
}

static void pfm_dbl_init(struct pfm_smpl *s)
{
	struct pfm_dbl_smpl_hdr *h = s->buf;

	h->hdr_buf_size = s->buf_size;
	h->hdr_half_size = ((s->buf_size - sizeof(*h)) / 2) & ~7ULL;
	h->hdr_version = PFM_DBL_SMPL_VERSION;
	h->hdr_flags = s->flags;
	pfm_dbl_half_empty(h, 0);
	pfm_dbl_half_empty(h, 1);
}

/*
 * The post-check against the end of the current half.  A full half goes
 * to the tool (notify, no mask) when the other one is free, and
 * recording moves there; when the tool still holds the other half the
 * format cycles in its own half (its samples are lost), or with
 * MASK_WHEN_FULL hands it over too and masks.
 */
static unsigned int pfm_dbl_record(struct pfm_smpl *s, const void *entry,
				   size_t entry_size, const u64 *body,
				   unsigned int nbody)
{
	struct pfm_dbl_smpl_hdr *h = s->buf;
	unsigned int cur = h->hdr_cur_half & 1, other = cur ^ 1;
	struct pfm_dbl_smpl_half *c = &h->hdr_half[cur];
	u64 end = pfm_dbl_half_start(h, cur) + h->hdr_half_size;

	if (h->hdr_masked || end - c->half_cur_offs < s->max_sample) {
		s->lost++;
		return PFM_SMPL_MASK | PFM_SMPL_NOTIFY;
	}
	pfm_smpl_put(s->buf, c->half_cur_offs, entry, entry_size, body, nbody);
	c->half_cur_offs += entry_size + nbody * sizeof(u64);
	c->half_count++;
	if (end - c->half_cur_offs >= s->max_sample)
		return PFM_SMPL_RESET;
	if (h->hdr_half[other].half_state == PFM_DBL_HALF_FREE) {
		c->half_state = PFM_DBL_HALF_FULL;
		c->half_seq = ++h->hdr_overflows;
		pfm_dbl_half_empty(h, other);
		h->hdr_cur_half = other;
		return PFM_SMPL_RESET | PFM_SMPL_NOTIFY;
	}
	if (h->hdr_flags & PFM_DBL_SMPL_MASK_WHEN_FULL) {
		c->half_state = PFM_DBL_HALF_FULL;
		c->half_seq = ++h->hdr_overflows;
		h->hdr_masked = 1;
		return PFM_SMPL_MASK | PFM_SMPL_NOTIFY;
	}
	h->hdr_cycles++;
	h->hdr_lost += c->half_count;
	pfm_dbl_half_empty(h, cur);
	return PFM_SMPL_RESET;
}

/*
 * Free the FULL half with the lowest sequence number.  When that ends a
 * saturation recording resumes in it.  An active restart with no FULL
 * half is EBUSY (nothing to give back).
 */
static int pfm_dbl_restart(struct pfm_smpl *s, bool masked)
{
	struct pfm_dbl_smpl_hdr *h = s->buf;
	int i, best = -1;

	for (i = 0; i < 2; i++)
		if (h->hdr_half[i].half_state == PFM_DBL_HALF_FULL &&
		    (best < 0 ||
		     h->hdr_half[i].half_seq < h->hdr_half[best].half_seq))
			best = i;
	if (best < 0)
		return masked ? 0 : -EBUSY;
	h->hdr_half[best].half_state = PFM_DBL_HALF_FREE;
	if (h->hdr_masked) {
		pfm_dbl_half_empty(h, best);
		h->hdr_cur_half = best;
		h->hdr_masked = 0;
	}
	return 0;
}

static const struct pfm_smpl_fmt pfm_fmts[] = {
	{
		.name = PFM_DFL_SMPL_NAME,
		.arg_size = sizeof(struct pfm_dfl_smpl_arg),
		.known_flags = PFM_DFL_SMPL_FLAGS,
		.hdr_size = sizeof(struct pfm_dfl_smpl_hdr),
		.min_size = pfm_dfl_min_size,
		.init = pfm_dfl_init,
		.record = pfm_dfl_record,
		.restart = pfm_dfl_restart,
	},
	{
		.name = PFM_DBL_SMPL_NAME,
		.arg_size = sizeof(struct pfm_dbl_smpl_arg),
		.known_flags = PFM_DBL_SMPL_FLAGS,
		.hdr_size = sizeof(struct pfm_dbl_smpl_hdr),
		.min_size = pfm_dbl_min_size,
		.init = pfm_dbl_init,
		.record = pfm_dbl_record,
		.restart = pfm_dbl_restart,
	},
};

/* --- creation and mapping ----------------------------------------------- */

/* bytes of the entry header with these flags (default format only) */
static size_t pfm_entry_size(const struct pfm_smpl *s)
{
	if (s->fmt != &pfm_fmts[0])
		return sizeof(struct pfm_dfl_smpl_entry);
	if (s->flags & PFM_DFL_SMPL_NO_HDR)
		return 0;
	if (s->flags & PFM_DFL_SMPL_IIP_HDR)
		return sizeof(struct pfm_dfl_smpl_iip_entry);
	return sizeof(struct pfm_dfl_smpl_entry);
}

static const struct pfm_smpl_fmt *pfm_find_fmt(const char *name)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(pfm_fmts); i++)
		if (!strcmp(pfm_fmts[i].name, name))
			return &pfm_fmts[i];
	return NULL;
}

/* Reserve size bytes of the global budget: 0 or -ENOMEM. */
static int pfm_smpl_charge(size_t size)
{
	u64 max = READ_ONCE(pfm_smpl_buf_size_max);

	if (atomic64_add_return(size, &pfm_smpl_bytes) > max) {
		atomic64_sub(size, &pfm_smpl_bytes);
		return -ENOMEM;
	}
	return 0;
}

/*
 * PFM_CREATE_CONTEXT with PFM_FL_SMPL_FMT: ctx_smpl_name points to the
 * format's name, ctx_smpl_arg to its argument of exactly
 * ctx_smpl_arg_size bytes (both formats take struct pfm_*_smpl_arg).
 * Unknown name, short argument, unknown flags, a reserved field that is
 * not zero or a buffer too small for one sample or not a multiple of 8:
 * EINVAL; a longer argument: E2BIG; beyond the budget of all buffers
 * (smpl_buf_size_max): ENOMEM.
 */
int pfm_smpl_create(struct pfm_context *ctx, const struct pfarg_ctx *arg)
{
	const struct pfm_smpl_fmt *fmt;
	struct pfm_dfl_smpl_arg a;	/* both formats' argument */
	char name[PFM_SMPL_NAME_LEN];
	struct pfm_smpl *s;
	long len;
	int ret;

	BUILD_BUG_ON(sizeof(struct pfm_dfl_smpl_arg) !=
		     sizeof(struct pfm_dbl_smpl_arg));
	len = strncpy_from_user(name, u64_to_user_ptr(arg->ctx_smpl_name),
				sizeof(name));
	if (len < 0)
		return len;
	if (len == sizeof(name))
		return -EINVAL;
	fmt = pfm_find_fmt(name);
	if (!fmt)
		return -EINVAL;
	if (arg->ctx_smpl_arg_size < fmt->arg_size)
		return -EINVAL;
	if (arg->ctx_smpl_arg_size > fmt->arg_size)
		return -E2BIG;
	if (copy_from_user(&a, u64_to_user_ptr(arg->ctx_smpl_arg), sizeof(a)))
		return -EFAULT;
	if (a.reserved1 || a.buf_flags & ~fmt->known_flags)
		return -EINVAL;
	if ((a.buf_flags & PFM_DFL_SMPL_FLAGS) == PFM_DFL_SMPL_FLAGS &&
	    fmt == &pfm_fmts[0])
		return -EINVAL;		/* NO_HDR and IIP_HDR exclude each other */

	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return -ENOMEM;
	s->fmt = fmt;
	s->flags = a.buf_flags;
	s->max_sample = pfm_entry_size(s) + PFM_NUM_COUNTERS * sizeof(u64);
	ret = -EINVAL;
	if (a.buf_size % 8 || a.buf_size < fmt->min_size(s->max_sample))
		goto out_free;
	ret = -ENOMEM;
	if (a.buf_size > READ_ONCE(pfm_smpl_buf_size_max))
		goto out_free;
	s->buf_size = a.buf_size;
	s->map_size = PAGE_ALIGN(a.buf_size);
	ret = pfm_smpl_charge(s->map_size);
	if (ret)
		goto out_free;
	s->buf = vmalloc_user(s->map_size);	/* zeroed */
	if (!s->buf) {
		ret = -ENOMEM;
		goto out_uncharge;
	}
	fmt->init(s);
	smp_store_release(&ctx->smpl, s);	/* read by mmap() without ctx->lock */
	return 0;

out_uncharge:
	atomic64_sub(s->map_size, &pfm_smpl_bytes);
out_free:
	kfree(s);
	return ret;
}

/* With the context: no event is left to call the handler. */
void pfm_smpl_free(struct pfm_context *ctx)
{
	struct pfm_smpl *s = ctx->smpl;

	if (!s)
		return;
	ctx->smpl = NULL;
	vfree(s->buf);
	atomic64_sub(s->map_size, &pfm_smpl_bytes);
	kfree(s);
}

/*
 * mmap(NULL, ctx_smpl_buf_size, PROT_READ, MAP_SHARED, fd, 0): the whole
 * buffer, read-only, at offset 0.  PROT_WRITE or PROT_EXEC: EACCES (and
 * mprotect() cannot add them later); another size or offset, a private,
 * locked or grows-down mapping, or a context without a format: EINVAL.
 * The mapping holds the file, so the buffer lives until the last munmap.
 */
int pfm_smpl_mmap(struct pfm_context *ctx, struct vm_area_struct *vma)
{
	struct pfm_smpl *s = smp_load_acquire(&ctx->smpl);
	unsigned long flags = vma->vm_flags;

	if (!s)
		return -EINVAL;
	if (flags & (VM_WRITE | VM_EXEC))
		return -EACCES;
	if (!(flags & VM_READ) || !(flags & VM_SHARED) ||
	    flags & (VM_LOCKED | VM_GROWSDOWN))
		return -EINVAL;
	if (vma->vm_pgoff || vma->vm_end - vma->vm_start != s->map_size)
		return -EINVAL;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_clear(vma, VM_MAYWRITE | VM_MAYEXEC);
#else
	vma->vm_flags &= ~(VM_MAYWRITE | VM_MAYEXEC);
#endif
	/* sets VM_DONTEXPAND and VM_DONTDUMP */
	return remap_vmalloc_range(vma, s->buf, 0);
}

/* --- recording ---------------------------------------------------------- */

/* PMD r of the set at the overflow of c, c's event at count (interrupt
 * context, ovfl_lock held). */
static u64 pfm_smpl_pmd_value(struct pfm_counter *r, struct pfm_counter *c,
			      u64 count)
{
	if (!READ_ONCE(r->event))
		return r->value;
	if (r->frozen)
		return r->frozen_val;
	return r->offset + pfm_count_at(r, c, count);
}

/*
 * PMD c overflowed, its event at count (ovfl_lock held, interrupt
 * context): record a sample of the current thread with the values of
 * c's smpl_pmds in increasing PMD order.  late: the overflows before
 * this one that came without an interrupt, counted lost.  Returns
 * PFM_SMPL_*.
 */
unsigned int pfm_smpl_handler(struct pfm_context *ctx, struct pfm_set *set,
			      struct pfm_counter *c, u64 count, u64 late,
			      struct pt_regs *regs)
{
	struct pfm_smpl *s = ctx->smpl;
	struct pfm_dfl_smpl_entry e;
	u64 body[PFM_NUM_COUNTERS];
	unsigned int j, n = 0;
	const void *entry = &e;
	u64 ip = 0;

	s->ovfls += 1 + late;	/* this one is recorded, or lost in the format */
	s->lost += late;
	s->late += late;
	if (regs && (user_mode(regs) || ctx->kernel_ip))
		ip = instruction_pointer(regs);
	memset(&e, 0, sizeof(e));
	e.pid = task_tgid_nr(current);
	e.tid = task_pid_nr(current);
	e.ovfl_pmd = c->num;
	e.set = set->id;
	e.cpu = smp_processor_id();
	e.last_reset_val = c->last_reset;
	e.tstamp = local_clock();
	e.ip = ip;
	if (s->fmt == &pfm_fmts[0] && (s->flags & PFM_DFL_SMPL_IIP_HDR))
		entry = &e.ip;
	for (j = 0; j < PFM_NUM_COUNTERS; j++) {
		if (!(c->smpl_pmds[0] & (1ULL << j)))
			continue;
		body[n++] = &set->ctr[j] == c ? c->offset + count :
			    pfm_smpl_pmd_value(&set->ctr[j], c, count);
	}
	return s->fmt->record(s, entry, pfm_entry_size(s), body, n);
}

/*
 * PFM_RESTART, the format's part (ctx->lock and ovfl_lock held): masked
 * tells whether monitoring is masked (else an active restart).
 * 0 or -errno.
 */
int pfm_smpl_restart_locked(struct pfm_context *ctx, bool masked)
{
	return ctx->smpl->fmt->restart(ctx->smpl, masked);
}
