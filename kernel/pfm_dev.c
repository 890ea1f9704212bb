// SPDX-License-Identifier: GPL-2.0
/*
 * perfmon.ko: the perfmon2 context interface on the in-kernel perf_event
 * API.  This file is /dev/perfmon: open, ioctl dispatch and argument
 * copying, read and poll of messages, the limits and the sysfs view.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "pfm.h"
#include "pfm_compat.h"

#define PFM_ARG_SIZE_MIN	PAGE_SIZE
#define PFM_ARG_SIZE_LIMIT	(1U << 20)
#define PFM_SMPL_BUF_LIMIT	(1ULL << 40)	/* the largest budget accepted */

unsigned int pfm_arg_size_max = 4 * PAGE_SIZE;
unsigned int pfm_ctx_per_user_max = 256;
unsigned int pfm_sys_gid = PFM_GROUP_ANY;
unsigned int pfm_thread_gid = PFM_GROUP_ANY;
/*
 * Who may open /dev/perfmon: CAP_PERFMON, and the members of dev_gid.
 * The kernel counters the module creates skip perf_event_paranoid and
 * the LSM hook (neither sysctl_perf_event_paranoid nor
 * security_perf_event_open() is exported to modules on 6.1), so the
 * default grants no one else: the administrator grants a group.
 */
unsigned int pfm_dev_gid = PFM_GROUP_NONE;
unsigned int pfm_events_per_user_max = 1024;
/* a set is some 20 KiB of kernel memory: 1024 of them, 20 MiB a user */
unsigned int pfm_sets_per_user_max = 1024;
unsigned long pfm_smpl_buf_per_user_max = 16UL << 20;

module_param_named(arg_size_max, pfm_arg_size_max, uint, 0644);
MODULE_PARM_DESC(arg_size_max, "largest vector argument in bytes (at least a page)");
module_param_named(ctx_per_user_max, pfm_ctx_per_user_max, uint, 0644);
MODULE_PARM_DESC(ctx_per_user_max, "open contexts per user (CAP_SYS_ADMIN is exempt)");
module_param_named(sys_gid, pfm_sys_gid, uint, 0644);
MODULE_PARM_DESC(sys_gid, "group allowed system-wide contexts (4294967295: any)");
module_param_named(thread_gid, pfm_thread_gid, uint, 0644);
MODULE_PARM_DESC(thread_gid, "group allowed per-thread contexts (4294967295: any)");
module_param_named(smpl_buf_size_max, pfm_smpl_buf_size_max, ulong, 0644);
MODULE_PARM_DESC(smpl_buf_size_max, "bytes of all sampling buffers together (at least a page)");
module_param_named(dev_gid, pfm_dev_gid, uint, 0644);
MODULE_PARM_DESC(dev_gid, "group allowed to open /dev/perfmon besides CAP_PERFMON (4294967294: none, 4294967295: any)");
module_param_named(events_per_user_max, pfm_events_per_user_max, uint, 0644);
MODULE_PARM_DESC(events_per_user_max, "events of all contexts of a user (CAP_SYS_ADMIN is exempt)");
module_param_named(sets_per_user_max, pfm_sets_per_user_max, uint, 0644);
MODULE_PARM_DESC(sets_per_user_max, "event sets of all contexts of a user, each context's set 0 aside (CAP_SYS_ADMIN is exempt)");
module_param_named(smpl_buf_per_user_max, pfm_smpl_buf_per_user_max, ulong, 0644);
MODULE_PARM_DESC(smpl_buf_per_user_max, "bytes of all sampling buffers of a user (CAP_SYS_ADMIN is exempt)");

/*
 * What each user holds: contexts, events, bytes of sampling buffers,
 * event sets; uid -> struct pfm_user, freed when it holds nothing.  Everything held
 * is counted; the limits are checked when more is asked, except for
 * CAP_SYS_ADMIN.
 */
struct pfm_user {
	unsigned long held[PFM_USER_NR];
};

static DEFINE_XARRAY(pfm_users);
static DEFINE_MUTEX(pfm_users_lock);

