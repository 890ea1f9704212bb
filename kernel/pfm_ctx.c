// SPDX-License-Identifier: GPL-2.0
/*
 * The perfmon context: its state machine (unloaded, loaded stopped,
 * loaded started), its counters and its message queue.  Every function
 * here except allocation runs with ctx->lock held.
 */
#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/pid.h>
#include <linux/ptrace.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "pfm.h"

atomic_t pfm_nr_contexts = ATOMIC_INIT(0);

static struct kmem_cache *pfm_ctx_cache;

/* loaded contexts, for "one context per thread, one per CPU" */
static DEFINE_MUTEX(pfm_loaded_lock);
static LIST_HEAD(pfm_loaded_list);

int pfm_ctx_cache_init(void)
{
	pfm_ctx_cache = kmem_cache_create("perfmon_context",
					  sizeof(struct pfm_context), 0,
					  SLAB_ACCOUNT, NULL);
	return pfm_ctx_cache ? 0 : -ENOMEM;
}

void pfm_ctx_cache_destroy(void)
{
	kmem_cache_destroy(pfm_ctx_cache);
}

struct pfm_context *pfm_ctx_alloc(void)
{
	struct pfm_context *ctx = kmem_cache_zalloc(pfm_ctx_cache, GFP_KERNEL);

	if (!ctx)
		return NULL;
	mutex_init(&ctx->lock);
	init_waitqueue_head(&ctx->msg_wait);
	spin_lock_init(&ctx->msg_lock);
	INIT_LIST_HEAD(&ctx->loaded);
	ctx->state = PFM_CTX_NEW;
	ctx->cpu = -1;
	atomic_inc(&pfm_nr_contexts);
	return ctx;
}

/* --- messages ----------------------------------------------------------- */

static void pfm_queue_msg(struct pfm_context *ctx, const union pfarg_msg *msg)
{
	unsigned long flags;

	spin_lock_irqsave(&ctx->msg_lock, flags);
	if (ctx->msg_count == PFM_MSGQ_DEPTH) {
		ctx->msg_dropped++;
	} else {
		ctx->msgq[(ctx->msg_head + ctx->msg_count) % PFM_MSGQ_DEPTH] = *msg;
		ctx->msg_count++;
	}
	spin_unlock_irqrestore(&ctx->msg_lock, flags);
	wake_up_interruptible(&ctx->msg_wait);
}

static void pfm_reset_msgq(struct pfm_context *ctx)
{
	unsigned long flags;

	spin_lock_irqsave(&ctx->msg_lock, flags);
	ctx->msg_head = 0;
	ctx->msg_count = 0;
	spin_unlock_irqrestore(&ctx->msg_lock, flags);
}

bool pfm_ctx_has_msg(struct pfm_context *ctx)
{
	return READ_ONCE(ctx->msg_count) != 0;
}

/* Take the message at the head of the queue: 0, or -EAGAIN when empty. */
int pfm_ctx_pop_msg(struct pfm_context *ctx, union pfarg_msg *msg)
{
	unsigned long flags;
	int ret = -EAGAIN;

	spin_lock_irqsave(&ctx->msg_lock, flags);
	if (ctx->msg_count) {
		*msg = ctx->msgq[ctx->msg_head];
		ctx->msg_head = (ctx->msg_head + 1) % PFM_MSGQ_DEPTH;
		ctx->msg_count--;
		ret = 0;
	}
	spin_unlock_irqrestore(&ctx->msg_lock, flags);
	return ret;
}

/* --- counters ----------------------------------------------------------- */

static int pfm_counter_attach(struct pfm_context *ctx, struct pfm_counter *c)
{
	struct perf_event_attr attr;
	struct perf_event *ev;
	int ret;

	ret = pfm_evtsel_to_attr(c, &attr);
	if (ret)
		return ret;
	attr.disabled = !ctx->started;
	attr.inherit = !!(ctx->load_flags & PFM_LOADFL_INHERIT);
	attr.enable_on_exec = !!(ctx->load_flags & PFM_LOADFL_ENABLE_ON_EXEC);
	if (ctx->task)
		ev = perf_event_create_kernel_counter(&attr, -1, ctx->task,
						      NULL, NULL);
	else
		ev = perf_event_create_kernel_counter(&attr, ctx->cpu, NULL,
						      NULL, NULL);
	if (IS_ERR(ev))
		return PTR_ERR(ev);
	c->event = ev;
	c->offset = c->value;
	return 0;
}

