// SPDX-License-Identifier: GPL-2.0
/*
 * Overflow processing of perfmon.ko, on the in-kernel perf_event
 * overflow handler: 64-bit overflow of the logical PMDs, short resets,
 * randomisation, masking and the overflow messages.
 *
 * The handler runs in interrupt context (NMI on PMUs that use it): it
 * never sleeps, never copies to user space and takes only ctx->ovfl_lock
 * (a raw spinlock, with trylock so that an NMI arriving on a CPU that
 * holds it gives up instead of deadlocking).  Wakeups and set switches
 * go through an irq_work and a work item.
 */
#include <linux/irq_work.h>
#include <linux/lockdep.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include <linux/sched/clock.h>
#include <linux/module.h>
#include <linux/math64.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/task_work.h>
#include <linux/wait.h>

#include "pfm.h"

/*
 * Park-Miller minimal standard generator (16807 * s mod 2^31 - 1), in
 * Carta's division-free form: 16807 * s is below 2^46; since 2^31 = 1
 * mod 2^31 - 1, the part above bit 31 is added back to the low part and
 * one subtraction brings the sum into range.  lib/base/random.c does the same.
 */
u32 pfm_random_step(u32 s)
{
	u64 p = 16807ULL * s;
	u64 r = (p & PFM_RANDOM_MODULUS) + (p >> 31);

	if (r >= PFM_RANDOM_MODULUS)
		r -= PFM_RANDOM_MODULUS;
	return (u32)r;
}

/* The next reset value of c from base (short or long): base + (random &
 * mask), the generator advanced before each use; remembered as the last
 * reset value. */
u64 pfm_next_reset(struct pfm_counter *c, u64 base)
{
	u64 v = base;

	if (c->flags & PFM_PMDFL_RANDOM) {
		c->rand_state = pfm_random_step(c->rand_state);
		v = base + (c->rand_state & c->random_mask);
	}
	c->last_reset = v;
	return v;
}

/* Events from PMD value pmd to its 64-bit overflow, or the longest period
 * when that is further (the handler then re-arms). */
u64 pfm_distance(u64 pmd)
{
	u64 d = -pmd;

	if (!d || d > PFM_PERIOD_MAX)
		return PFM_PERIOD_MAX;
	return d;
}

static bool pfm_ovfl_lock(struct pfm_context *ctx, unsigned long *flags);

static bool pfm_swevent_counted(const struct perf_event *ev)
{
	if (ev->attr.type == PERF_TYPE_BREAKPOINT)
		return true;
	return ev->attr.type == PERF_TYPE_SOFTWARE &&
	       ev->attr.config != PERF_COUNT_SW_CPU_CLOCK &&
	       ev->attr.config != PERF_COUNT_SW_TASK_CLOCK;
}

/*
 * Set the next interrupt of ev, from its overflow handler (or the
 * handler of another counter of the same target; ovfl_lock held): perf's
 * software and breakpoint events count period_left up to zero, and the
 * clocks re-arm their hrtimer with sample_period after the handler
 * returns.  A PMU counter is different: its driver reloaded the register
 * with the old period before it called the handler, so the new period
 * would apply one overflow late (and a sibling's reset would not move its
 * interrupt at all).  Its period_left is the new period from the overflow
 * on, and the register is written from it by the context's irq_work
 * (pfm_reload_pending()): here, possibly in NMI, perf's own code for ev
 * may be what was interrupted, and only stopping and starting ev where
 * interrupts were enabled is safe.
 */
void pfm_rearm(struct perf_event *ev, u64 period)
{
	struct hw_perf_event *hwc = &ev->hw;
	struct pfm_counter *c = ev->overflow_handler_context;

	hwc->sample_period = period;
	if (pfm_swevent_counted(ev)) {
		hwc->last_period = period;
		local64_set(&hwc->period_left, -(s64)period);
		return;
	}
	if (ev->attr.type == PERF_TYPE_SOFTWARE)
		return;		/* a clock */
	local64_set(&hwc->period_left, period);
	/* an inherited copy counts on in its own task: its period applies
	 * from its next interrupt */
	if (ev->parent || READ_ONCE(c->event) != ev)
		return;
	set_bit(c->num, c->set->ctx->reload_pmds);
	irq_work_queue(&c->set->ctx->irq_work);
}