static unsigned long pfm_user_limit(enum pfm_user_res res)
{
	switch (res) {
	case PFM_USER_CTX:
		return READ_ONCE(pfm_ctx_per_user_max);
	case PFM_USER_EVENTS:
		return READ_ONCE(pfm_events_per_user_max);
	case PFM_USER_SETS:
		return READ_ONCE(pfm_sets_per_user_max);
	default:
		return READ_ONCE(pfm_smpl_buf_per_user_max);
	}
}

static bool pfm_user_idle(const struct pfm_user *u)
{
	int res;

	for (res = 0; res < PFM_USER_NR; res++)
		if (u->held[res])
			return false;
	return true;
}

/* What a user past its limit of res is told: the errno of the same limit
 * on one context (PFM_SETS_MAX: ENOSPC), or of running out. */
static int pfm_user_refusal(enum pfm_user_res res)
{
	switch (res) {
	case PFM_USER_SMPL:
		return -ENOMEM;
	case PFM_USER_SETS:
		return -ENOSPC;
	default:
		return -EMFILE;
	}
}

/* Charge n of res to uid: 0, or -EMFILE (contexts, events), -ENOMEM
 * (buffers) or -ENOSPC (sets) past the user's limit. */
int pfm_user_charge(kuid_t uid, enum pfm_user_res res, unsigned long n)
{
	struct pfm_user *u;
	int ret = 0;

	mutex_lock(&pfm_users_lock);
	u = xa_load(&pfm_users, __kuid_val(uid));
	if (!u) {
		u = kzalloc(sizeof(*u), GFP_KERNEL);
		ret = u ? xa_err(xa_store(&pfm_users, __kuid_val(uid), u,
					  GFP_KERNEL)) : -ENOMEM;
		if (ret) {
			kfree(u);
			goto out;
		}
	}
	if ((u->held[res] + n > pfm_user_limit(res) || u->held[res] + n < n) &&
	    !capable(CAP_SYS_ADMIN)) {
		ret = pfm_user_refusal(res);
		if (pfm_user_idle(u)) {
			xa_erase(&pfm_users, __kuid_val(uid));
			kfree(u);
		}
		goto out;
	}
	u->held[res] += n;
out:
	mutex_unlock(&pfm_users_lock);
	return ret;
}

void pfm_user_uncharge(kuid_t uid, enum pfm_user_res res, unsigned long n)
{
	struct pfm_user *u;

	mutex_lock(&pfm_users_lock);
	u = xa_load(&pfm_users, __kuid_val(uid));
	if (!WARN_ON_ONCE(!u || u->held[res] < n)) {
		u->held[res] -= n;
		if (pfm_user_idle(u)) {
			xa_erase(&pfm_users, __kuid_val(uid));
			kfree(u);
		}
	}
	mutex_unlock(&pfm_users_lock);
}

static unsigned int pfm_arg_limit(void)
{
	unsigned int max = READ_ONCE(pfm_arg_size_max);

	return clamp_t(unsigned int, max, PFM_ARG_SIZE_MIN, PFM_ARG_SIZE_LIMIT);
}

/*
 * CAP_PERFMON, or a member of dev_gid (or dev_gid is "any").  The ids the
 * administrator writes are the initial user namespace's: read in the
 * caller's, a user who maps its own group to dev_gid in a namespace of
 * its own would pass.
 */
static bool pfm_may_open(void)
{
	unsigned int gid = READ_ONCE(pfm_dev_gid);

	if (perfmon_capable() || gid == PFM_GROUP_ANY)
		return true;
	return gid != PFM_GROUP_NONE && pfm_in_admin_group(gid);
}

static int pfm_open(struct inode *inode, struct file *file)
{
	struct pfm_context *ctx;
	kuid_t uid = current_uid();
	int ret;

	if (!pfm_may_open())
		return -EACCES;
	ret = pfm_user_charge(uid, PFM_USER_CTX, 1);
	if (ret)
		return ret;
	ctx = pfm_ctx_alloc();
	if (!ctx) {
		pfm_user_uncharge(uid, PFM_USER_CTX, 1);
		return -ENOMEM;
	}
	ctx->owner = uid;
	file->private_data = ctx;
	return nonseekable_open(inode, file);
}