/* Fold the event's count and times into the software state, release it. */
static void pfm_counter_detach(struct pfm_counter *c)
{
	u64 count, enabled, running;

	if (!c->event)
		return;
	count = perf_event_read_value(c->event, &enabled, &running);
	c->value = c->offset + count;
	c->enabled += enabled;
	c->running += running;
	perf_event_release_kernel(c->event);
	c->event = NULL;
}

static void pfm_counter_read(struct pfm_counter *c, struct pfarg_pmd *pmd)
{
	u64 count, enabled = 0, running = 0;

	if (c->event) {
		count = perf_event_read_value(c->event, &enabled, &running);
		pmd->reg_value = c->offset + count;
	} else {
		pmd->reg_value = c->value;
	}
	pmd->reg_time_enabled = c->enabled + enabled;
	pmd->reg_time_running = c->running + running;
}

/* --- the target's exit -------------------------------------------------- */

/*
 * Woken from the pid's pidfd wait queue when the target process has
 * ended (atomic context: only flag it and wake the readers; the
 * context is unloaded under its lock by the next command, read or poll).
 */
static int pfm_exit_wake(struct wait_queue_entry *wait, unsigned int mode,
			 int sync, void *key)
{
	struct pfm_context *ctx = container_of(wait, struct pfm_context, exit_wait);

	WRITE_ONCE(ctx->exit_seen, true);
	wake_up_interruptible(&ctx->msg_wait);
	return 0;
}

static void pfm_watch_exit(struct pfm_context *ctx)
{
	ctx->pid = get_task_pid(ctx->task, PIDTYPE_PID);
	init_waitqueue_func_entry(&ctx->exit_wait, pfm_exit_wake);
	add_wait_queue(&ctx->pid->wait_pidfd, &ctx->exit_wait);
}

static void pfm_unwatch_exit(struct pfm_context *ctx)
{
	if (!ctx->pid)
		return;
	remove_wait_queue(&ctx->pid->wait_pidfd, &ctx->exit_wait);
	put_pid(ctx->pid);
	ctx->pid = NULL;
}

/* --- load and unload ---------------------------------------------------- */

/* The caller itself, or a ptrace-stopped child of the caller's process. */
static bool pfm_may_monitor(struct task_struct *task)
{
	struct task_struct *tracer;
	bool ok;

	if (task == current)
		return true;
	if (task->flags & PF_KTHREAD)
		return false;
	rcu_read_lock();
	tracer = ptrace_parent(task);
	ok = tracer && same_thread_group(tracer, current) && task_is_traced(task);
	rcu_read_unlock();
	return ok;
}

static struct task_struct *pfm_get_target(u32 tid)
{
	struct task_struct *task;

	if (!tid) {
		get_task_struct(current);
		return current;
	}
	if (tid > PID_MAX_LIMIT)
		return ERR_PTR(-ESRCH);
	rcu_read_lock();
	task = pid_task(find_vpid(tid), PIDTYPE_PID);
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	if (!task)
		return ERR_PTR(-ESRCH);
	if (!pfm_may_monitor(task)) {
		put_task_struct(task);
		return ERR_PTR(-EPERM);
	}
	if (task->exit_state || (task->flags & PF_EXITING)) {
		put_task_struct(task);
		return ERR_PTR(-ESRCH);
	}
	return task;
}

static bool pfm_target_busy(struct task_struct *task, int cpu)
{
	struct pfm_context *other;

	list_for_each_entry(other, &pfm_loaded_list, loaded) {
		if (task && other->task == task)
			return true;
		if (!task && !other->task && other->cpu == cpu)
			return true;
	}
	return false;
}

static void pfm_detach_all(struct pfm_context *ctx)
{
	int i;

	for (i = 0; i < PFM_NUM_COUNTERS; i++)
		pfm_counter_detach(&ctx->ctr[i]);
}

static int pfm_check_load(struct pfm_context *ctx, const struct pfarg_load *ld)
{
	if (ctx->state != PFM_CTX_UNLOADED)
		return -EBUSY;
	if (ld->load_reserved1 || memchr_inv(ld->load_reserved2, 0,
					     sizeof(ld->load_reserved2)))
		return -EINVAL;
	if (ld->load_set)
		return -EINVAL;		/* only set0 exists */
	if (ld->load_flags & ~(PFM_LOADFL_INHERIT | PFM_LOADFL_ENABLE_ON_EXEC))
		return -EINVAL;
	if (!(ctx->flags & PFM_FL_SYSTEM_WIDE))
		return ld->load_cpu ? -EINVAL : 0;
	if (ld->load_pid || ld->load_flags)
		return -EINVAL;
	if (ld->load_cpu >= nr_cpu_ids || !cpu_online(ld->load_cpu))
		return -EINVAL;
	if (!perfmon_capable())
		return -EPERM;
	return 0;
}