/*
 * The irq_work, on the CPU whose handler set new periods: write them into
 * the PMU registers of the active set's events that count here (stopped
 * with the count brought up to date, which takes what they counted since
 * the overflow off period_left, then started from it).  An event that
 * does not count here any more was stopped the same way when it left, and
 * is started from period_left when it counts again.  Nor is one perf
 * throttled (its interrupts at perf's MAX_INTERRUPTS): arm64's driver
 * only disables its counter, without PERF_HES_STOPPED, and starting it
 * would undo the throttle (an interrupt storm that holds the CPU on a
 * period of a few cycles); perf starts it from period_left at the next
 * tick.
 */
static void pfm_reload_pending(struct pfm_context *ctx)
{
	unsigned long flags;
	struct pfm_set *set;
	unsigned int i;

	if (bitmap_empty(ctx->reload_pmds, PFM_NUM_COUNTERS) ||
	    !pfm_ovfl_lock(ctx, &flags))
		return;
	set = ctx->active;
	for (i = 0; i < PFM_NUM_COUNTERS; i++) {
		struct perf_event *ev;

		if (!test_and_clear_bit(i, ctx->reload_pmds) || !set)
			continue;
		ev = READ_ONCE(set->ctr[i].event);
		if (!ev || !pfm_event_counts_here(ev) ||
		    READ_ONCE(ev->hw.interrupts) == PFM_PERF_THROTTLED)
			continue;
		ev->pmu->stop(ev, PERF_EF_UPDATE);
		ev->pmu->start(ev, PERF_EF_RELOAD);
	}
	raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
}

/* Caller holds ovfl_lock. */
void pfm_queue_msg_locked(struct pfm_context *ctx, const union pfarg_msg *msg)
{
	if (ctx->msg_count == PFM_MSGQ_DEPTH) {
		ctx->msg_dropped++;
		return;
	}
	ctx->msgq[(ctx->msg_head + ctx->msg_count) % PFM_MSGQ_DEPTH] = *msg;
	ctx->msg_count++;
}

static void pfm_set_bit(u64 *bv, unsigned int n)
{
	bv[n / 64] |= 1ULL << (n % 64);
}

/* Mask: every PMD of the set reads its value of now until restart. */
static void pfm_mask(struct pfm_context *ctx, struct pfm_set *set)
{
	u64 now = pfm_set_clock_now();
	int i;

	for (i = 0; i < PFM_NUM_COUNTERS; i++) {
		struct pfm_counter *c = &set->ctr[i];
		struct perf_event *ev = READ_ONCE(c->event);

		if (!ev || c->frozen)
			continue;
		c->frozen_val = c->offset + pfm_event_count(ev);
		c->frozen = true;
	}
	if (set->act_since) {
		set->act_duration += now - set->act_since;
		set->act_since = 0;
	}
	ctx->masked = true;
}

static void pfm_notify(struct pfm_context *ctx, struct pfm_set *set,
		       struct pt_regs *regs, const u64 *pmds)
{
	union pfarg_msg msg;
	struct pfarg_ovfl_msg *m = &msg.pfm_ovfl_msg;

	if (ctx->flags & PFM_FL_OVFL_NO_MSG)
		return;
	memset(&msg, 0, sizeof(msg));
	m->msg_type = PFM_MSG_OVFL;
	m->msg_ovfl_pid = task_tgid_nr_ns(current, ctx->pid_ns);
	m->msg_ovfl_tid = task_pid_nr_ns(current, ctx->pid_ns);
	m->msg_active_set = set->id;
	m->msg_ovfl_cpu = smp_processor_id();
	if (regs && (user_mode(regs) || ctx->kernel_ip))
		m->msg_ovfl_ip = instruction_pointer(regs);
	memcpy(m->msg_ovfl_pmds, pmds, sizeof(m->msg_ovfl_pmds));
	m->msg_tstamp = local_clock();
	pfm_queue_msg_locked(ctx, &msg);
}

/*
 * The task works queued on targets (a blocked target's wait, a set
 * switch) and not finished.  They hold no module reference: one dropped
 * by the work itself, as its last call, let rmmod free the code the work
 * was still to return through.  Module exit waits for them instead
 * (pfm_task_works_wait()): until each has called pfm_task_work_done(),
 * then for an RCU-tasks grace period, which ends only once every task
 * that was running kernel code has switched voluntarily or gone back to
 * user mode, so none is still on its way out of a work's code.
 */