static int pfm_release(struct inode *inode, struct file *file)
{
	struct pfm_context *ctx = file->private_data;
	kuid_t uid = ctx->owner;

	pfm_ctx_free(ctx);
	pfm_user_uncharge(uid, PFM_USER_CTX, 1);
	return 0;
}

/* --- argument copying --------------------------------------------------- */

/*
 * Copy a fixed structure in: usize (from the command) must cover the
 * first version of the structure; bytes beyond what this module knows
 * must be zero (E2BIG otherwise, as copy_struct_from_user says).
 */
static int pfm_copy_in(void *karg, size_t ksize, const void __user *uarg,
		       size_t usize)
{
	if (usize < ksize)
		return -EINVAL;
	return copy_struct_from_user(karg, ksize, uarg, usize);
}

static int pfm_copy_out(void __user *uarg, size_t usize, const void *karg,
			size_t ksize)
{
	return copy_to_user(uarg, karg, min(usize, ksize)) ? -EFAULT : 0;
}

union pfm_elem {
	struct pfarg_pmc pmc;
	struct pfarg_pmd pmd;
	struct pfarg_reginfo info;
	struct pfarg_setdesc setdesc;
	struct pfarg_setinfo setinfo;
	struct pfarg_fmtinfo fmtinfo;
};

typedef int (*pfm_elem_fn)(struct pfm_context *ctx, union pfm_elem *e);

static int pfm_do_write_pmc(struct pfm_context *ctx, union pfm_elem *e)
{
	return pfm_ctx_write_pmc(ctx, &e->pmc);
}

static int pfm_do_write_pmd(struct pfm_context *ctx, union pfm_elem *e)
{
	return pfm_ctx_write_pmd(ctx, &e->pmd);
}

static int pfm_do_read_pmd(struct pfm_context *ctx, union pfm_elem *e)
{
	return pfm_ctx_read_pmd(ctx, &e->pmd);
}

static int pfm_do_create_set(struct pfm_context *ctx, union pfm_elem *e)
{
	return pfm_ctx_create_set(ctx, &e->setdesc);
}

/* only set_id is used; the rest of the element is left as it was */
static int pfm_do_delete_set(struct pfm_context *ctx, union pfm_elem *e)
{
	return pfm_ctx_delete_set(ctx, &e->setdesc);
}

static int pfm_do_info_set(struct pfm_context *ctx, union pfm_elem *e)
{
	return pfm_ctx_getinfo_set(ctx, &e->setinfo);
}

static int pfm_do_info_pmc(struct pfm_context *ctx, union pfm_elem *e)
{
	return pfm_reginfo_pmc(&e->info);
}

static int pfm_do_info_pmd(struct pfm_context *ctx, union pfm_elem *e)
{
	return pfm_reginfo_pmd(&e->info);
}

static int pfm_do_info_fmt(struct pfm_context *ctx, union pfm_elem *e)
{
	return pfm_fmt_info(&e->fmtinfo);
}

/*
 * Run fn over a vector argument, one element at a time.  Every element
 * is written back (its output fields, or the error bits of the failing
 * one); processing stops at the first error; vec_done tells how many
 * succeeded.
 */
static int pfm_vector(struct pfm_context *ctx, void __user *uarg,
		      unsigned int usize, size_t esize, pfm_elem_fn fn)
{
	struct pfarg_vec vec;
	union pfm_elem e;
	unsigned int i, n;
	u8 __user *base;
	int ret;

	ret = pfm_copy_in(&vec, sizeof(vec), uarg, usize);
	if (ret)
		return ret;
	if (vec.vec_reserved1 ||
	    memchr_inv(vec.vec_reserved2, 0, sizeof(vec.vec_reserved2)))
		return -EINVAL;
	if (vec.vec_elem_size < esize || vec.vec_elem_size % 8 ||
	    vec.vec_elem_size > PAGE_SIZE)
		return -EINVAL;
	if (!vec.vec_size || vec.vec_size % vec.vec_elem_size)
		return -EINVAL;
	if (vec.vec_size > pfm_arg_limit())
		return -E2BIG;

	n = vec.vec_size / vec.vec_elem_size;
	base = u64_to_user_ptr(vec.vec_addr);
	for (i = 0; i < n; i++) {
		u8 __user *p = base + (size_t)i * vec.vec_elem_size;
		int err;

		memset(&e, 0, sizeof(e));
		ret = copy_struct_from_user(&e, esize, p, vec.vec_elem_size);
		if (ret)
			break;
		ret = fn(ctx, &e);
		err = pfm_copy_out(p, vec.vec_elem_size, &e, esize);
		if (err)
			ret = err;
		if (ret)
			break;
	}
	vec.vec_done = i;
	if (pfm_copy_out(uarg, usize, &vec, sizeof(vec)))
		return -EFAULT;
	return ret;
}

