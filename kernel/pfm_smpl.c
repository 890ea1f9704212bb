// SPDX-License-Identifier: GPL-2.0
/*
 * The sampling buffer of a context created with a format: allocated
 * zeroed at PFM_CREATE_CONTEXT within the budget of all buffers, laid out
 * by the format (a module registered in pfm_fmt.c), mapped read-only into
 * the tool by mmap() on the context's fd and freed with the context.  The
 * overflow handler builds each sample's entry header and body here and
 * hands them to the format in interrupt context under ctx->ovfl_lock: it
 * never sleeps and never touches user memory.  Every sample is one
 * overflow of one PMD.
 */
#include <linux/atomic.h>
#include <linux/mm.h>
#include <linux/ptrace.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "default/perfmon_dfl_smpl.h"
#include "pfm.h"
#include "pfm_compat.h"

/* bytes of all sampling buffers (module parameter, PFM_SET_CONFIG) */
unsigned long pfm_smpl_buf_size_max = 64UL << 20;
static atomic64_t pfm_smpl_bytes = ATOMIC64_INIT(0);

u64 pfm_smpl_mem(void)
{
	return atomic64_read(&pfm_smpl_bytes);
}

/* --- creation and mapping ----------------------------------------------- */

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
 * The format a creation names: by ctx_smpl_name, or by ctx_smpl_uuid
 * when the name is 0 (with both, the UUID is all zero or the named
 * format's), its module held.  No such format loaded: EINVAL.
 */
static int pfm_smpl_find_fmt(const struct pfarg_ctx *arg,
			     const struct pfm_smpl_fmt **fmt)
{
	char name[PFM_FMT_NAME_LEN];
	long len;

	if (arg->ctx_smpl_name) {
		len = strncpy_from_user(name, u64_to_user_ptr(arg->ctx_smpl_name),
					sizeof(name));
		if (len < 0)
			return len;
		if (len == sizeof(name))
			return -EINVAL;
	}
	*fmt = pfm_fmt_get(arg->ctx_smpl_name ? name : NULL, arg->ctx_smpl_uuid);
	return *fmt ? 0 : -EINVAL;
}

/*
 * PFM_CREATE_CONTEXT with PFM_FL_SMPL_FMT: ctx_smpl_arg points to the
 * format's argument of exactly ctx_smpl_arg_size bytes.  No such format,
 * a short argument, one the format refuses (flags, reserved fields) or a
 * buffer too small for one sample or not a multiple of 8: EINVAL; a
 * longer argument: E2BIG; beyond the budget of all buffers
 * (smpl_buf_size_max): ENOMEM.
 */
int pfm_smpl_create(struct pfm_context *ctx, const struct pfarg_ctx *arg)
{
	const struct pfm_smpl_fmt *fmt;
	u64 fmt_arg[PFM_FMT_ARG_MAX / sizeof(u64)];
	struct pfm_smpl *s;
	int ret;

	ret = pfm_smpl_find_fmt(arg, &fmt);
	if (ret)
		return ret;
	ret = -EINVAL;
	if (arg->ctx_smpl_arg_size < fmt->arg_size)
		goto out_put;
	ret = -E2BIG;
	if (arg->ctx_smpl_arg_size > fmt->arg_size)
		goto out_put;
	ret = -EFAULT;
	if (copy_from_user(fmt_arg, u64_to_user_ptr(arg->ctx_smpl_arg),
			   fmt->arg_size))
		goto out_put;

	ret = -ENOMEM;
	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		goto out_put;
	s->fmt = fmt;
	s->kernel_ip = ctx->kernel_ip;
	ret = fmt->parse_arg(s, fmt_arg);
	if (ret)
		goto out_free;
	ret = -EINVAL;
	if (s->entry_offset + s->entry_size > sizeof(struct pfm_dfl_smpl_entry))
		goto out_free;		/* a format's bug: refuse, never overrun */
	if (s->max_extra > PFM_SMPL_MAX_EXTRA)
		goto out_free;		/* a format's bug, as above */
	s->max_sample = s->entry_size + PFM_NUM_COUNTERS * sizeof(u64) +
			s->max_extra;
	if (s->buf_size % 8 || s->buf_size < fmt->min_size(s))
		goto out_free;
	ret = -ENOMEM;
	if (s->buf_size > READ_ONCE(pfm_smpl_buf_size_max))
		goto out_free;
	s->map_size = PAGE_ALIGN(s->buf_size);
	ret = pfm_smpl_charge(s->map_size);
	if (ret)
		goto out_free;
	/* and to its owner (smpl_buf_per_user_max) */
	ret = pfm_user_charge(ctx->owner, PFM_USER_SMPL, s->map_size);
	if (ret)
		goto out_uncharge;
	s->buf = vmalloc_user(s->map_size);	/* zeroed */
	if (!s->buf) {
		ret = -ENOMEM;
		goto out_uncharge_user;
	}
	fmt->init(s);
	smp_store_release(&ctx->smpl, s);	/* read by mmap() without ctx->lock */
	return 0;

out_uncharge_user:
	pfm_user_uncharge(ctx->owner, PFM_USER_SMPL, s->map_size);
out_uncharge:
	atomic64_sub(s->map_size, &pfm_smpl_bytes);
out_free:
	kfree(s);
out_put:
	pfm_fmt_put(fmt);
	return ret;
}

/*
 * At the context's close, its events released: the format's code and the
 * buffer are reached from a handler only under ovfl_lock once the handler
 * found its event still the PMD's (pfm_ovfl_handler()), and the release
 * cleared that under the lock, so no handler is left in them now (the
 * context and its sets, which a handler reads before the lock, go a grace
 * period later: pfm_ctx_free()).
 */
void pfm_smpl_free(struct pfm_context *ctx)
{
	struct pfm_smpl *s = ctx->smpl;

	if (!s)
		return;
	ctx->smpl = NULL;
	vfree(s->buf);
	atomic64_sub(s->map_size, &pfm_smpl_bytes);
	pfm_user_uncharge(ctx->owner, PFM_USER_SMPL, s->map_size);
	pfm_fmt_put(s->fmt);	/* its module may go now */
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
	pfm_vm_flags_clear(vma, VM_MAYWRITE | VM_MAYEXEC);
	/* sets VM_DONTEXPAND and VM_DONTDUMP */
	return remap_vmalloc_range(vma, s->buf, 0);
}

/* --- recording ---------------------------------------------------------- */

/* PMD r of the set at the overflow of c, c's event at count (interrupt
 * context, ovfl_lock held). */
static u64 pfm_smpl_pmd_value(struct pfm_counter *r, struct pfm_counter *c,
			      u64 count)
{
	struct perf_event *rev = READ_ONCE(r->event);

	if (!rev)
		return r->value;
	if (r->frozen)
		return r->frozen_val;
	return r->offset + pfm_count_at(r, rev, c, count);
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
	u64 ip = 0;

	s->ovfls += 1 + late;	/* this one is recorded, or lost in the format */
	s->lost += late;
	s->late += late;
	if (regs && (user_mode(regs) || ctx->kernel_ip))
		ip = instruction_pointer(regs);
	memset(&e, 0, sizeof(e));
	e.pid = task_tgid_nr_ns(current, ctx->pid_ns);
	e.tid = task_pid_nr_ns(current, ctx->pid_ns);
	e.ovfl_pmd = c->num;
	e.set = set->id;
	e.cpu = smp_processor_id();
	e.last_reset_val = c->last_reset;
	e.tstamp = local_clock();
	e.ip = ip;
	for (j = 0; j < PFM_NUM_COUNTERS; j++) {
		if (!(c->smpl_pmds[0] & (1ULL << j)))
			continue;
		body[n++] = &set->ctr[j] == c ? c->offset + count :
			    pfm_smpl_pmd_value(&set->ctr[j], c, count);
	}
	return s->fmt->record(s, (const u8 *)&e + s->entry_offset, body, n,
			      regs);
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