static atomic_t pfm_tw_pending = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(pfm_tw_wq);

/* The last call of a task work (process context). */
static void pfm_task_work_done(void)
{
	if (atomic_dec_and_test(&pfm_tw_pending))
		wake_up(&pfm_tw_wq);
}

/*
 * Module exit, every context freed: no task work is queued any more, so
 * the count only falls.  A target that sits in a ptrace stop with a
 * work queued holds the unload until it runs on (TASK_IDLE: not a hung
 * task).
 */
void pfm_task_works_wait(void)
{
	int n = atomic_read(&pfm_tw_pending);

	if (n)
		pr_info("perfmon: unload waits for %d task(s) to leave perfmon's task work\n",
			n);
	wait_event_idle(pfm_tw_wq, !atomic_read(&pfm_tw_pending));
	synchronize_rcu_tasks();
}

/*
 * The thread waits here, on its way back to user mode, for the restart.
 * A notification that blocks it again after its wake-up (an interrupt
 * of the thread itself, while this runs) finds the work still queued
 * and does not queue it: the work sees that and waits again, unless the
 * notification came after QUEUED was cleared and queued the work anew.
 */
static void pfm_block_work(struct callback_head *head)
{
	struct pfm_block *b = container_of(head, struct pfm_block, work);

	for (;;) {
		/*
		 * An exiting target does not wait: do_exit() runs the works
		 * queued until then (exit_task_work()), and there no signal
		 * ends the wait, its SIGKILL already taken or no more
		 * delivered, so a restart that never came held the exit for
		 * ever (the fd's holder waiting for it, a deadlock).  An
		 * overflow taken in the exit itself queues the work: a
		 * counter's interrupt that comes after the last user
		 * instruction, in exit_group().
		 */
		if (current->flags & PF_EXITING) {
			clear_bit(PFM_BLOCK_QUEUED, &b->flags);
			break;
		}
		if (wait_event_killable(b->wq, !test_bit(PFM_BLOCK_WAIT, &b->flags))) {
			clear_bit(PFM_BLOCK_QUEUED, &b->flags);
			break;		/* killed: it goes */
		}
		clear_bit(PFM_BLOCK_QUEUED, &b->flags);
		smp_mb__after_atomic();	/* pairs with pfm_block_locked() */
		if (!test_bit(PFM_BLOCK_WAIT, &b->flags) ||
		    test_and_set_bit(PFM_BLOCK_QUEUED, &b->flags))
			break;
	}
	pfm_block_put(b);
	pfm_task_work_done();
}

/*
 * Queue fn on current, to run on its way back to user mode, with a
 * reference on ref that fn drops, counted in pfm_tw_pending until fn
 * calls pfm_task_work_done().  False once current's exit has run its
 * works (exit_task_work()): nothing is queued then; before that, an
 * exiting task runs fn in do_exit().  NMI-safe (no lock, no wakeup).
 */
static bool pfm_queue_on_current(struct callback_head *work,
				 task_work_func_t fn, refcount_t *ref)
{
	atomic_inc(&pfm_tw_pending);
	refcount_inc(ref);
	init_task_work(work, fn);
	if (task_work_add(current, work, pfm_twa_current())) {
		refcount_dec(ref);
		atomic_dec(&pfm_tw_pending);	/* no context, no exit waits */
		return false;
	}
	return true;
}

/*
 * PFM_FL_NOTIFY_BLOCK: a notification of a per-thread context blocks its
 * target (not a thread monitoring itself, spec 3.3) until the restart.
 * The overflow is the target's own (its events count it only), so
 * current is the target.
 */
static void pfm_block_locked(struct pfm_context *ctx)
{
	struct pfm_block *b = ctx->block;

	if (!b || ctx->self || current != ctx->task ||
	    (current->flags & PF_EXITING))
		return;		/* an exiting target: pfm_block_work() */
	set_bit(PFM_BLOCK_WAIT, &b->flags);
	smp_mb__after_atomic();	/* pairs with pfm_block_work() */
	if (test_and_set_bit(PFM_BLOCK_QUEUED, &b->flags))
		return;		/* the queued (or running) work waits */
	/* not queued when the target's exit is past its works */
	if (!pfm_queue_on_current(&b->work, pfm_block_work, &b->ref))
		clear_bit(PFM_BLOCK_QUEUED, &b->flags);
}