/* --- configuration ------------------------------------------------------ */

static void pfm_fill_config(struct pfarg_config *cf)
{
	int i;

	memset(cf, 0, sizeof(*cf));
	cf->cf_version = PFM_VERSION;
	cf->cf_flags = pfm_hw_pmu ? PFM_CFG_HW_PMU : 0;
	for (i = 0; i < PFM_PMC_EXT3_BASE + PFM_NUM_COUNTERS; i++)
		cf->cf_impl_pmcs[i / 64] |= 1ULL << (i % 64);
	for (i = 0; i < PFM_NUM_COUNTERS; i++)
		cf->cf_impl_pmds[i / 64] |= 1ULL << (i % 64);
	cf->cf_sys_gid = READ_ONCE(pfm_sys_gid);
	cf->cf_thread_gid = READ_ONCE(pfm_thread_gid);
	cf->cf_arg_size_max = pfm_arg_limit();
	cf->cf_smpl_buf_size_max = READ_ONCE(pfm_smpl_buf_size_max);
	cf->cf_counter_width = 64;
	cf->cf_num_counters = PFM_NUM_COUNTERS;
	cf->cf_ctx_per_user_max = READ_ONCE(pfm_ctx_per_user_max);
}

static int pfm_get_config(void __user *uarg, unsigned int usize)
{
	struct pfarg_config cf;
	int ret;

	ret = pfm_copy_in(&cf, sizeof(cf), uarg, usize);
	if (ret)
		return ret;
	pfm_fill_config(&cf);
	return pfm_copy_out(uarg, usize, &cf, sizeof(cf));
}

/* Root only; version, flags, implemented registers and widths are ignored. */
static int pfm_set_config(void __user *uarg, unsigned int usize)
{
	struct pfarg_config cf;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = pfm_copy_in(&cf, sizeof(cf), uarg, usize);
	if (ret)
		return ret;
	if (cf.cf_reserved1 || memchr_inv(cf.cf_reserved2, 0, sizeof(cf.cf_reserved2)))
		return -EINVAL;
	if (cf.cf_arg_size_max < PFM_ARG_SIZE_MIN ||
	    cf.cf_arg_size_max > PFM_ARG_SIZE_LIMIT ||
	    cf.cf_smpl_buf_size_max < PAGE_SIZE ||
	    cf.cf_smpl_buf_size_max > PFM_SMPL_BUF_LIMIT ||
	    !cf.cf_ctx_per_user_max)
		return -EINVAL;
	WRITE_ONCE(pfm_sys_gid, cf.cf_sys_gid);
	WRITE_ONCE(pfm_thread_gid, cf.cf_thread_gid);
	WRITE_ONCE(pfm_arg_size_max, (unsigned int)cf.cf_arg_size_max);
	WRITE_ONCE(pfm_ctx_per_user_max, cf.cf_ctx_per_user_max);
	WRITE_ONCE(pfm_smpl_buf_size_max, (unsigned long)cf.cf_smpl_buf_size_max);
	return 0;
}

/* --- context commands --------------------------------------------------- */

static int pfm_cmd_create(struct pfm_context *ctx, void __user *uarg,
			  unsigned int usize)
{
	struct pfarg_ctx arg;
	int ret;

	ret = pfm_copy_in(&arg, sizeof(arg), uarg, usize);
	if (ret)
		return ret;
	ret = pfm_ctx_create(ctx, &arg);
	if (ret)
		return ret;
	arg.ctx_smpl_buf_size = ctx->smpl ? ctx->smpl->map_size : 0;
	return pfm_copy_out(uarg, usize, &arg, sizeof(arg));
}