int pfm_ctx_load(struct pfm_context *ctx, const struct pfarg_load *ld)
{
	struct task_struct *task = NULL;
	int ret, i;

	ret = pfm_check_load(ctx, ld);
	if (ret)
		return ret;
	if (!(ctx->flags & PFM_FL_SYSTEM_WIDE)) {
		task = pfm_get_target(ld->load_pid);
		if (IS_ERR(task))
			return PTR_ERR(task);
	}

	mutex_lock(&pfm_loaded_lock);
	if (pfm_target_busy(task, ld->load_cpu)) {
		ret = -EBUSY;
		goto out_unlock;
	}
	ctx->task = task;
	ctx->cpu = task ? -1 : (int)ld->load_cpu;
	ctx->load_flags = ld->load_flags;
	ctx->started = false;
	ctx->self = task == current;
	for (i = 0; i < PFM_NUM_COUNTERS; i++) {
		if (!ctx->ctr[i].evtsel)
			continue;
		ret = pfm_counter_attach(ctx, &ctx->ctr[i]);
		if (ret)
			goto out_detach;
	}
	list_add(&ctx->loaded, &pfm_loaded_list);
	mutex_unlock(&pfm_loaded_lock);

	pfm_reset_msgq(ctx);
	ctx->exit_seen = false;
	if (task)
		pfm_watch_exit(ctx);
	ctx->state = PFM_CTX_LOADED;
	return 0;

out_detach:
	pfm_detach_all(ctx);
	ctx->task = NULL;
	ctx->cpu = -1;
out_unlock:
	mutex_unlock(&pfm_loaded_lock);
	if (task)
		put_task_struct(task);
	return ret;
}

static void pfm_do_unload(struct pfm_context *ctx)
{
	pfm_detach_all(ctx);
	pfm_unwatch_exit(ctx);
	WRITE_ONCE(ctx->exit_seen, false);
	mutex_lock(&pfm_loaded_lock);
	list_del_init(&ctx->loaded);
	mutex_unlock(&pfm_loaded_lock);
	if (ctx->task)
		put_task_struct(ctx->task);
	ctx->task = NULL;
	ctx->cpu = -1;
	ctx->started = false;
	ctx->state = PFM_CTX_UNLOADED;
}

int pfm_ctx_unload(struct pfm_context *ctx)
{
	if (ctx->state != PFM_CTX_LOADED)
		return -EBUSY;
	pfm_do_unload(ctx);
	return 0;
}

/*
 * A monitored thread that has ended leaves the context unloaded with its
 * final counts, and (unless it was monitoring itself) a PFM_MSG_END.
 */
void pfm_ctx_check_exit(struct pfm_context *ctx)
{
	union pfarg_msg msg;

	if (ctx->state != PFM_CTX_LOADED || !ctx->task ||
	    !READ_ONCE(ctx->task->exit_state)) {
		WRITE_ONCE(ctx->exit_seen, false);
		return;
	}
	if (!ctx->self) {
		memset(&msg, 0, sizeof(msg));
		msg.type = PFM_MSG_END;
		pfm_do_unload(ctx);
		pfm_queue_msg(ctx, &msg);
		return;
	}
	pfm_do_unload(ctx);
}

bool pfm_ctx_exit_pending(struct pfm_context *ctx)
{
	return READ_ONCE(ctx->exit_seen);
}

void pfm_ctx_free(struct pfm_context *ctx)
{
	mutex_lock(&ctx->lock);
	if (ctx->state == PFM_CTX_LOADED)
		pfm_do_unload(ctx);
	mutex_unlock(&ctx->lock);
	mutex_destroy(&ctx->lock);
	kmem_cache_free(pfm_ctx_cache, ctx);
	atomic_dec(&pfm_nr_contexts);
}

/* --- create, start, stop ------------------------------------------------ */