/* A load's block (PFM_FL_NOTIFY_BLOCK), with the context's reference */
struct pfm_block *pfm_block_new(void)
{
	struct pfm_block *b = kzalloc(sizeof(*b), GFP_KERNEL_ACCOUNT);

	if (b) {
		refcount_set(&b->ref, 1);
		init_waitqueue_head(&b->wq);
	}
	return b;
}

void pfm_block_put(struct pfm_block *b)
{
	if (b && refcount_dec_and_test(&b->ref))
		kfree(b);
}

/* Let a blocked target go (ovfl_lock held). */
void pfm_unblock_locked(struct pfm_context *ctx)
{
	struct pfm_block *b = ctx->block;

	if (b && test_and_clear_bit(PFM_BLOCK_WAIT, &b->flags))
		wake_up(&b->wq);
}

/*
 * PMD c counts on from value v, its event ev at count (ovfl_lock held):
 * the handler's view of c (offset, hi) changes together, and c's next
 * interrupt is armed for v.
 */
static void pfm_counter_reload(struct pfm_counter *c, struct perf_event *ev,
			       u64 count, u64 v)
{
	c->offset = v - count;
	c->hi = v >= (1ULL << 63);
	c->gen++;
	pfm_rearm(ev, pfm_distance(v));
}

/*
 * The value to reload PMD c with, its event at count, c wrapped: v plus
 * what c counted past its last whole period of base, so that an
 * interrupt that came late (a clock's timer on a busy host, an emulated
 * PMU) does not push the next overflows back: they stay one per period
 * of the count.  Less than v's distance, so the reload is no overflow.
 */
static u64 pfm_carried(const struct pfm_counter *c, u64 count, u64 base, u64 v)
{
	u64 r, d = pfm_distance(v);

	div64_u64_rem(c->offset + count, pfm_distance(base), &r);
	return v + min(r, d - 1);
}

/* Reload c with its reset value from base, its event ev (or none) at
 * count. */
static void pfm_reset_atomic(struct pfm_counter *c, struct perf_event *ev,
			     u64 count, u64 base)
{
	u64 v = pfm_next_reset(c, base);

	if (!ev)
		c->value = v;
	else
		pfm_counter_reload(c, ev, count, v);
}

/* Mask on an overflow of c, with a notification when asked. */
static void pfm_mask_notify(struct pfm_context *ctx, struct pfm_set *set,
			    struct pfm_counter *c, struct perf_event *ev,
			    u64 count, struct pt_regs *regs, bool notify)
{
	pfm_set_bit(ctx->ovfl_pmds, c->num);
	pfm_mask(ctx, set);
	c->frozen_val = c->offset + count;
	/*
	 * With a format, c's periods while masked are the samples lost:
	 * it counts on from its last reset value (reads give frozen_val)
	 * and pfm_masked_ovfl() counts each period.  Without one, nothing
	 * is done until the restart reloads it.
	 */
	if (ctx->smpl)
		pfm_counter_reload(c, ev, count,
				   pfm_carried(c, count, c->short_reset,
					       c->last_reset));
	else
		pfm_rearm(ev, PFM_PERIOD_MAX);
	if (notify) {
		pfm_notify(ctx, set, regs, ctx->ovfl_pmds);
		pfm_block_locked(ctx);
	}
	irq_work_queue(&ctx->irq_work);
}

/* Short reset of c, wrapped, and of the PMDs in its reset_pmds, c's
 * event ev at count. */
static void pfm_short_reset(struct pfm_set *set, struct pfm_counter *c,
			    struct perf_event *ev, u64 count)
{
	u64 v = pfm_next_reset(c, c->short_reset);
	unsigned int j;

	pfm_counter_reload(c, ev, count, pfm_carried(c, count, c->short_reset, v));
	for (j = 0; j < PFM_NUM_COUNTERS; j++) {
		struct pfm_counter *r = &set->ctr[j];
		struct perf_event *rev;

		if (j == c->num || !(c->reset_pmds[j / 64] & (1ULL << (j % 64))))
			continue;
		rev = READ_ONCE(r->event);
		pfm_reset_atomic(r, rev, rev ? pfm_count_at(r, rev, c, count) : 0,
				 r->short_reset);
	}
}