static int pfm_cmd_load(struct pfm_context *ctx, void __user *uarg,
			unsigned int usize)
{
	struct pfarg_load ld;
	int ret;

	ret = pfm_copy_in(&ld, sizeof(ld), uarg, usize);
	return ret ? ret : pfm_ctx_load(ctx, &ld);
}

static int pfm_cmd_start(struct pfm_context *ctx, void __user *uarg,
			 unsigned int usize)
{
	struct pfarg_start st;
	int ret;

	ret = pfm_copy_in(&st, sizeof(st), uarg, usize);
	return ret ? ret : pfm_ctx_start(ctx, &st);
}

/* PFM_STOP and PFM_UNLOAD_CONTEXT: flags and reserved words, all zero */
static int pfm_cmd_flags(struct pfm_context *ctx, void __user *uarg,
			 unsigned int usize, int (*fn)(struct pfm_context *))
{
	struct pfarg_flags fl;
	int ret;

	ret = pfm_copy_in(&fl, sizeof(fl), uarg, usize);
	if (ret)
		return ret;
	if (fl.flags || fl.reserved1 ||
	    memchr_inv(fl.reserved2, 0, sizeof(fl.reserved2)))
		return -EINVAL;
	return fn(ctx);
}

/* struct pfarg_ctxinfo before ctx_smpl_ovfls was appended */
#define PFARG_CTXINFO_SIZE_VER0	offsetofend(struct pfarg_ctxinfo, ctx_reserved2)

/*
 * The first version's size or more: a caller built with the first
 * version gets the fields it knows (copy_struct_from_user() fills the
 * rest with zeros on the way in; only usize bytes go out).
 */
static int pfm_cmd_info(struct pfm_context *ctx, void __user *uarg,
			unsigned int usize)
{
	struct pfarg_ctxinfo ci;
	int ret;

	if (usize < PFARG_CTXINFO_SIZE_VER0)
		return -EINVAL;
	ret = copy_struct_from_user(&ci, sizeof(ci), uarg, usize);
	if (ret)
		return ret;
	pfm_ctx_info(ctx, &ci);
	return pfm_copy_out(uarg, usize, &ci, sizeof(ci));
}

static long pfm_ctx_ioctl(struct pfm_context *ctx, unsigned int nr,
			  void __user *uarg, unsigned int usize)
{
	switch (nr) {
	case _IOC_NR(PFM_CREATE_CONTEXT):
		return pfm_cmd_create(ctx, uarg, usize);
	case _IOC_NR(PFM_WRITE_PMCS):
		return pfm_vector(ctx, uarg, usize, sizeof(struct pfarg_pmc),
				  pfm_do_write_pmc);
	case _IOC_NR(PFM_WRITE_PMDS):
		return pfm_vector(ctx, uarg, usize, sizeof(struct pfarg_pmd),
				  pfm_do_write_pmd);
	case _IOC_NR(PFM_READ_PMDS):
		return pfm_vector(ctx, uarg, usize, sizeof(struct pfarg_pmd),
				  pfm_do_read_pmd);
	case _IOC_NR(PFM_LOAD_CONTEXT):
		return pfm_cmd_load(ctx, uarg, usize);
	case _IOC_NR(PFM_UNLOAD_CONTEXT):
		return pfm_cmd_flags(ctx, uarg, usize, pfm_ctx_unload);
	case _IOC_NR(PFM_START):
		return pfm_cmd_start(ctx, uarg, usize);
	case _IOC_NR(PFM_STOP):
		return pfm_cmd_flags(ctx, uarg, usize, pfm_ctx_stop);
	case _IOC_NR(PFM_CREATE_EVTSETS):
		return pfm_vector(ctx, uarg, usize, sizeof(struct pfarg_setdesc),
				  pfm_do_create_set);
	case _IOC_NR(PFM_DELETE_EVTSETS):
		return pfm_vector(ctx, uarg, usize, sizeof(struct pfarg_setdesc),
				  pfm_do_delete_set);
	case _IOC_NR(PFM_GETINFO_EVTSETS):
		return pfm_vector(ctx, uarg, usize, sizeof(struct pfarg_setinfo),
				  pfm_do_info_set);
	case _IOC_NR(PFM_GETINFO_CTX):
		return pfm_cmd_info(ctx, uarg, usize);
	}
	return -ENOTTY;
}

