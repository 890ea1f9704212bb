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

/* --- commands ----------------------------------------------------------- */

/*
 * Every command's argument is copied in before ctx->lock is taken and
 * written back after it is dropped.  A user copy can sleep in a fault for
 * as long as the caller's memory wants (userfaultfd, FUSE, a stopped
 * NFS server), and the target's task work takes ctx->lock, at its exit
 * too: with a copy under the lock, the caller could hold its target in
 * do_exit for ever.  Only PFM_CREATE_CONTEXT's format argument is read
 * under the lock (pfm_smpl_create): a context being created has no
 * target yet, and none can be loaded until the command returns.
 */

/* The fixed-size arguments */
union pfm_fixed {
	struct pfarg_ctx ctx;
	struct pfarg_load ld;
	struct pfarg_start st;
	struct pfarg_flags fl;
	struct pfarg_ctxinfo ci;
	struct pfarg_config cf;
};

/*
 * A command: the size of its argument (a vector's: of one element), the
 * smallest size the caller may pass for a fixed argument, and what runs
 * it: on the argument's kernel copy, or on each element of a vector.
 */
struct pfm_cmd {
	unsigned int nr;
	bool vector;
	bool on_ctx;		/* under ctx->lock, on a created context */
	bool write_back;	/* a fixed argument goes back on success */
	size_t size;
	size_t min_size;
	int (*run)(struct pfm_context *ctx, void *arg);
};

/* A vector argument in kernel memory */
struct pfm_vec_arg {
	struct pfarg_vec vec;
	void *elems;		/* n elements of esize bytes */
	size_t esize;
	unsigned int n;		/* elements copied in */
	int in_err;		/* the error copying element n in; 0: none */
	unsigned int ran;	/* elements run, a failing one included */
	unsigned int done;	/* elements run with success */
};

static void *pfm_vec_elem(struct pfm_vec_arg *va, unsigned int i)
{
	return (u8 *)va->elems + (size_t)i * va->esize;
}

static u8 __user *pfm_vec_uelem(struct pfm_vec_arg *va, unsigned int i)
{
	return (u8 __user *)u64_to_user_ptr(va->vec.vec_addr) +
	       (size_t)i * va->vec.vec_elem_size;
}

/*
 * Copy a vector in: its header, checked, then each element, whose bytes
 * beyond what this module knows must be zero (E2BIG, as
 * copy_struct_from_user says).  An element that cannot be copied ends
 * the vector there: the ones before it still run (in_err).
 */
static int pfm_vec_in(struct pfm_vec_arg *va, const void __user *uarg,
		      unsigned int usize, size_t esize)
{
	struct pfarg_vec *vec = &va->vec;
	unsigned int i, n;
	int ret;

	memset(va, 0, sizeof(*va));
	if (usize < sizeof(*vec))
		return -EINVAL;
	ret = copy_struct_from_user(vec, sizeof(*vec), uarg, usize);
	if (ret)
		return ret;
	if (vec->vec_reserved1 ||
	    memchr_inv(vec->vec_reserved2, 0, sizeof(vec->vec_reserved2)))
		return -EINVAL;
	if (vec->vec_elem_size < esize || vec->vec_elem_size % 8 ||
	    vec->vec_elem_size > PAGE_SIZE)
		return -EINVAL;
	if (!vec->vec_size || vec->vec_size % vec->vec_elem_size)
		return -EINVAL;
	if (vec->vec_size > pfm_arg_limit())
		return -E2BIG;

	n = vec->vec_size / vec->vec_elem_size;
	va->esize = esize;
	va->elems = kvcalloc(n, esize, GFP_KERNEL_ACCOUNT);
	if (!va->elems)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		ret = copy_struct_from_user(pfm_vec_elem(va, i), esize,
					    pfm_vec_uelem(va, i),
					    vec->vec_elem_size);
		if (ret) {
			va->in_err = ret;
			break;
		}
	}
	va->n = i;
	return 0;
}

/* Run each element copied in; stop at the first that fails. */
static int pfm_vec_run(struct pfm_context *ctx, struct pfm_vec_arg *va,
		       int (*run)(struct pfm_context *, void *))
{
	unsigned int i;
	int ret;

	for (i = 0; i < va->n; i++) {
		ret = run(ctx, pfm_vec_elem(va, i));
		va->ran = i + 1;
		if (ret) {
			va->done = i;
			return ret;
		}
	}
	va->done = va->n;
	return va->in_err;
}