/* The target switches sets itself, on its way back to user mode. */
static void pfm_switcher_work(struct callback_head *head)
{
	struct pfm_switcher *sw = container_of(head, struct pfm_switcher, work);
	struct pfm_context *ctx;
	unsigned long flags;

	mutex_lock(&sw->lock);
	ctx = sw->ctx;
	if (ctx) {
		raw_spin_lock_irqsave(&ctx->ovfl_lock, flags);
		sw->queued = false;
		raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
		pfm_ctx_switch_pending(ctx);
	}
	mutex_unlock(&sw->lock);
	if (refcount_dec_and_test(&sw->ref))
		kfree(sw);
	pfm_task_work_done();
}

/*
 * Queue the pending switch on the target itself when the timer or an
 * overflow interrupted it (ovfl_lock held); false when it cannot be (a
 * CPU context, another task, an exiting target): the work item does it.
 */
static bool pfm_switch_on_target(struct pfm_context *ctx)
{
	struct pfm_switcher *sw = ctx->switcher;

	if (!sw || !ctx->task || current != ctx->task)
		return false;
	if (sw->queued)		/* on a former target: the work item switches */
		return sw->queued_on == current;
	if (!pfm_queue_on_current(&sw->work, pfm_switcher_work, &sw->ref))
		return false;
	sw->queued = true;
	sw->queued_on = current;
	return true;
}

/*
 * An overflow made a switch due (ovfl_lock held, not masked): the target
 * switches before it runs on, so that a set switched after N overflows
 * records exactly N samples per activation.  True when the irq_work must
 * run: the work item switches (a CPU context, another task, an exiting
 * target), or the overflow came in NMI, whose return to user mode does
 * not look at TIF_NOTIFY_RESUME: the irq_work's self-interrupt makes the
 * target's way back run the task work, as for a blocking notification.
 * The work item it also schedules may switch first; the target then
 * waits for it on ctx->lock in the task work and finds the switch done,
 * so it runs none of its code in the old set either way.
 */
static bool pfm_switch_due(struct pfm_context *ctx)
{
	return !pfm_switch_on_target(ctx) || in_nmi();
}

/*
 * The overflows of PMD c that wrapped to pmd, counted from its value:
 * the one that wrapped it and every period of base (the value it would
 * have been reloaded with) that went by since.  More than one when the
 * interrupt came late: perf throttled the event (kernel.perf_event_
 * max_sample_rate), a timer ran late, an interrupt found ovfl_lock
 * taken.  An overflow is a sample or counted lost, never dropped because
 * its interrupt did not come.
 */
static u64 pfm_periods(u64 pmd, u64 base)
{
	return 1 + pmd / pfm_distance(base);
}

/*
 * PMD c of the active set went past 2^64, to pmd, the event at count,
 * not masked.  With a format, the overflows before this one that came
 * without an interrupt are counted lost.  A trigger that reaches 0
 * makes a switch due: done by the target before it runs on when the
 * overflow did not mask (pfm_switch_due()), else at the restart.
 */
static void pfm_overflow(struct pfm_context *ctx, struct pfm_set *set,
			 struct pfm_counter *c, struct perf_event *ev,
			 u64 count, u64 pmd, struct pt_regs *regs)
{
	bool kick = false, due = false;

	if ((set->flags & PFM_SETFL_OVFL_SWITCH) && c->switch_cnt &&
	    c->switch_left && !--c->switch_left) {
		pfm_set_bit(set->switch_pmds, c->num);
		ctx->switch_pending = true;
		due = true;
	}
	if (ctx->smpl) {
		/* the format records and decides (spec 4.2 step 4) */
		u64 late = pfm_periods(pmd, c->short_reset) - 1;
		unsigned int ctl = pfm_smpl_handler(ctx, set, c, count, late,
						    regs);
		bool notify = (ctl & PFM_SMPL_NOTIFY) &&
			      (c->flags & PFM_PMDFL_OVFL_NOTIFY);

		if (ctl & PFM_SMPL_MASK) {
			pfm_mask_notify(ctx, set, c, ev, count, regs, notify);
			return;
		}
		if (notify) {
			u64 pmds[PFM_PMD_BV] = { 0 };

			pfm_set_bit(pmds, c->num);
			pfm_notify(ctx, set, regs, pmds);
			kick = true;
		}
	} else if (c->flags & PFM_PMDFL_OVFL_NOTIFY) {
		/* the PMD keeps its wrapped value until the restart */
		pfm_mask_notify(ctx, set, c, ev, count, regs, true);
		return;
	}
	/* handled in the kernel: short reset of the PMD and its reset_pmds */
	pfm_short_reset(set, c, ev, count);
	if (due)
		kick |= pfm_switch_due(ctx);
	if (kick)
		irq_work_queue(&ctx->irq_work);
}