static long pfm_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct pfm_context *ctx = file->private_data;
	void __user *uarg = (void __user *)arg;
	unsigned int nr = _IOC_NR(cmd);
	unsigned int usize = _IOC_SIZE(cmd);
	long ret;

	if (_IOC_TYPE(cmd) != PFM_IOC_MAGIC ||
	    _IOC_DIR(cmd) != (_IOC_READ | _IOC_WRITE))
		return -ENOTTY;

	switch (nr) {
	case _IOC_NR(PFM_GET_CONFIG):
		return pfm_get_config(uarg, usize);
	case _IOC_NR(PFM_SET_CONFIG):
		return pfm_set_config(uarg, usize);
	case _IOC_NR(PFM_GETINFO_PMCS):
		return pfm_vector(NULL, uarg, usize, sizeof(struct pfarg_reginfo),
				  pfm_do_info_pmc);
	case _IOC_NR(PFM_GETINFO_PMDS):
		return pfm_vector(NULL, uarg, usize, sizeof(struct pfarg_reginfo),
				  pfm_do_info_pmd);
	case _IOC_NR(PFM_GETINFO_FMTS):
		return pfm_vector(NULL, uarg, usize, sizeof(struct pfarg_fmtinfo),
				  pfm_do_info_fmt);
	case _IOC_NR(PFM_CREATE_EVTSETS):
	case _IOC_NR(PFM_DELETE_EVTSETS):
	case _IOC_NR(PFM_GETINFO_EVTSETS):
	case _IOC_NR(PFM_GETINFO_CTX):
	case _IOC_NR(PFM_CREATE_CONTEXT):
	case _IOC_NR(PFM_WRITE_PMCS):
	case _IOC_NR(PFM_WRITE_PMDS):
	case _IOC_NR(PFM_READ_PMDS):
	case _IOC_NR(PFM_LOAD_CONTEXT):
	case _IOC_NR(PFM_UNLOAD_CONTEXT):
	case _IOC_NR(PFM_START):
	case _IOC_NR(PFM_STOP):
		break;
	default:
		return -ENOTTY;
	}

	mutex_lock(&ctx->lock);
	if (ctx->state == PFM_CTX_NEW && nr != _IOC_NR(PFM_CREATE_CONTEXT)) {
		ret = -EBADF;	/* not a context yet */
	} else {
		pfm_ctx_check_exit(ctx);
		ret = pfm_ctx_check_cpu(ctx, nr);
		if (!ret)
			ret = pfm_ctx_ioctl(ctx, nr, uarg, usize);
	}
	mutex_unlock(&ctx->lock);
	return ret;
}

/* --- messages ----------------------------------------------------------- */

static ssize_t pfm_read(struct file *file, char __user *buf, size_t count,
			loff_t *ppos)
{
	struct pfm_context *ctx = file->private_data;
	union pfarg_msg msg;
	size_t done = 0;
	int ret;

	if (!count || count % sizeof(msg))
		return -EINVAL;
	for (;;) {
		mutex_lock(&ctx->lock);
		if (ctx->state == PFM_CTX_NEW) {
			mutex_unlock(&ctx->lock);
			return -EBADF;
		}
		pfm_ctx_check_exit(ctx);
		while (done < count && !pfm_ctx_pop_msg(ctx, &msg)) {
			if (copy_to_user(buf + done, &msg, sizeof(msg))) {
				mutex_unlock(&ctx->lock);
				return done ? done : -EFAULT;
			}
			done += sizeof(msg);
		}
		mutex_unlock(&ctx->lock);
		if (done)
			return done;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(ctx->msg_wait,
					       pfm_ctx_has_msg(ctx) ||
					       pfm_ctx_exit_pending(ctx));
		if (ret)
			return ret;
	}
}