int pfm_ctx_create(struct pfm_context *ctx, const struct pfarg_ctx *arg)
{
	u32 known = PFM_FL_NOTIFY_BLOCK | PFM_FL_SYSTEM_WIDE |
		    PFM_FL_SMPL_FMT | PFM_FL_OVFL_NO_MSG;
	unsigned int gid;

	if (ctx->state != PFM_CTX_NEW)
		return -EBUSY;
	if (arg->ctx_flags & ~known || arg->ctx_reserved1 ||
	    memchr_inv(arg->ctx_reserved2, 0, sizeof(arg->ctx_reserved2)))
		return -EINVAL;
	if ((arg->ctx_flags & PFM_FL_NOTIFY_BLOCK) &&
	    (arg->ctx_flags & PFM_FL_SYSTEM_WIDE))
		return -EINVAL;		/* spec Table 3.2 */
	/* notifications and sampling formats are not implemented yet */
	if (arg->ctx_flags & (PFM_FL_NOTIFY_BLOCK | PFM_FL_SMPL_FMT))
		return -EOPNOTSUPP;
	if (arg->ctx_smpl_name || arg->ctx_smpl_arg || arg->ctx_smpl_arg_size)
		return -EINVAL;

	if (arg->ctx_flags & PFM_FL_SYSTEM_WIDE) {
		gid = READ_ONCE(pfm_sys_gid);
		if (!perfmon_capable())
			return -EPERM;
	} else {
		gid = READ_ONCE(pfm_thread_gid);
	}
	if (gid != PFM_GROUP_ANY && !in_group_p(make_kgid(current_user_ns(), gid)) &&
	    !capable(CAP_SYS_ADMIN))
		return -EPERM;

	ctx->flags = arg->ctx_flags;
	ctx->state = PFM_CTX_UNLOADED;
	return 0;
}

int pfm_ctx_start(struct pfm_context *ctx, const struct pfarg_start *st)
{
	int i;

	if (st->start_flags & ~(PFM_STARTFL_SET | PFM_STARTFL_RESTART) ||
	    st->start_reserved1 ||
	    memchr_inv(st->start_reserved2, 0, sizeof(st->start_reserved2)))
		return -EINVAL;
	if (!(st->start_flags & PFM_STARTFL_SET) && st->start_set)
		return -EINVAL;
	if (ctx->state != PFM_CTX_LOADED)
		return -EBUSY;
	if (st->start_set)
		return -EINVAL;		/* only set0 exists */
	/* nothing masks monitoring without overflow notification */
	if (st->start_flags & PFM_STARTFL_RESTART)
		return -EBUSY;
	for (i = 0; i < PFM_NUM_COUNTERS; i++)
		if (ctx->ctr[i].event)
			perf_event_enable(ctx->ctr[i].event);
	ctx->started = true;
	return 0;
}

int pfm_ctx_stop(struct pfm_context *ctx)
{
	int i;

	if (ctx->state != PFM_CTX_LOADED)
		return -EBUSY;
	for (i = 0; i < PFM_NUM_COUNTERS; i++)
		if (ctx->ctr[i].event)
			perf_event_disable(ctx->ctr[i].event);
	ctx->started = false;
	return 0;
}

/* --- registers ---------------------------------------------------------- */

static int pfm_reg_fail(u32 *flags, u32 retfl, int err)
{
	*flags |= retfl;
	return err;
}

int pfm_ctx_write_pmc(struct pfm_context *ctx, struct pfarg_pmc *pmc)
{
	unsigned int n = pmc->reg_num;
	struct pfm_counter *c, next;
	u32 retfl = 0;
	u64 *reg;
	int ret;

	if (n >= PFM_PMC_EXT2_BASE + PFM_NUM_COUNTERS)
		return pfm_reg_fail(&pmc->reg_flags, PFM_REG_RETFL_NOTAVAIL, -EINVAL);
	if (pmc->reg_set)
		return pfm_reg_fail(&pmc->reg_flags, PFM_REG_RETFL_NOSET, -EINVAL);
	if (pmc->reg_flags & PFM_PMCFL_NO_EMUL64)
		return pfm_reg_fail(&pmc->reg_flags, PFM_REG_RETFL_NOTSUPP, -EOPNOTSUPP);
	if (pmc->reg_flags ||
	    memchr_inv(pmc->reg_reserved2, 0, sizeof(pmc->reg_reserved2)))
		return pfm_reg_fail(&pmc->reg_flags, PFM_REG_RETFL_EINVAL, -EINVAL);

	c = &ctx->ctr[n % PFM_NUM_COUNTERS];
	next = *c;
	if (n < PFM_PMC_EXT1_BASE)
		reg = &next.evtsel;
	else if (n < PFM_PMC_EXT2_BASE)
		reg = &next.ext1;
	else
		reg = &next.ext2;
	*reg = pmc->reg_value;
	ret = pfm_evtsel_check(next.evtsel, next.ext1, next.ext2, &retfl);
	if (ret)
		return pfm_reg_fail(&pmc->reg_flags, retfl, ret);

	if (ctx->state != PFM_CTX_LOADED) {
		c->evtsel = next.evtsel;
		c->ext1 = next.ext1;
		c->ext2 = next.ext2;
		return 0;
	}
	/* loaded: a new event replaces the old one, the PMD keeps its count */
	pfm_counter_detach(c);
	c->evtsel = next.evtsel;
	c->ext1 = next.ext1;
	c->ext2 = next.ext2;
	if (!c->evtsel)
		return 0;
	ret = pfm_counter_attach(ctx, c);
	if (ret) {
		c->evtsel = 0;
		return pfm_reg_fail(&pmc->reg_flags, PFM_REG_RETFL_EINVAL, ret);
	}
	return 0;
}