/*
 * PMD c went past 2^64, to pmd, its event at count, while masked
 * (ovfl_lock held).  Without a format the PMDs are frozen until the
 * restart reloads them.  With one, each period of c that elapses is an
 * overflow not recorded: counted lost, and c counts on as if reloaded
 * with its last reset value (the generator does not advance), so that
 * the next period is counted too.
 */
static void pfm_masked_ovfl(struct pfm_context *ctx, struct pfm_counter *c,
			    struct perf_event *ev, u64 count, u64 pmd)
{
	u64 n;

	if (!ctx->smpl) {
		pfm_rearm(ev, PFM_PERIOD_MAX);
		return;
	}
	n = pfm_periods(pmd, c->last_reset);
	ctx->smpl->ovfls += n;
	ctx->smpl->lost += n;
	pfm_counter_reload(c, ev, count,
			   pfm_carried(c, count, c->last_reset, c->last_reset));
}

/*
 * With a format, the overflows of PMD c (of the active set, its event at
 * count) that no interrupt has processed yet are counted lost: true
 * when there are some.  Called (ovfl_lock held) before process context
 * reloads c, as an interrupt may be waiting for the lock: its overflows
 * happened before the reload, which would drop them.
 */
bool pfm_ovfl_pending_locked(struct pfm_context *ctx, struct pfm_counter *c,
			     u64 count)
{
	u64 pmd = c->offset + count, n;

	lockdep_assert_held(&ctx->ovfl_lock);
	if (!ctx->smpl || c->set != ctx->active || !c->hi ||
	    pmd >= (1ULL << 63))
		return false;
	n = pfm_periods(pmd, ctx->masked ? c->last_reset : c->short_reset);
	ctx->smpl->ovfls += n;
	ctx->smpl->lost += n;
	if (!ctx->masked)
		ctx->smpl->late += n;
	return true;
}

/*
 * With a format, the overflows of the active set's PMDs that no
 * interrupt has processed yet (perf throttled the event, or its events
 * were disabled just after a PMD wrapped) are counted lost, and the PMDs
 * reloaded as those overflows would have: called once the set's events
 * are disabled (stop, set switch, unload), so that the counts are whole
 * when the tool reads them.
 */
void pfm_flush_overflows(struct pfm_context *ctx)
{
	struct pfm_set *set = ctx->active;
	unsigned long flags;
	int i;

	lockdep_assert_held(&ctx->lock);
	if (!ctx->smpl)
		return;
	raw_spin_lock_irqsave(&ctx->ovfl_lock, flags);
	for (i = 0; i < PFM_NUM_COUNTERS; i++) {
		struct pfm_counter *c = &set->ctr[i];
		struct perf_event *ev = c->event;	/* ctx->lock: stays */
		u64 count;

		if (!ev)
			continue;
		count = local64_read(&ev->count) + pfm_exited_copies(ev);
		if (!pfm_ovfl_pending_locked(ctx, c, count))
			continue;
		if (ctx->masked)
			pfm_counter_reload(c, ev, count,
					   pfm_carried(c, count, c->last_reset,
						       c->last_reset));
		else
			pfm_short_reset(set, c, ev, count);
	}
	raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
}