/*
 * Write back every element run (its output fields, or the error bits of
 * the failing one), then the header, whose vec_done counts the elements
 * that succeeded and were written back.
 */
static int pfm_vec_out(struct pfm_vec_arg *va, void __user *uarg,
		       unsigned int usize, int ret)
{
	unsigned int i;

	for (i = 0; i < va->ran; i++) {
		if (copy_to_user(pfm_vec_uelem(va, i), pfm_vec_elem(va, i),
				 va->esize)) {
			va->done = min(va->done, i);
			ret = -EFAULT;
			break;
		}
	}
	va->vec.vec_done = va->done;
	if (copy_to_user(uarg, &va->vec, min_t(size_t, usize, sizeof(va->vec))))
		return -EFAULT;
	return ret;
}

static int pfm_run_write_pmc(struct pfm_context *ctx, void *e)
{
	return pfm_ctx_write_pmc(ctx, e);
}

static int pfm_run_write_pmd(struct pfm_context *ctx, void *e)
{
	return pfm_ctx_write_pmd(ctx, e);
}

static int pfm_run_read_pmd(struct pfm_context *ctx, void *e)
{
	return pfm_ctx_read_pmd(ctx, e);
}

static int pfm_run_create_set(struct pfm_context *ctx, void *e)
{
	return pfm_ctx_create_set(ctx, e);
}

/* only set_id is used; the rest of the element is left as it was */
static int pfm_run_delete_set(struct pfm_context *ctx, void *e)
{
	return pfm_ctx_delete_set(ctx, e);
}

static int pfm_run_info_set(struct pfm_context *ctx, void *e)
{
	return pfm_ctx_getinfo_set(ctx, e);
}

static int pfm_run_info_pmc(struct pfm_context *ctx, void *e)
{
	return pfm_reginfo_pmc(e);
}

static int pfm_run_info_pmd(struct pfm_context *ctx, void *e)
{
	return pfm_reginfo_pmd(e);
}