static int pfm_check_pmd(struct pfarg_pmd *pmd)
{
	if (pmd->reg_num >= PFM_NUM_COUNTERS)
		return pfm_reg_fail(&pmd->reg_flags, PFM_REG_RETFL_NOTAVAIL, -EINVAL);
	if (pmd->reg_set)
		return pfm_reg_fail(&pmd->reg_flags, PFM_REG_RETFL_NOSET, -EINVAL);
	if (pmd->reg_reserved1 ||
	    memchr_inv(pmd->reg_reserved2, 0, sizeof(pmd->reg_reserved2)))
		return pfm_reg_fail(&pmd->reg_flags, PFM_REG_RETFL_EINVAL, -EINVAL);
	return 0;
}

int pfm_ctx_write_pmd(struct pfm_context *ctx, struct pfarg_pmd *pmd)
{
	u32 known = PFM_PMDFL_SMPL | PFM_PMDFL_SWITCH | PFM_PMDFL_OVFL_NOTIFY |
		    PFM_PMDFL_RANDOM;
	struct pfm_counter *c;
	u64 count, enabled, running;
	int ret;

	ret = pfm_check_pmd(pmd);
	if (ret)
		return ret;
	if (pmd->reg_flags & ~known)
		return pfm_reg_fail(&pmd->reg_flags, PFM_REG_RETFL_EINVAL, -EINVAL);
	/* overflow processing, sampling and set switching come later */
	if (pmd->reg_flags || pmd->reg_long_reset || pmd->reg_short_reset ||
	    pmd->reg_ovfl_switch_cnt || pmd->reg_smpl_eventid ||
	    pmd->reg_random_mask || pmd->reg_random_seed ||
	    memchr_inv(pmd->reg_reset_pmds, 0, sizeof(pmd->reg_reset_pmds)) ||
	    memchr_inv(pmd->reg_smpl_pmds, 0, sizeof(pmd->reg_smpl_pmds)))
		return pfm_reg_fail(&pmd->reg_flags, PFM_REG_RETFL_NOTSUPP,
				    -EOPNOTSUPP);

	c = &ctx->ctr[pmd->reg_num];
	if (c->event) {
		count = perf_event_read_value(c->event, &enabled, &running);
		c->offset = pmd->reg_value - count;
	} else {
		c->value = pmd->reg_value;
	}
	return 0;
}

int pfm_ctx_read_pmd(struct pfm_context *ctx, struct pfarg_pmd *pmd)
{
	int ret = pfm_check_pmd(pmd);

	if (ret)
		return ret;
	if (pmd->reg_flags)
		return pfm_reg_fail(&pmd->reg_flags, PFM_REG_RETFL_EINVAL, -EINVAL);
	pfm_counter_read(&ctx->ctr[pmd->reg_num], pmd);
	/* no overflow processing yet: every reset and sampling field is 0 */
	pmd->reg_long_reset = 0;
	pmd->reg_short_reset = 0;
	pmd->reg_last_reset_val = 0;
	pmd->reg_ovfl_switch_cnt = 0;
	memset(pmd->reg_reset_pmds, 0, sizeof(pmd->reg_reset_pmds));
	memset(pmd->reg_smpl_pmds, 0, sizeof(pmd->reg_smpl_pmds));
	pmd->reg_smpl_eventid = 0;
	pmd->reg_random_mask = 0;
	pmd->reg_random_seed = 0;
	return 0;
}