/*
 * Take ovfl_lock from the overflow handler.  In NMI (a hardware PMU's
 * interrupt, or a breakpoint hit in the kernel: x86 enters both as NMIs)
 * only a trylock is safe: this CPU may hold the lock.  Otherwise the
 * holder runs on another CPU with interrupts off, for a few
 * instructions, unless its virtual CPU is not running (a loaded host):
 * wait for it, up to 10 ms.  When the lock is not taken the interrupt is
 * not processed: the PMD counts on, and the next interrupt (or the flush
 * at stop or unload) counts the overflows it missed from its value.
 */
#define PFM_OVFL_LOCK_WAIT_NS	(10 * NSEC_PER_MSEC)

static bool pfm_ovfl_lock(struct pfm_context *ctx, unsigned long *flags)
{
	u64 until;

	if (raw_spin_trylock_irqsave(&ctx->ovfl_lock, *flags))
		return true;
	if (in_nmi())
		return false;
	until = local_clock() + PFM_OVFL_LOCK_WAIT_NS;
	do {
		cpu_relax();
		if (raw_spin_trylock_irqsave(&ctx->ovfl_lock, *flags))
			return true;
	} while (local_clock() < until);
	return false;
}

/*
 * perf calls an event's handler on the interrupt that throttles it
 * (hw.interrupts then at MAX_INTERRUPTS): until the next tick unthrottles
 * it, a clock or a PMU counter is stopped, so what the PMDs count and the
 * overflows they take both fall short of what ran.  Counted, so that the
 * tool says so instead of printing short figures as whole.
 */
static void pfm_note_throttle(struct pfm_context *ctx, struct perf_event *ev)
{
	if (READ_ONCE(ev->hw.interrupts) == PFM_PERF_THROTTLED)
		atomic64_inc(&ctx->throttled);
}

void pfm_ovfl_handler(struct perf_event *ev, struct perf_sample_data *data,
		      struct pt_regs *regs)
{
	struct pfm_counter *c = ev->overflow_handler_context;
	struct pfm_set *set = c->set;
	struct pfm_context *ctx = set->ctx;
	unsigned long flags;
	u64 count, pmd;

	pfm_note_throttle(ctx, ev);
	if (ev->parent) {
		/* an inherited copy: overflows are processed on the target */
		pfm_rearm(ev, PFM_PERIOD_MAX);
		return;
	}
	if (!pfm_ovfl_lock(ctx, &flags))
		return;
	if (READ_ONCE(c->event) != ev || set != ctx->active) {
		pfm_rearm(ev, PFM_PERIOD_MAX);
		goto out;
	}
	count = local64_read(&ev->count) + pfm_exited_copies(ev);
	pmd = c->offset + count;
	if (!c->hi || pmd >= (1ULL << 63)) {
		/* early, or a long period's step: not wrapped yet */
		c->hi = pmd >= (1ULL << 63);
		pfm_rearm(ev, pfm_distance(pmd));
		goto out;
	}
	if (ctx->masked)
		pfm_masked_ovfl(ctx, c, ev, count, pmd);
	else
		pfm_overflow(ctx, set, c, ev, count, pmd, regs);
out:
	raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
}

/* The set-switch timer: the active set's timeout has run out. */
void pfm_timer_handler(struct perf_event *ev, struct perf_sample_data *data,
		       struct pt_regs *regs)
{
	struct pfm_context *ctx = ev->overflow_handler_context;
	unsigned long flags;

	pfm_note_throttle(ctx, ev);
	if (ev->parent)
		return;
	if (!pfm_ovfl_lock(ctx, &flags))
		return;
	/* not the timer of a load gone: an unload does not wait for the
	 * grace period, and clears switch_pending under this lock after
	 * the timer is gone */
	if (ev == READ_ONCE(ctx->timer) && !ctx->masked && ctx->active &&
	    (ctx->active->flags & PFM_SETFL_TIME_SWITCH)) {
		ctx->switch_pending = true;
		if (!pfm_switch_on_target(ctx))
			irq_work_queue(&ctx->irq_work);
	}
	raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
}

/* Hard interrupt context, after the handler: wake readers, switch sets. */
void pfm_irq_work(struct irq_work *w)
{
	struct pfm_context *ctx = container_of(w, struct pfm_context, irq_work);

	pfm_reload_pending(ctx);
	wake_up_interruptible(&ctx->msg_wait);
	if (READ_ONCE(ctx->switch_pending))
		schedule_work(&ctx->switch_work);
}