static int pfm_run_info_fmt(struct pfm_context *ctx, void *e)
{
	return pfm_fmt_info(e);
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

static int pfm_run_get_config(struct pfm_context *ctx, void *arg)
{
	pfm_fill_config(arg);
	return 0;
}

/* Root only; version, flags, implemented registers and widths are ignored. */
static int pfm_run_set_config(struct pfm_context *ctx, void *arg)
{
	struct pfarg_config *cf = arg;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (cf->cf_reserved1 ||
	    memchr_inv(cf->cf_reserved2, 0, sizeof(cf->cf_reserved2)))
		return -EINVAL;
	if (cf->cf_arg_size_max < PFM_ARG_SIZE_MIN ||
	    cf->cf_arg_size_max > PFM_ARG_SIZE_LIMIT ||
	    cf->cf_smpl_buf_size_max < PAGE_SIZE ||
	    cf->cf_smpl_buf_size_max > PFM_SMPL_BUF_LIMIT ||
	    !cf->cf_ctx_per_user_max)
		return -EINVAL;
	WRITE_ONCE(pfm_sys_gid, cf->cf_sys_gid);
	WRITE_ONCE(pfm_thread_gid, cf->cf_thread_gid);
	WRITE_ONCE(pfm_arg_size_max, (unsigned int)cf->cf_arg_size_max);
	WRITE_ONCE(pfm_ctx_per_user_max, cf->cf_ctx_per_user_max);
	WRITE_ONCE(pfm_smpl_buf_size_max, (unsigned long)cf->cf_smpl_buf_size_max);
	return 0;
}

/* --- context commands --------------------------------------------------- */

static int pfm_run_create(struct pfm_context *ctx, void *arg)
{
	struct pfarg_ctx *c = arg;
	int ret;

	ret = pfm_ctx_create(ctx, c);
	if (!ret)
		c->ctx_smpl_buf_size = ctx->smpl ? ctx->smpl->map_size : 0;
	return ret;
}

static int pfm_run_load(struct pfm_context *ctx, void *arg)
{
	return pfm_ctx_load(ctx, arg);
}

static int pfm_run_start(struct pfm_context *ctx, void *arg)
{
	return pfm_ctx_start(ctx, arg);
}

/* PFM_STOP and PFM_UNLOAD_CONTEXT: flags and reserved words, all zero */
static bool pfm_flags_valid(const struct pfarg_flags *fl)
{
	return !fl->flags && !fl->reserved1 &&
	       !memchr_inv(fl->reserved2, 0, sizeof(fl->reserved2));
}

static int pfm_run_stop(struct pfm_context *ctx, void *arg)
{
	return pfm_flags_valid(arg) ? pfm_ctx_stop(ctx) : -EINVAL;
}

static int pfm_run_unload(struct pfm_context *ctx, void *arg)
{
	return pfm_flags_valid(arg) ? pfm_ctx_unload(ctx) : -EINVAL;
}

static int pfm_run_info(struct pfm_context *ctx, void *arg)
{
	pfm_ctx_info(ctx, arg);
	return 0;
}

/* struct pfarg_ctxinfo before ctx_smpl_ovfls was appended */
#define PFARG_CTXINFO_SIZE_VER0	offsetofend(struct pfarg_ctxinfo, ctx_reserved2)

#define PFM_FIXED(cmd, ctx_, back, type, min, fn) \
	{ .nr = _IOC_NR(cmd), .on_ctx = ctx_, .write_back = back, \
	  .size = sizeof(type), .min_size = min, .run = fn }
#define PFM_VECTOR(cmd, ctx_, type, fn) \
	{ .nr = _IOC_NR(cmd), .vector = true, .on_ctx = ctx_, \
	  .size = sizeof(type), .run = fn }

/*
 * A fixed argument's first version is the smallest accepted; a caller
 * built with it gets the fields it knows (copy_struct_from_user() fills
 * the rest with zeros on the way in; only usize bytes go out).
 */
static const struct pfm_cmd pfm_cmds[] = {
	PFM_FIXED(PFM_GET_CONFIG, false, true, struct pfarg_config,
		  sizeof(struct pfarg_config), pfm_run_get_config),
	PFM_FIXED(PFM_SET_CONFIG, false, false, struct pfarg_config,
		  sizeof(struct pfarg_config), pfm_run_set_config),
	PFM_VECTOR(PFM_GETINFO_PMCS, false, struct pfarg_reginfo, pfm_run_info_pmc),
	PFM_VECTOR(PFM_GETINFO_PMDS, false, struct pfarg_reginfo, pfm_run_info_pmd),
	PFM_VECTOR(PFM_GETINFO_FMTS, false, struct pfarg_fmtinfo, pfm_run_info_fmt),
	PFM_FIXED(PFM_CREATE_CONTEXT, true, true, struct pfarg_ctx,
		  sizeof(struct pfarg_ctx), pfm_run_create),
	PFM_VECTOR(PFM_WRITE_PMCS, true, struct pfarg_pmc, pfm_run_write_pmc),
	PFM_VECTOR(PFM_WRITE_PMDS, true, struct pfarg_pmd, pfm_run_write_pmd),
	PFM_VECTOR(PFM_READ_PMDS, true, struct pfarg_pmd, pfm_run_read_pmd),
	PFM_FIXED(PFM_LOAD_CONTEXT, true, false, struct pfarg_load,
		  sizeof(struct pfarg_load), pfm_run_load),
	PFM_FIXED(PFM_UNLOAD_CONTEXT, true, false, struct pfarg_flags,
		  sizeof(struct pfarg_flags), pfm_run_unload),
	PFM_FIXED(PFM_START, true, false, struct pfarg_start,
		  sizeof(struct pfarg_start), pfm_run_start),
	PFM_FIXED(PFM_STOP, true, false, struct pfarg_flags,
		  sizeof(struct pfarg_flags), pfm_run_stop),
	PFM_VECTOR(PFM_CREATE_EVTSETS, true, struct pfarg_setdesc, pfm_run_create_set),
	PFM_VECTOR(PFM_DELETE_EVTSETS, true, struct pfarg_setdesc, pfm_run_delete_set),
	PFM_VECTOR(PFM_GETINFO_EVTSETS, true, struct pfarg_setinfo, pfm_run_info_set),
	PFM_FIXED(PFM_GETINFO_CTX, true, true, struct pfarg_ctxinfo,
		  PFARG_CTXINFO_SIZE_VER0, pfm_run_info),
};

static const struct pfm_cmd *pfm_find_cmd(unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pfm_cmds); i++)
		if (pfm_cmds[i].nr == nr)
			return &pfm_cmds[i];
	return NULL;
}

/* Run a command on its argument's kernel copy, under ctx->lock if it is
 * the context's. */
static int pfm_run_cmd(struct pfm_context *ctx, const struct pfm_cmd *cmd,
		       void *arg)
{
	int ret;

	if (!cmd->on_ctx)
		return cmd->vector ? pfm_vec_run(NULL, arg, cmd->run) :
				     cmd->run(NULL, arg);
	mutex_lock(&ctx->lock);
	pfm_ctx_check_exit(ctx);
	ret = pfm_ctx_check_cpu(ctx, cmd->nr);
	if (!ret)
		ret = cmd->vector ? pfm_vec_run(ctx, arg, cmd->run) :
				    cmd->run(ctx, arg);
	mutex_unlock(&ctx->lock);
	return ret;
}