static __poll_t pfm_poll(struct file *file, poll_table *wait)
{
	struct pfm_context *ctx = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &ctx->msg_wait, wait);
	mutex_lock(&ctx->lock);
	if (ctx->state == PFM_CTX_NEW) {
		mask = EPOLLERR;
	} else {
		pfm_ctx_check_exit(ctx);
		if (pfm_ctx_has_msg(ctx))
			mask = EPOLLIN | EPOLLRDNORM;
	}
	mutex_unlock(&ctx->lock);
	return mask;
}

/*
 * Called with mmap_lock held: ctx->lock is not taken here (commands take
 * it and then fault on user memory, which takes mmap_lock).  The buffer
 * is published once at create and freed only at the last release.
 */
static int pfm_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct pfm_context *ctx = file->private_data;

	if (!smp_load_acquire(&ctx->smpl) && READ_ONCE(ctx->state) == PFM_CTX_NEW)
		return -EBADF;
	return pfm_smpl_mmap(ctx, vma);
}

static const struct file_operations pfm_fops = {
	.owner = THIS_MODULE,
	.open = pfm_open,
	.release = pfm_release,
	.read = pfm_read,
	.poll = pfm_poll,
	.mmap = pfm_mmap,
	.unlocked_ioctl = pfm_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = PFM_NO_LLSEEK,
};

/* --- sysfs: /sys/class/misc/perfmon/ ------------------------------------ */

static ssize_t version_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%u.%u\n", PFM_VERSION_MAJOR(PFM_VERSION),
			  PFM_VERSION_MINOR(PFM_VERSION));
}
static DEVICE_ATTR_RO(version);

static ssize_t num_counters_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", PFM_NUM_COUNTERS);
}
static DEVICE_ATTR_RO(num_counters);

static ssize_t hw_pmu_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%d\n", pfm_hw_pmu);
}
static DEVICE_ATTR_RO(hw_pmu);

static ssize_t contexts_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&pfm_nr_contexts));
}
static DEVICE_ATTR_RO(contexts);

static ssize_t pmcs_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return pfm_pmu_describe(buf, true);
}
static DEVICE_ATTR_RO(pmcs);

static ssize_t pmds_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return pfm_pmu_describe(buf, false);
}
static DEVICE_ATTR_RO(pmds);

/* the loaded sampling formats, one a line: name, UUID, " noset" */
static ssize_t formats_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return pfm_fmt_describe(buf);
}
static DEVICE_ATTR_RO(formats);

static struct attribute *pfm_attrs[] = {
	&dev_attr_version.attr,
	&dev_attr_num_counters.attr,
	&dev_attr_hw_pmu.attr,
	&dev_attr_contexts.attr,
	&dev_attr_pmcs.attr,
	&dev_attr_pmds.attr,
	&dev_attr_formats.attr,
	NULL,
};
ATTRIBUTE_GROUPS(pfm);

static struct miscdevice pfm_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "perfmon",
	.fops = &pfm_fops,
	.groups = pfm_groups,
	.mode = 0666,
};

static int __init pfm_init(void)
{
	int ret;

	ret = pfm_pmu_init();
	if (ret)
		return ret;
	ret = pfm_ctx_cache_init();
	if (ret)
		return ret;
	ret = pfm_hotplug_init();
	if (ret)
		goto out_destroy_cache;
	ret = misc_register(&pfm_misc);
	if (ret)
		goto out_hotplug;
	pr_info("perfmon: interface %u.%u, %d counters, %s\n",
		PFM_VERSION_MAJOR(PFM_VERSION), PFM_VERSION_MINOR(PFM_VERSION),
		PFM_NUM_COUNTERS,
		pfm_hw_pmu ? "hardware PMU" : "software events only");
	return 0;

out_hotplug:
	pfm_hotplug_exit();
out_destroy_cache:
	pfm_ctx_cache_destroy();
	return ret;
}

static void __exit pfm_exit(void)
{
	misc_deregister(&pfm_misc);
	pfm_ctx_free_wait();	/* every context freed */
	pfm_task_works_wait();	/* no target still in our code */
	pfm_hotplug_exit();
	pfm_ctx_cache_destroy();
	xa_destroy(&pfm_users);
}

module_init(pfm_init);
module_exit(pfm_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("perfmon2 context interface over perf_events");
MODULE_VERSION("1.0");