static long pfm_ioctl_vector(struct pfm_context *ctx, const struct pfm_cmd *cmd,
			     void __user *uarg, unsigned int usize)
{
	struct pfm_vec_arg va;
	int ret;

	ret = pfm_vec_in(&va, uarg, usize, cmd->size);
	if (!ret) {
		ret = pfm_run_cmd(ctx, cmd, &va);
		ret = pfm_vec_out(&va, uarg, usize, ret);
	}
	kvfree(va.elems);
	return ret;
}

static long pfm_ioctl_fixed(struct pfm_context *ctx, const struct pfm_cmd *cmd,
			    void __user *uarg, unsigned int usize)
{
	union pfm_fixed arg;
	int ret;

	if (usize < cmd->min_size)
		return -EINVAL;
	ret = copy_struct_from_user(&arg, cmd->size, uarg, usize);
	if (ret)
		return ret;
	ret = pfm_run_cmd(ctx, cmd, &arg);
	if (ret || !cmd->write_back)
		return ret;
	if (copy_to_user(uarg, &arg, min_t(size_t, usize, cmd->size)))
		return -EFAULT;
	return 0;
}

static long pfm_ioctl(struct file *file, unsigned int cmd_nr, unsigned long arg)
{
	struct pfm_context *ctx = file->private_data;
	const struct pfm_cmd *cmd;

	if (_IOC_TYPE(cmd_nr) != PFM_IOC_MAGIC ||
	    _IOC_DIR(cmd_nr) != (_IOC_READ | _IOC_WRITE))
		return -ENOTTY;
	cmd = pfm_find_cmd(_IOC_NR(cmd_nr));
	if (!cmd)
		return -ENOTTY;
	/* not a context yet, whatever the argument: checked once, before
	 * the copy and the lock, as a context once created stays one (its
	 * state leaves NEW only under ctx->lock, which the command takes
	 * after) */
	if (cmd->on_ctx && cmd->nr != _IOC_NR(PFM_CREATE_CONTEXT) &&
	    READ_ONCE(ctx->state) == PFM_CTX_NEW)
		return -EBADF;
	if (cmd->vector)
		return pfm_ioctl_vector(ctx, cmd, (void __user *)arg,
					_IOC_SIZE(cmd_nr));
	return pfm_ioctl_fixed(ctx, cmd, (void __user *)arg, _IOC_SIZE(cmd_nr));
}

/* --- messages ----------------------------------------------------------- */

/* messages popped under ctx->lock at a time, copied out after it */
#define PFM_READ_BATCH	4

/*
 * Pop up to max messages into msgs under ctx->lock; the number popped,
 * or -EBADF before PFM_CREATE_CONTEXT.
 */
static int pfm_pop_msgs(struct pfm_context *ctx, union pfarg_msg *msgs,
			int max)
{
	int n = 0;

	mutex_lock(&ctx->lock);
	if (ctx->state == PFM_CTX_NEW) {
		mutex_unlock(&ctx->lock);
		return -EBADF;
	}
	pfm_ctx_check_exit(ctx);
	while (n < max && !pfm_ctx_pop_msg(ctx, &msgs[n]))
		n++;
	mutex_unlock(&ctx->lock);
	return n;
}

static ssize_t pfm_read(struct file *file, char __user *buf, size_t count,
			loff_t *ppos)
{
	struct pfm_context *ctx = file->private_data;
	union pfarg_msg msgs[PFM_READ_BATCH];
	size_t done = 0, size, left;
	int n, ret;

	if (!count || count % sizeof(msgs[0]))
		return -EINVAL;
	for (;;) {
		n = pfm_pop_msgs(ctx, msgs, min_t(size_t, PFM_READ_BATCH,
						  (count - done) / sizeof(msgs[0])));
		if (n < 0)
			return n;
		if (n) {
			/* a message that could not be copied is lost, as
			 * one read into a bad buffer is anywhere */
			size = n * sizeof(msgs[0]);
			left = copy_to_user(buf + done, msgs, size);
			done += rounddown(size - left, sizeof(msgs[0]));
			if (left)
				return done ? done : -EFAULT;
			if (n == PFM_READ_BATCH && done < count)
				continue;	/* there may be more */
		}
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
