// SPDX-License-Identifier: GPL-2.0
/*
 * The perfmon context: its state machine (unloaded, loaded stopped,
 * loaded started), its counters and its message queue.  Every function
 * here except allocation runs with ctx->lock held.
 */
#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>

#include "pfm.h"

atomic_t pfm_nr_contexts = ATOMIC_INIT(0);

static struct kmem_cache *pfm_ctx_cache;
/* closed contexts, freed a grace period after their close */
static struct workqueue_struct *pfm_free_wq;

/* loaded contexts, for "one context per thread, one per CPU" */
static DEFINE_MUTEX(pfm_loaded_lock);
static LIST_HEAD(pfm_loaded_list);

int pfm_ctx_cache_init(void)
{
	pfm_ctx_cache = kmem_cache_create("perfmon_context",
					  sizeof(struct pfm_context), 0,
					  SLAB_ACCOUNT, NULL);
	if (!pfm_ctx_cache)
		return -ENOMEM;
	pfm_free_wq = alloc_workqueue("perfmon_free", 0, 0);
	if (!pfm_free_wq) {
		kmem_cache_destroy(pfm_ctx_cache);
		return -ENOMEM;
	}
	return 0;
}

/* Every closed context freed, and no handler of a released event left in
 * the module's code (module exit: no file is open). */
void pfm_ctx_free_wait(void)
{
	synchronize_rcu();
	rcu_barrier();			/* each free is queued... */
	flush_workqueue(pfm_free_wq);	/* ...and done */
}

void pfm_ctx_cache_destroy(void)
{
	pfm_ctx_free_wait();
	destroy_workqueue(pfm_free_wq);
	kmem_cache_destroy(pfm_ctx_cache);
}

static struct pfm_set *pfm_set_alloc(struct pfm_context *ctx, u16 id)
{
	struct pfm_set *set = kzalloc(sizeof(*set), GFP_KERNEL_ACCOUNT);
	int i;

	if (!set)
		return NULL;
	set->ctx = ctx;
	set->id = id;
	for (i = 0; i < PFM_NUM_COUNTERS; i++) {
		set->ctr[i].set = set;
		set->ctr[i].num = i;
	}
	return set;
}

static struct pfm_set *pfm_find_set(struct pfm_context *ctx, unsigned int id)
{
	struct pfm_set *set;

	list_for_each_entry(set, &ctx->sets, list)
		if (set->id == id)
			return set;
	return NULL;
}

static void pfm_switch_work(struct work_struct *w);
static void pfm_revive_work(struct work_struct *w);

struct pfm_context *pfm_ctx_alloc(void)
{
	struct pfm_context *ctx = kmem_cache_zalloc(pfm_ctx_cache, GFP_KERNEL);
	struct pfm_set *set0;

	if (!ctx)
		return NULL;
	ctx->switcher = kzalloc(sizeof(*ctx->switcher), GFP_KERNEL_ACCOUNT);
	set0 = pfm_set_alloc(ctx, 0);
	if (!set0 || !ctx->switcher) {
		kfree(set0);
		kfree(ctx->switcher);
		kmem_cache_free(pfm_ctx_cache, ctx);
		return NULL;
	}
	refcount_set(&ctx->switcher->ref, 1);
	mutex_init(&ctx->switcher->lock);
	ctx->switcher->ctx = ctx;
	mutex_init(&ctx->lock);
	init_waitqueue_head(&ctx->msg_wait);
	raw_spin_lock_init(&ctx->ovfl_lock);
	init_irq_work(&ctx->irq_work, pfm_irq_work);
	INIT_WORK(&ctx->switch_work, pfm_switch_work);
	INIT_WORK(&ctx->revive_work, pfm_revive_work);
	INIT_LIST_HEAD(&ctx->loaded);
	INIT_LIST_HEAD(&ctx->sets);
	list_add(&set0->list, &ctx->sets);
	ctx->nsets = 1;
	ctx->active = set0;
	ctx->state = PFM_CTX_NEW;
	ctx->cpu = -1;
	/* messages and samples name tasks as the opener sees them, as perf
	 * does an event's (0 for a task outside its namespace) */
	ctx->pid_ns = get_pid_ns(task_active_pid_ns(current));
	atomic_inc(&pfm_nr_contexts);
	return ctx;
}

/* --- messages ----------------------------------------------------------- */

static void pfm_queue_msg(struct pfm_context *ctx, const union pfarg_msg *msg)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&ctx->ovfl_lock, flags);
	pfm_queue_msg_locked(ctx, msg);
	raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
	wake_up_interruptible(&ctx->msg_wait);
}

static void pfm_reset_msgq(struct pfm_context *ctx)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&ctx->ovfl_lock, flags);
	ctx->msg_head = 0;
	ctx->msg_count = 0;
	raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
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

	raw_spin_lock_irqsave(&ctx->ovfl_lock, flags);
	if (ctx->msg_count) {
		*msg = ctx->msgq[ctx->msg_head];
		ctx->msg_head = (ctx->msg_head + 1) % PFM_MSGQ_DEPTH;
		ctx->msg_count--;
		ret = 0;
	}
	raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
	return ret;
}

/* --- counters ----------------------------------------------------------- */

/* The PMD value of a loaded counter, and its event's times. */
static u64 pfm_counter_value_raw(struct pfm_context *ctx, struct pfm_counter *c,
				 u64 *enabled, u64 *running, u64 *raw)
{
	unsigned long flags;
	u64 count = 0, v;
	int tries = 0;
	bool again;
	u32 gen;

	*enabled = 0;
	*running = 0;
	*raw = 0;
	if (!c->event)
		return c->value;
	do {
		gen = READ_ONCE(c->gen);
		smp_rmb();
		count = perf_event_read_value(c->event, enabled, running);
		*raw = count;
		raw_spin_lock_irqsave(&ctx->ovfl_lock, flags);
		v = c->frozen ? c->frozen_val : c->offset + count;
		again = c->gen != gen;
		raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
	} while (again && ++tries < 4);
	return v;
}

/* The PMD value; *enabled and *running: its event's times (0 without). */
static u64 pfm_counter_value(struct pfm_context *ctx, struct pfm_counter *c,
			     u64 *enabled, u64 *running)
{
	u64 raw;

	return pfm_counter_value_raw(ctx, c, enabled, running, &raw);
}

/*
 * Arm c's next interrupt for its value now (process context).
 * perf_event_period() makes the event's next occurrence interrupt
 * (period_left 0), and the handler then sets the period from the PMD;
 * the clocks take the distance as their next period.  The handler's
 * view of the PMD (offset, hi) is not touched: it changes only with the
 * count it was computed from, under ovfl_lock.
 */
static void pfm_counter_arm(struct pfm_context *ctx, struct pfm_counter *c)
{
	u64 en, run, v;

	if (!c->event)
		return;
	v = pfm_counter_value(ctx, c, &en, &run);
	perf_event_period(c->event, pfm_distance(v));
}

/*
 * Set the PMD value counting continues from.  The offset is taken under
 * ovfl_lock from the event's count as the overflow handler reads it at
 * that moment (perf_event_read_value() first folds a hardware counter
 * in; an inherited event's copies are added as it adds them): an event
 * the target counts meanwhile cannot leave the handler with a PMD past
 * v that it takes for not wrapped.  Overflows before the reload that no
 * interrupt has processed yet are counted first.
 */
static void pfm_counter_set(struct pfm_context *ctx, struct pfm_counter *c,
			    u64 v)
{
	struct perf_event *ev = c->event;
	unsigned long flags;
	u64 count, children = 0, en, run;

	if (!ev) {
		c->value = v;
		return;
	}
	count = perf_event_read_value(ev, &en, &run);
	if (ev->attr.inherit)
		children = count - local64_read(&ev->count);
	raw_spin_lock_irqsave(&ctx->ovfl_lock, flags);
	count = local64_read(&ev->count);
	/* the overflow path's count: the exited copies' with it */
	pfm_ovfl_pending_locked(ctx, c, count + pfm_exited_copies(ev));
	count += children;
	c->offset = v - count;
	c->frozen_val = v;
	c->hi = v >= (1ULL << 63);
	c->gen++;
	raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
	perf_event_period(ev, pfm_distance(v));
}

static bool pfm_counting(struct pfm_context *ctx, struct pfm_set *set)
{
	return ctx->started && set == ctx->active;
}

/*
 * An inherited event's task context, pinned while the event lives.  perf
 * swaps the contexts of a task and of a child cloned from it at a switch
 * between the two on one CPU, instead of scheduling each out and in:
 * the target's own events then count in the child, the child's copies in
 * the target, and when the child exits the target is left with copies
 * that PFM_STOP cannot stop (perf disables a kernel counter's event
 * alone, never its copies).  Seen as a refused stop after the child had
 * gone, on a loaded host.  A pinned context is never swapped (perf's
 * context_equiv()); pin_count is perf's own count, under the context's
 * lock, which the event's reference keeps alive.
 */
static void pfm_ctx_pin(struct perf_event *ev, int by)
{
	struct perf_event_context *pctx = ev->ctx;
	unsigned long flags;

	if (!ev->attr.inherit || !pctx)
		return;
	raw_spin_lock_irqsave(&pctx->lock, flags);
	pctx->pin_count += by;
	raw_spin_unlock_irqrestore(&pctx->lock, flags);
}

/*
 * Create c's event and publish it (ctx->lock held).  The event and the
 * offset it counts from are published together under ovfl_lock, from
 * c's value at that moment: an overflow of another PMD may reset c
 * (reset_pmds) while the event is being created, and the handler, on
 * any CPU, sees either no event and c->value, or the event and its
 * offset.
 */
static int pfm_counter_attach(struct pfm_context *ctx, struct pfm_counter *c)
{
	struct perf_event_attr attr;
	struct perf_event *ev;
	unsigned long flags;
	u64 v;
	int ret;

	ret = pfm_evtsel_to_attr(c, &attr);
	if (ret)
		return ret;
	attr.disabled = 1;
	attr.sample_period = pfm_distance(c->value);
	attr.inherit = !!(ctx->load_flags & PFM_LOADFL_INHERIT);
	attr.enable_on_exec = c->set == ctx->active &&
			      (ctx->load_flags & PFM_LOADFL_ENABLE_ON_EXEC);
	/* each event is charged to the context's owner (events_per_user_max) */
	ret = pfm_user_charge(ctx->owner, PFM_USER_EVENTS, 1);
	if (ret)
		return ret;
	if (ctx->task)
		ev = perf_event_create_kernel_counter(&attr, -1, ctx->task,
						      pfm_ovfl_handler, c);
	else
		ev = perf_event_create_kernel_counter(&attr, ctx->cpu, NULL,
						      pfm_ovfl_handler, c);
	if (IS_ERR(ev)) {
		pfm_user_uncharge(ctx->owner, PFM_USER_EVENTS, 1);
		return PTR_ERR(ev);
	}
	pfm_ctx_pin(ev, 1);
	c->act_start_count = 0;		/* a new event counts from 0 */
	c->act_start_running = 0;
	raw_spin_lock_irqsave(&ctx->ovfl_lock, flags);
	v = c->value;
	c->offset = v - local64_read(&ev->count);
	c->hi = v >= (1ULL << 63);
	c->frozen = false;
	c->gen++;
	WRITE_ONCE(c->event, ev);
	raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
	if (pfm_distance(v) != attr.sample_period)
		perf_event_period(ev, pfm_distance(v));
	if (pfm_counting(ctx, c->set))
		perf_event_enable(ev);
	return 0;
}

/* What c's event, at raw count and running ns, counted and ran since
 * its set's activation began (ctx->lock held). */
static void pfm_act_since(const struct pfm_counter *c, u64 raw, u64 running,
			  u64 *count, u64 *time)
{
	*count = 0;
	*time = 0;
	if (c->event && raw >= c->act_start_count && running >= c->act_start_running) {
		*count = raw - c->act_start_count;
		*time = running - c->act_start_running;
	}
}

static void pfm_act_delta(struct pfm_counter *c, u64 *count, u64 *time)
{
	u64 enabled, running, raw = 0;

	running = 0;
	if (c->event)
		raw = perf_event_read_value(c->event, &enabled, &running);
	pfm_act_since(c, raw, running, count, time);
}

/* c's set's activation ends (its event disabled or going): into its sums,
 * and the next one starts from here. */
static void pfm_counter_act_end(struct pfm_counter *c)
{
	u64 count, time;

	pfm_act_delta(c, &count, &time);
	pfm_act_add(&c->act, count, time);
	c->act_start_count += count;
	c->act_start_running += time;
}

/*
 * Fold the event's count and times into the software state, release it
 * (ctx->lock held).  The value and the cleared event are published
 * together under ovfl_lock, as pfm_counter_attach() publishes them, so a
 * handler on another CPU never follows a pointer that is going, and a
 * reset it makes meanwhile lands in the value kept.  The event is
 * released after: from then on no handler can reach it through c.
 */
static void pfm_counter_detach(struct pfm_context *ctx, struct pfm_counter *c)
{
	struct perf_event *ev = c->event;
	u64 enabled, running, total, children = 0;
	unsigned long flags;

	if (!ev)
		return;
	pfm_counter_act_end(c);
	total = perf_event_read_value(ev, &enabled, &running);
	if (ev->attr.inherit)
		children = total - local64_read(&ev->count);
	c->enabled += enabled;
	c->running += running;
	raw_spin_lock_irqsave(&ctx->ovfl_lock, flags);
	c->value = c->frozen ? c->frozen_val :
		   c->offset + local64_read(&ev->count) + children;
	c->frozen = false;
	c->gen++;
	WRITE_ONCE(c->event, NULL);
	raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
	pfm_ctx_pin(ev, -1);
	perf_event_release_kernel(ev);
	pfm_user_uncharge(ctx->owner, PFM_USER_EVENTS, 1);
}

/* The PMD value, times and activation sums (with the activation in
 * progress so far), from one read of its event. */
static void pfm_counter_read(struct pfm_context *ctx, struct pfm_counter *c,
			     struct pfarg_pmd *pmd)
{
	struct pfm_act act = c->act;
	u64 enabled, running, raw, count, time;

	pmd->reg_value = pfm_counter_value_raw(ctx, c, &enabled, &running, &raw);
	pmd->reg_time_enabled = c->enabled + enabled;
	pmd->reg_time_running = c->running + running;
	if (pfm_counting(ctx, c->set)) {
		pfm_act_since(c, raw, running, &count, &time);
		pfm_act_add(&act, count, time);
	}
	pmd->reg_act_time = act.time;
	pmd->reg_act_time2_us = act.time2_us;
	pmd->reg_act_count = act.count;
	pmd->reg_act_count2_ms = act.count2_ms;
}

/* Enable or disable the events of a set (loaded). */
static void pfm_set_enable(struct pfm_set *set, bool on)
{
	int i;

	for (i = 0; i < PFM_NUM_COUNTERS; i++) {
		struct perf_event *ev = set->ctr[i].event;

		if (!ev)
			continue;
		if (on)
			perf_event_enable(ev);
		else
			perf_event_disable(ev);
	}
}

/* Start or end the active set's active time (ctx->lock held). */
static void pfm_set_clock(struct pfm_context *ctx, bool run)
{
	struct pfm_set *set = ctx->active;
	unsigned long flags;
	u64 now = pfm_set_clock_now();

	raw_spin_lock_irqsave(&ctx->ovfl_lock, flags);
	if (set->act_since) {
		set->act_duration += now - set->act_since;
		set->act_since = 0;
	}
	if (run && !ctx->masked)
		set->act_since = now;
	raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
}

/* The active set's triggers get their full overflow counts again. */
static void pfm_set_arm_triggers(struct pfm_context *ctx, struct pfm_set *set)
{
	unsigned long flags;
	int i;

	raw_spin_lock_irqsave(&ctx->ovfl_lock, flags);
	for (i = 0; i < PFM_NUM_COUNTERS; i++)
		set->ctr[i].switch_left = set->ctr[i].switch_cnt;
	raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
}

static u64 pfm_timer_period(struct pfm_set *set)
{
	return (set->flags & PFM_SETFL_TIME_SWITCH) ? set->timeout : PFM_PERIOD_MAX;
}

static struct pfm_set *pfm_next_set(struct pfm_context *ctx, struct pfm_set *set)
{
	struct pfm_set *next;

	if (set->flags & PFM_SETFL_EXPL_NEXT) {
		next = pfm_find_set(ctx, set->id_next);
		if (next)
			return next;
	}
	if (list_is_last(&set->list, &ctx->sets))
		return list_first_entry(&ctx->sets, struct pfm_set, list);
	return list_next_entry(set, list);
}

/* Make next the active set (loaded; ctx->lock held). */
static void pfm_switch_to(struct pfm_context *ctx, struct pfm_set *next)
{
	struct pfm_set *cur = ctx->active;
	unsigned long flags;
	int i;

	if (ctx->started) {
		pfm_set_clock(ctx, false);
		if (next != cur) {
			pfm_set_enable(cur, false);
			pfm_flush_overflows(ctx);
			for (i = 0; i < PFM_NUM_COUNTERS; i++)
				pfm_counter_act_end(&cur->ctr[i]);
		}
	}
	raw_spin_lock_irqsave(&ctx->ovfl_lock, flags);
	ctx->active = next;
	next->runs++;
	ctx->switch_pending = false;
	raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
	pfm_set_arm_triggers(ctx, next);
	if (ctx->timer)
		perf_event_period(ctx->timer, pfm_timer_period(next));
	if (ctx->started) {
		if (next != cur)
			pfm_set_enable(next, true);
		pfm_set_clock(ctx, true);
	}
}

/* Switch to the next set if a switch is still due (takes ctx->lock). */
void pfm_ctx_switch_pending(struct pfm_context *ctx)
{
	mutex_lock(&ctx->lock);
	if (ctx->state == PFM_CTX_LOADED && ctx->started && !ctx->masked &&
	    READ_ONCE(ctx->switch_pending))
		pfm_switch_to(ctx, pfm_next_set(ctx, ctx->active));
	mutex_unlock(&ctx->lock);
}

static void pfm_switch_work(struct work_struct *w)
{
	pfm_ctx_switch_pending(container_of(w, struct pfm_context, switch_work));
}

/* --- CPU hotplug --------------------------------------------------------- */

/*
 * How many times each CPU went offline.  perf takes a CPU's events off
 * it when it goes (they stay off when it comes back), so a system-wide
 * context compares the count with the one its events were made at.  The
 * hotplug callbacks take no context's lock: they run with the hotplug
 * lock held for writing, and creating events takes it for reading
 * (static keys) with the context's lock held.
 */
static atomic_t *pfm_cpu_down_count;
static enum cpuhp_state pfm_cpuhp_dead, pfm_cpuhp_online;

static unsigned int pfm_cpu_downs(int cpu)
{
	return atomic_read(&pfm_cpu_down_count[cpu]);
}

/*
 * Counted once the CPU is dead (a prepare state's teardown runs on
 * another CPU then), after perf took its events off it
 * (CPUHP_AP_PERF_ONLINE's teardown comes before): a command that sees
 * the count change sees the CPU offline too.  Counted at the
 * CPUHP_AP_ONLINE_DYN teardown, the count changed while the CPU was
 * still online with perf's events on it: a command then made the events
 * again, perf took those off next, and the context never counted again.
 */
static int pfm_cpu_dead(unsigned int cpu)
{
	atomic_inc(&pfm_cpu_down_count[cpu]);
	return 0;
}

/*
 * Back online, perf's side too (CPUHP_AP_PERF_ONLINE comes up before):
 * the CPU's system-wide contexts are made again now, each by its work
 * item (which takes its lock), not at their next command only: one whose
 * reader waits in poll() or read() for an overflow would wait for ever.
 */
static int pfm_cpu_online(unsigned int cpu)
{
	struct pfm_context *ctx;

	mutex_lock(&pfm_loaded_lock);
	list_for_each_entry(ctx, &pfm_loaded_list, loaded)
		if (!ctx->task && ctx->cpu == (int)cpu)
			queue_work(system_wq, &ctx->revive_work);
	mutex_unlock(&pfm_loaded_lock);
	return 0;
}

int pfm_hotplug_init(void)
{
	int ret;

	pfm_cpu_down_count = kcalloc(nr_cpu_ids, sizeof(atomic_t), GFP_KERNEL);
	if (!pfm_cpu_down_count)
		return -ENOMEM;
	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "perfmon:dead",
					NULL, pfm_cpu_dead);
	if (ret < 0)
		goto out_free;
	pfm_cpuhp_dead = ret;
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "perfmon:online",
					pfm_cpu_online, NULL);
	if (ret < 0)
		goto out_dead;
	pfm_cpuhp_online = ret;
	return 0;

out_dead:
	cpuhp_remove_state_nocalls(pfm_cpuhp_dead);
out_free:
	kfree(pfm_cpu_down_count);
	return ret;
}

void pfm_hotplug_exit(void)
{
	cpuhp_remove_state_nocalls(pfm_cpuhp_online);
	cpuhp_remove_state_nocalls(pfm_cpuhp_dead);
	kfree(pfm_cpu_down_count);
}

static int pfm_timer_attach(struct pfm_context *ctx);

/* Make a system-wide context's events again on its CPU, back online,
 * each PMD counting on from the value it had when the CPU went. */
static int pfm_ctx_revive(struct pfm_context *ctx)
{
	struct pfm_set *set;
	int i, ret;

	if (ctx->timer) {
		perf_event_release_kernel(ctx->timer);
		WRITE_ONCE(ctx->timer, NULL);
	}
	list_for_each_entry(set, &ctx->sets, list) {
		for (i = 0; i < PFM_NUM_COUNTERS; i++) {
			struct pfm_counter *c = &set->ctr[i];

			if (!c->event)
				continue;
			pfm_counter_detach(ctx, c);
			ret = pfm_counter_attach(ctx, c);
			if (ret)
				return ret;
		}
	}
	ret = pfm_timer_attach(ctx);
	if (ret)
		return ret;
	if (ctx->started && ctx->timer)
		perf_event_enable(ctx->timer);
	return 0;
}

/*
 * A loaded system-wide context (ctx->lock held): 0 while its events are
 * on its CPU, made again if it went offline and is back; -ENODEV while
 * it is offline, or if its events cannot be made yet.
 */
static int pfm_ctx_revive_if_back(struct pfm_context *ctx)
{
	unsigned int downs;

	if (ctx->state != PFM_CTX_LOADED || ctx->task || ctx->cpu < 0)
		return 0;
	downs = pfm_cpu_downs(ctx->cpu);
	if (downs == ctx->cpu_downs && cpu_online(ctx->cpu))
		return 0;
	if (!cpu_online(ctx->cpu) || pfm_ctx_revive(ctx))
		return -ENODEV;
	ctx->cpu_downs = downs;
	return 0;
}

/* Its CPU back online (pfm_cpu_online()). */
static void pfm_revive_work(struct work_struct *w)
{
	struct pfm_context *ctx = container_of(w, struct pfm_context, revive_work);

	mutex_lock(&ctx->lock);
	pfm_ctx_revive_if_back(ctx);
	mutex_unlock(&ctx->lock);
}

/*
 * Before every command on a context (ctx->lock held): a system-wide one
 * whose CPU is offline says ENODEV (but to PFM_UNLOAD_CONTEXT), and once
 * it is back its events are made again and it counts on.
 */
int pfm_ctx_check_cpu(struct pfm_context *ctx, unsigned int nr)
{
	if (nr == _IOC_NR(PFM_UNLOAD_CONTEXT))
		return 0;
	return pfm_ctx_revive_if_back(ctx);
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

/* The task of tid, referenced; whether it may be monitored is
 * pfm_lock_target()'s to say, under the task's exec lock. */
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
	return task;
}

/*
 * Hold task's exec while events are created on it, and check under that
 * lock that the caller may still monitor it, as perf does at every open:
 * a task its tracer let go, or one that exec'd (a setuid program, say)
 * since the check before, gets no new event.  A context monitoring its
 * own thread needs neither.  0 with the lock held, or the error.
 */
static int pfm_lock_target(struct task_struct *task, bool self)
{
	int ret;

	if (self)
		return 0;
	ret = down_read_killable(&task->signal->exec_update_lock);
	if (ret)
		return ret;
	if (!pfm_may_monitor(task))
		ret = -EPERM;
	else if (task->exit_state || (task->flags & PF_EXITING))
		ret = -ESRCH;
	if (ret)
		up_read(&task->signal->exec_update_lock);
	return ret;
}

static void pfm_unlock_target(struct task_struct *task, bool self)
{
	if (!self)
		up_read(&task->signal->exec_update_lock);
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

/*
 * Release every event of the context, and note the grace period that
 * must pass before what their handlers reach is freed.  A
 * released event is off its PMU, but its handler may still be running
 * on another CPU: software events run it in the task that counts them
 * with only preemption disabled, interrupts on (on x86-64 a page fault
 * enables them before its perf_sw_event(PAGE_FAULTS); upstream's "perf:
 * Fix __perf_event_overflow() vs perf_remove_from_context() race" says
 * the same of every software event), so the IPI that removes the event
 * comes in the middle of the handler and does not wait for it.  Every
 * handler runs in an RCU read-side section (perf's software events under
 * rcu_read_lock() with preemption off, the others with interrupts off
 * or in NMI), so after the grace period none is left in
 * pfm_ovfl_handler() or pfm_timer_handler() with a pointer to this
 * context or its sets: they may be freed (a set deleted:
 * pfm_wait_detached(); the context closed: pfm_ctx_free()) and the
 * irq_work they raise is synced after.  The format and its buffer are
 * reached under ovfl_lock only, and go at the close (pfm_smpl_free()).
 * No one waits for it here: an unload or a failed load frees nothing,
 * and a handler of events gone finds none of the context's events its
 * own (pfm_ovfl_handler(), pfm_timer_handler()).
 */
static void pfm_detach_all(struct pfm_context *ctx)
{
	struct pfm_set *set;
	bool any = false;
	int i;

	if (ctx->timer) {
		perf_event_release_kernel(ctx->timer);
		WRITE_ONCE(ctx->timer, NULL);
		any = true;
	}
	list_for_each_entry(set, &ctx->sets, list) {
		for (i = 0; i < PFM_NUM_COUNTERS; i++) {
			any |= !!set->ctr[i].event;
			pfm_counter_detach(ctx, &set->ctr[i]);
		}
	}
	if (any) {
		ctx->detach_gp = get_state_synchronize_rcu();
		ctx->detach_gp_owed = true;
	}
}

/* The last detach's handlers are all gone (before a set is freed). */
static void pfm_wait_detached(struct pfm_context *ctx)
{
	if (!ctx->detach_gp_owed)
		return;
	cond_synchronize_rcu(ctx->detach_gp);
	ctx->detach_gp_owed = false;
}

/* The set-switch clock: the thread's CPU time, or the CPU's wall time. */
static int pfm_timer_attach(struct pfm_context *ctx)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.disabled = 1,
		.exclude_hv = 1,
	};
	struct perf_event *ev;
	struct pfm_set *set;
	bool need = false;

	list_for_each_entry(set, &ctx->sets, list)
		need |= !!(set->flags & PFM_SETFL_TIME_SWITCH);
	if (!need)
		return 0;
	attr.config = ctx->task ? PERF_COUNT_SW_TASK_CLOCK : PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = pfm_timer_period(ctx->active);
	/* switching starts with the counting it switches */
	attr.enable_on_exec = !!(ctx->load_flags & PFM_LOADFL_ENABLE_ON_EXEC);
	if (ctx->task)
		ev = perf_event_create_kernel_counter(&attr, -1, ctx->task,
						      pfm_timer_handler, ctx);
	else
		ev = perf_event_create_kernel_counter(&attr, ctx->cpu, NULL,
						      pfm_timer_handler, ctx);
	if (IS_ERR(ev))
		return PTR_ERR(ev);
	WRITE_ONCE(ctx->timer, ev);
	return 0;
}

/* Every explicit next set must exist (checked at load, as the spec says). */
static int pfm_check_chain(struct pfm_context *ctx)
{
	struct pfm_set *set;

	list_for_each_entry(set, &ctx->sets, list)
		if ((set->flags & PFM_SETFL_EXPL_NEXT) &&
		    !pfm_find_set(ctx, set->id_next))
			return -EINVAL;
	return 0;
}

static int pfm_check_load(struct pfm_context *ctx, const struct pfarg_load *ld)
{
	if (ctx->state != PFM_CTX_UNLOADED)
		return -EBUSY;
	if (ld->load_reserved1 || memchr_inv(ld->load_reserved2, 0,
					     sizeof(ld->load_reserved2)))
		return -EINVAL;
	if (!pfm_find_set(ctx, ld->load_set) || pfm_check_chain(ctx))
		return -EINVAL;
	if (ld->load_flags & ~(PFM_LOADFL_INHERIT | PFM_LOADFL_ENABLE_ON_EXEC))
		return -EINVAL;
	/* the copies of an inherited event ignore set switches */
	if ((ld->load_flags & PFM_LOADFL_INHERIT) && !list_is_singular(&ctx->sets))
		return -EOPNOTSUPP;
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

/*
 * The end of a load's block: its target, if it waits, goes on, and the
 * context lets go of it (a work still queued holds its own reference).
 * Handlers read ctx->block under ovfl_lock: one still running after the
 * detach finds none.
 */
static void pfm_drop_block(struct pfm_context *ctx)
{
	struct pfm_block *block;
	unsigned long flags;

	raw_spin_lock_irqsave(&ctx->ovfl_lock, flags);
	pfm_unblock_locked(ctx);
	block = ctx->block;
	ctx->block = NULL;
	raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
	pfm_block_put(block);
}

int pfm_ctx_load(struct pfm_context *ctx, const struct pfarg_load *ld)
{
	struct pfm_block *block = NULL;
	struct task_struct *task = NULL;
	struct pfm_set *set;
	int ret, i;

	ret = pfm_check_load(ctx, ld);
	if (ret)
		return ret;
	/*
	 * PFM_FL_NOTIFY_BLOCK: each load blocks its own target.  A block of
	 * the last load may still have its work queued on that target (one
	 * asleep in a system call when it overflowed), and a block shared
	 * would see it queued and not block the new target, then stop the
	 * old one at its wait.
	 */
	if (ctx->flags & PFM_FL_NOTIFY_BLOCK) {
		block = pfm_block_new();
		if (!block)
			return -ENOMEM;
	}
	if (!(ctx->flags & PFM_FL_SYSTEM_WIDE)) {
		task = pfm_get_target(ld->load_pid);
		if (IS_ERR(task)) {
			pfm_block_put(block);
			return PTR_ERR(task);
		}
		ret = pfm_lock_target(task, task == current);
		if (ret) {
			pfm_block_put(block);
			put_task_struct(task);
			return ret;
		}
	}

	/*
	 * The target is taken under pfm_loaded_lock, its events made after:
	 * the lock is global, and every load and unload of every user waits
	 * for it.  A context on the list holds its target, loaded or still
	 * making its events.
	 */
	mutex_lock(&pfm_loaded_lock);
	if (pfm_target_busy(task, ld->load_cpu)) {
		mutex_unlock(&pfm_loaded_lock);
		ret = -EBUSY;
		goto out_put;
	}
	ctx->task = task;
	ctx->cpu = task ? -1 : (int)ld->load_cpu;
	list_add(&ctx->loaded, &pfm_loaded_list);
	mutex_unlock(&pfm_loaded_lock);
	if (!task)
		ctx->cpu_downs = pfm_cpu_downs(ctx->cpu);
	ctx->block = block;	/* no handler runs yet: no event is made */
	block = NULL;
	ctx->load_flags = ld->load_flags;
	ctx->started = false;
	ctx->self = task == current;
	ctx->active = pfm_find_set(ctx, ld->load_set);
	ctx->masked = false;
	ctx->switch_pending = false;
	memset(ctx->ovfl_pmds, 0, sizeof(ctx->ovfl_pmds));
	ctx->active->runs++;
	memset(ctx->active->switch_pmds, 0, sizeof(ctx->active->switch_pmds));
	pfm_set_arm_triggers(ctx, ctx->active);
	list_for_each_entry(set, &ctx->sets, list) {
		for (i = 0; i < PFM_NUM_COUNTERS; i++) {
			if (!set->ctr[i].evtsel)
				continue;
			ret = pfm_counter_attach(ctx, &set->ctr[i]);
			if (ret)
				goto out_detach;
		}
	}
	ret = pfm_timer_attach(ctx);
	if (ret)
		goto out_detach;

	pfm_reset_msgq(ctx);
	ctx->exit_seen = false;
	if (task)
		pfm_watch_exit(ctx);
	ctx->state = PFM_CTX_LOADED;
	/*
	 * The exec starts the active set's events and the switch timer
	 * (enable_on_exec): the context is started, so that PFM_STOP stops
	 * them, the sets switch and their activations are summed.  The
	 * set's active time counts from here (the target waits in its
	 * ptrace stop until it executes).
	 */
	if (ld->load_flags & PFM_LOADFL_ENABLE_ON_EXEC) {
		ctx->started = true;
		ctx->exec_pending = true;
		pfm_set_clock(ctx, true);
	}
	if (task)
		pfm_unlock_target(task, ctx->self);
	return 0;

out_detach:
	pfm_detach_all(ctx);
	pfm_drop_block(ctx);
	mutex_lock(&pfm_loaded_lock);
	list_del_init(&ctx->loaded);
	mutex_unlock(&pfm_loaded_lock);
	ctx->task = NULL;
	ctx->cpu = -1;
out_put:
	pfm_block_put(block);
	if (task) {
		pfm_unlock_target(task, task == current);
		put_task_struct(task);
	}
	return ret;
}

static void pfm_do_unload(struct pfm_context *ctx)
{
	unsigned long flags;

	if (ctx->started) {
		pfm_set_clock(ctx, false);
		pfm_set_enable(ctx->active, false);
	}
	pfm_flush_overflows(ctx);
	pfm_detach_all(ctx);
	/*
	 * What a handler of this load raised is done before the next load:
	 * no period of these events is written into the next one's.  A
	 * handler still running (until the grace period) finds none of its
	 * events in the context and raises nothing.
	 */
	irq_work_sync(&ctx->irq_work);
	raw_spin_lock_irqsave(&ctx->ovfl_lock, flags);
	ctx->masked = false;
	ctx->switch_pending = false;
	memset(ctx->ovfl_pmds, 0, sizeof(ctx->ovfl_pmds));
	bitmap_zero(ctx->reload_pmds, PFM_NUM_COUNTERS);
	raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
	pfm_drop_block(ctx);
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
	ctx->exec_pending = false;
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

/*
 * The rest of a closed context's free, once no handler of its events can
 * be left: none still runs (pfm_detach_all()) to raise the irq_work, and
 * the work sees UNLOADED.
 */
static void pfm_ctx_release(struct pfm_context *ctx)
{
	struct pfm_set *set, *tmp;

	irq_work_sync(&ctx->irq_work);
	cancel_work_sync(&ctx->switch_work);
	cancel_work_sync(&ctx->revive_work);	/* off the list since the unload */
	/* a switch still queued on the target finds no context */
	mutex_lock(&ctx->switcher->lock);
	ctx->switcher->ctx = NULL;
	mutex_unlock(&ctx->switcher->lock);
	if (refcount_dec_and_test(&ctx->switcher->ref))
		kfree(ctx->switcher);
	ctx->switcher = NULL;
	list_for_each_entry_safe(set, tmp, &ctx->sets, list) {
		list_del(&set->list);
		kfree(set);
	}
	mutex_destroy(&ctx->lock);
	put_pid_ns(ctx->pid_ns);
	kmem_cache_free(pfm_ctx_cache, ctx);
}

static void pfm_ctx_release_rcu(struct work_struct *w)
{
	pfm_ctx_release(container_of(to_rcu_work(w), struct pfm_context, free_work));
}

/*
 * Close: unloaded now, what it holds given back to its user now (its
 * buffer and format too: pfm_smpl_free()), and the context and its sets
 * freed once no handler of its events can be left: now if it never had
 * events or a grace period has passed since, else a grace period later.
 * The close does not wait for it: a normal grace period at each close
 * is seconds for a tool closing a context per thread, and an expedited
 * one interrupts every CPU of the machine, at each close of any user.
 */
void pfm_ctx_free(struct pfm_context *ctx)
{
	struct pfm_set *set;

	mutex_lock(&ctx->lock);
	if (ctx->state == PFM_CTX_LOADED)
		pfm_do_unload(ctx);
	mutex_unlock(&ctx->lock);
	list_for_each_entry(set, &ctx->sets, list)
		if (set->id)
			pfm_user_uncharge(ctx->owner, PFM_USER_SETS, 1);
	pfm_smpl_free(ctx);
	atomic_dec(&pfm_nr_contexts);
	if (!ctx->detach_gp_owed || poll_state_synchronize_rcu(ctx->detach_gp)) {
		pfm_ctx_release(ctx);
		return;
	}
	INIT_RCU_WORK(&ctx->free_work, pfm_ctx_release_rcu);
	queue_rcu_work(pfm_free_wq, &ctx->free_work);
}

/* --- create, start, stop ------------------------------------------------ */

int pfm_ctx_create(struct pfm_context *ctx, const struct pfarg_ctx *arg)
{
	u32 known = PFM_FL_NOTIFY_BLOCK | PFM_FL_SYSTEM_WIDE |
		    PFM_FL_SMPL_FMT | PFM_FL_OVFL_NO_MSG;
	unsigned int gid;
	bool has_uuid;

	if (ctx->state != PFM_CTX_NEW)
		return -EBUSY;
	if (arg->ctx_flags & ~known || arg->ctx_reserved1 ||
	    memchr_inv(arg->ctx_reserved2, 0, sizeof(arg->ctx_reserved2)))
		return -EINVAL;
	if ((arg->ctx_flags & PFM_FL_NOTIFY_BLOCK) &&
	    (arg->ctx_flags & PFM_FL_SYSTEM_WIDE))
		return -EINVAL;		/* spec Table 3.2 */
	has_uuid = memchr_inv(arg->ctx_smpl_uuid, 0, sizeof(arg->ctx_smpl_uuid));
	if (!(arg->ctx_flags & PFM_FL_SMPL_FMT) &&
	    (arg->ctx_smpl_name || arg->ctx_smpl_arg || arg->ctx_smpl_arg_size ||
	     has_uuid))
		return -EINVAL;
	if ((arg->ctx_flags & PFM_FL_SMPL_FMT) && !arg->ctx_smpl_name && !has_uuid)
		return -EINVAL;

	if (arg->ctx_flags & PFM_FL_SYSTEM_WIDE) {
		gid = READ_ONCE(pfm_sys_gid);
		if (!perfmon_capable())
			return -EPERM;
	} else {
		gid = READ_ONCE(pfm_thread_gid);
	}
	if (gid != PFM_GROUP_ANY && !pfm_in_admin_group(gid) && !capable(CAP_SYS_ADMIN))
		return -EPERM;

	ctx->kernel_ip = perfmon_capable();	/* before the format sees it */
	if (arg->ctx_flags & PFM_FL_SMPL_FMT) {
		int ret = pfm_smpl_create(ctx, arg);

		if (ret)
			return ret;
	}
	ctx->flags = arg->ctx_flags;
	ctx->state = PFM_CTX_UNLOADED;
	return 0;
}

/*
 * Whether an event of ctx has an inherited copy, in a task its target
 * created, that is enabled (on) or off (!on).  perf enables and disables
 * a kernel counter's event alone, never its copies (its ioctl's walk of
 * child_list under child_mutex would take each copy's context mutex
 * inside child_mutex, the inverse of the exit path's order), and a copy
 * takes its parent's state at the fork: an enabled copy counts through
 * PFM_STOP, an off one never counts after PFM_START.
 */
static bool pfm_has_copies(struct pfm_context *ctx, bool on)
{
	struct perf_event *ev, *copy;
	struct pfm_set *set;
	bool found = false;
	int i;

	if (!(ctx->load_flags & PFM_LOADFL_INHERIT))
		return false;
	list_for_each_entry(set, &ctx->sets, list) {
		for (i = 0; i < PFM_NUM_COUNTERS; i++) {
			ev = set->ctr[i].event;
			if (!ev)
				continue;
			mutex_lock(&ev->child_mutex);
			list_for_each_entry(copy, &ev->child_list, child_list)
				found |= (READ_ONCE(copy->state) >= PERF_EVENT_STATE_INACTIVE) == on;
			mutex_unlock(&ev->child_mutex);
			if (found)
				return true;
		}
	}
	return false;
}

/*
 * Take back ev's start at the exec.  perf starts an enable_on_exec event
 * at the exec whatever was done to it before (PERF_EVENT_IOC_DISABLE
 * leaves the flag) and has no call to clear it: it is cleared here under
 * the lock of the event's perf context, the lock perf's exec path tests
 * and clears it under (perf_event_enable_on_exec()).  An event's context
 * stays its own: perf swaps contexts between tasks, not events between
 * contexts.  After the exec the flag is already clear.
 */
static void pfm_event_drop_exec_start(struct perf_event *ev)
{
	struct perf_event_context *pctx = READ_ONCE(ev->ctx);
	unsigned long flags;

	raw_spin_lock_irqsave(&pctx->lock, flags);
	ev->attr.enable_on_exec = 0;
	raw_spin_unlock_irqrestore(&pctx->lock, flags);
}

/*
 * PFM_START or PFM_STOP before the exec a context was loaded to start at
 * (PFM_LOADFL_ENABLE_ON_EXEC): the command takes the exec's place, so
 * the exec starts nothing, now or later (events the context creates
 * from now on included).  start_now: the active set and the switch
 * timer start at once, as the exec would have started them.
 */
static void pfm_cancel_exec_start(struct pfm_context *ctx, bool start_now)
{
	struct pfm_set *set;
	int i;

	if (!ctx->exec_pending)
		return;
	ctx->exec_pending = false;
	ctx->load_flags &= ~PFM_LOADFL_ENABLE_ON_EXEC;
	list_for_each_entry(set, &ctx->sets, list)
		for (i = 0; i < PFM_NUM_COUNTERS; i++)
			if (set->ctr[i].event)
				pfm_event_drop_exec_start(set->ctr[i].event);
	if (ctx->timer)
		pfm_event_drop_exec_start(ctx->timer);
	if (!start_now)
		return;
	pfm_set_enable(ctx->active, true);
	if (ctx->timer)
		perf_event_enable(ctx->timer);
}

int pfm_ctx_start(struct pfm_context *ctx, const struct pfarg_start *st)
{
	struct pfm_set *set = NULL;

	if (st->start_flags & ~(PFM_STARTFL_SET | PFM_STARTFL_RESTART) ||
	    st->start_reserved1 ||
	    memchr_inv(st->start_reserved2, 0, sizeof(st->start_reserved2)))
		return -EINVAL;
	if (!(st->start_flags & PFM_STARTFL_SET) && st->start_set)
		return -EINVAL;
	if (st->start_flags == (PFM_STARTFL_SET | PFM_STARTFL_RESTART))
		return -EINVAL;
	if (ctx->state != PFM_CTX_LOADED)
		return -EBUSY;
	if (st->start_flags & PFM_STARTFL_RESTART)
		return pfm_ctx_restart(ctx);
	if (st->start_flags & PFM_STARTFL_SET) {
		set = pfm_find_set(ctx, st->start_set);
		if (!set)
			return -EINVAL;
	}
	if (ctx->exec_pending) {
		/* tasks created meanwhile would never count */
		if (pfm_has_copies(ctx, false))
			return -EOPNOTSUPP;
		pfm_cancel_exec_start(ctx, true);
	}
	if (set && (set != ctx->active || !ctx->started)) {
		/* a named set counts as a run, started or switched to */
		if (ctx->started) {
			pfm_switch_to(ctx, set);
			return 0;
		}
		ctx->active = set;
		set->runs++;
		pfm_set_arm_triggers(ctx, set);
		if (ctx->timer)
			perf_event_period(ctx->timer, pfm_timer_period(set));
	}
	if (ctx->started)
		return 0;
	/* tasks created meanwhile would never count */
	if (pfm_has_copies(ctx, false))
		return -EOPNOTSUPP;
	pfm_set_enable(ctx->active, true);
	if (ctx->timer)
		perf_event_enable(ctx->timer);
	ctx->started = true;
	pfm_set_clock(ctx, true);
	return 0;
}

int pfm_ctx_stop(struct pfm_context *ctx)
{
	if (ctx->state != PFM_CTX_LOADED)
		return -EBUSY;
	if (!ctx->started)
		return 0;
	/* tasks the target created would count on */
	if (pfm_has_copies(ctx, true))
		return -EOPNOTSUPP;
	pfm_cancel_exec_start(ctx, false);
	pfm_set_clock(ctx, false);
	if (ctx->timer)
		perf_event_disable(ctx->timer);
	pfm_set_enable(ctx->active, false);
	pfm_flush_overflows(ctx);
	ctx->started = false;
	return 0;
}

static bool pfm_bit(const u64 *bv, unsigned int n)
{
	return bv[n / 64] & (1ULL << (n % 64));
}

/* Long reset of c at restart (ctx->lock held, masked). */
static void pfm_long_reset(struct pfm_context *ctx, struct pfm_counter *c)
{
	unsigned long flags;
	u64 v;

	raw_spin_lock_irqsave(&ctx->ovfl_lock, flags);
	v = pfm_next_reset(c, c->long_reset);
	raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
	pfm_counter_set(ctx, c, v);
}

/*
 * PFM_STARTFL_RESTART: after a notification, the overflowed PMDs and the
 * PMDs in their reset_pmds get their long reset values (randomised), the
 * other PMDs count on from where the mask froze them, and a set switch
 * held back by the mask happens now.
 */
int pfm_ctx_restart(struct pfm_context *ctx)
{
	struct pfm_set *set = ctx->active;
	u64 ovfl[PFM_PMD_BV], reset[PFM_PMD_BV];
	unsigned long flags;
	unsigned int i, j;

	if (ctx->state != PFM_CTX_LOADED)
		return -EBUSY;
	raw_spin_lock_irqsave(&ctx->ovfl_lock, flags);
	if (ctx->smpl) {
		/* the format's part; while active it is all (decision 7) */
		int ret = pfm_smpl_restart_locked(ctx, ctx->masked);

		if (ret || !ctx->masked) {
			raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
			return ret;
		}
	}
	if (!ctx->masked) {
		raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
		return -EBUSY;
	}
	memcpy(ovfl, ctx->ovfl_pmds, sizeof(ovfl));
	raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);

	memcpy(reset, ovfl, sizeof(reset));
	for (i = 0; i < PFM_NUM_COUNTERS; i++) {
		if (!pfm_bit(ovfl, i))
			continue;
		for (j = 0; j < PFM_PMD_BV; j++)
			reset[j] |= set->ctr[i].reset_pmds[j];
	}
	for (i = 0; i < PFM_NUM_COUNTERS; i++)
		if (pfm_bit(reset, i))
			pfm_long_reset(ctx, &set->ctr[i]);

	/* the others: the events they saw while masked do not count */
	for (i = 0; i < PFM_NUM_COUNTERS; i++) {
		struct pfm_counter *c = &set->ctr[i];

		if (c->event && c->frozen && !pfm_bit(reset, i))
			pfm_counter_set(ctx, c, c->frozen_val);
	}
	raw_spin_lock_irqsave(&ctx->ovfl_lock, flags);
	for (i = 0; i < PFM_NUM_COUNTERS; i++)
		set->ctr[i].frozen = false;
	memset(ctx->ovfl_pmds, 0, sizeof(ctx->ovfl_pmds));
	ctx->masked = false;
	raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
	for (i = 0; i < PFM_NUM_COUNTERS; i++)
		pfm_counter_arm(ctx, &set->ctr[i]);
	if (ctx->started)
		pfm_set_clock(ctx, true);
	if (ctx->started && ctx->switch_pending)
		pfm_switch_to(ctx, pfm_next_set(ctx, set));
	/*
	 * The blocked target runs again once its counters are armed and a
	 * switch held back by the mask is done: none of its events falls
	 * in the set it leaves (a trigger's set records exactly its count).
	 */
	raw_spin_lock_irqsave(&ctx->ovfl_lock, flags);
	pfm_unblock_locked(ctx);
	raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
	return 0;
}

void pfm_ctx_info(struct pfm_context *ctx, struct pfarg_ctxinfo *ci)
{
	unsigned long flags;

	memset(ci, 0, sizeof(*ci));
	ci->ctx_flags = ctx->flags;
	if (ctx->state == PFM_CTX_LOADED)
		ci->ctx_state |= PFM_CTXINFO_LOADED;
	if (ctx->started)
		ci->ctx_state |= PFM_CTXINFO_STARTED;
	ci->ctx_active_set = ctx->active->id;
	raw_spin_lock_irqsave(&ctx->ovfl_lock, flags);
	if (ctx->masked)
		ci->ctx_state |= PFM_CTXINFO_MASKED;
	ci->ctx_msg_count = ctx->msg_count;
	ci->ctx_msg_dropped = ctx->msg_dropped;
	if (ctx->smpl) {
		ci->ctx_smpl_lost = ctx->smpl->lost;
		ci->ctx_smpl_ovfls = ctx->smpl->ovfls;
		ci->ctx_smpl_late = ctx->smpl->late;
	}
	ci->ctx_throttled = atomic64_read(&ctx->throttled);
	memcpy(ci->ctx_ovfl_pmds, ctx->ovfl_pmds, sizeof(ci->ctx_ovfl_pmds));
	raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
}

/* --- event sets --------------------------------------------------------- */

#define PFM_SETFL_KNOWN	(PFM_SETFL_OVFL_SWITCH | PFM_SETFL_TIME_SWITCH | \
			 PFM_SETFL_EXPL_NEXT)
#define PFM_TIMEOUT_MIN	10000ULL	/* perf's shortest clock period, ns */

/*
 * Create a set, or modify an existing one (its registers are kept).
 * Only while unloaded.  The effective timeout (at least 10 us, perf's
 * shortest clock period) is written back.
 */
int pfm_ctx_create_set(struct pfm_context *ctx, struct pfarg_setdesc *sd)
{
	struct pfm_set *set, *pos;
	int ret;

	if (ctx->state != PFM_CTX_UNLOADED)
		return -EBUSY;
	if (sd->set_flags & ~PFM_SETFL_KNOWN ||
	    memchr_inv(sd->set_reserved2, 0, sizeof(sd->set_reserved2)))
		return -EINVAL;
	if ((sd->set_flags & PFM_SETFL_OVFL_SWITCH) &&
	    (sd->set_flags & PFM_SETFL_TIME_SWITCH))
		return -EINVAL;		/* one switching method per set */
	if (sd->set_flags & PFM_SETFL_TIME_SWITCH) {
		if (!sd->set_timeout || sd->set_timeout > PFM_PERIOD_MAX)
			return -EINVAL;
		sd->set_timeout = max(sd->set_timeout, PFM_TIMEOUT_MIN);
	} else if (sd->set_timeout) {
		return -EINVAL;
	}
	if (!(sd->set_flags & PFM_SETFL_EXPL_NEXT) && sd->set_id_next)
		return -EINVAL;
	/* a format that records for set 0 only (spec 3.5.2) */
	if (sd->set_id && ctx->smpl && (ctx->smpl->fmt->flags & PFM_FMTFL_NOSET))
		return -EINVAL;

	set = pfm_find_set(ctx, sd->set_id);
	if (!set) {
		if (ctx->nsets >= PFM_SETS_MAX)
			return -ENOSPC;
		/* a new set is never set 0: that is the context's own,
		 * charged with it (ctx_per_user_max), and never deleted */
		ret = pfm_user_charge(ctx->owner, PFM_USER_SETS, 1);
		if (ret)
			return ret;
		set = pfm_set_alloc(ctx, sd->set_id);
		if (!set) {
			pfm_user_uncharge(ctx->owner, PFM_USER_SETS, 1);
			return -ENOMEM;
		}
		list_for_each_entry(pos, &ctx->sets, list)
			if (pos->id > set->id)
				break;
		list_add_tail(&set->list, &pos->list);
		ctx->nsets++;
	}
	set->flags = sd->set_flags;
	set->id_next = sd->set_id_next;
	set->timeout = sd->set_timeout;
	return 0;
}

int pfm_ctx_delete_set(struct pfm_context *ctx, struct pfarg_setdesc *sd)
{
	struct pfm_set *set;

	if (ctx->state != PFM_CTX_UNLOADED)
		return -EBUSY;
	set = pfm_find_set(ctx, sd->set_id);
	if (!set || !set->id)
		return -EINVAL;		/* set0 cannot be deleted */
	if (ctx->active == set)
		ctx->active = list_first_entry(&ctx->sets, struct pfm_set, list);
	list_del(&set->list);
	ctx->nsets--;
	pfm_wait_detached(ctx);		/* a handler of the last load may hold it */
	kfree(set);
	pfm_user_uncharge(ctx->owner, PFM_USER_SETS, 1);
	return 0;
}

int pfm_ctx_getinfo_set(struct pfm_context *ctx, struct pfarg_setinfo *si)
{
	struct pfm_set *set = pfm_find_set(ctx, si->set_id);
	unsigned long flags;
	u16 id = si->set_id;
	int i;

	memset(si, 0, sizeof(*si));
	si->set_id = id;
	if (!set)
		return -EINVAL;
	si->set_id_next = set->id_next;
	si->set_flags = set->flags;
	si->set_timeout = set->timeout;
	for (i = 0; i < PFM_PMC_EXT3_BASE + PFM_NUM_COUNTERS; i++)
		si->set_avail_pmcs[i / 64] |= 1ULL << (i % 64);
	for (i = 0; i < PFM_NUM_COUNTERS; i++)
		si->set_avail_pmds[i / 64] |= 1ULL << (i % 64);
	raw_spin_lock_irqsave(&ctx->ovfl_lock, flags);
	memcpy(si->set_ovfl_pmds, set->switch_pmds, sizeof(si->set_ovfl_pmds));
	si->set_runs = set->runs;
	si->set_act_duration = set->act_duration;
	if (set->act_since)
		si->set_act_duration += pfm_set_clock_now() - set->act_since;
	raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
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
	struct pfm_set *set;
	u32 retfl = 0;
	bool locked;
	u64 *reg;
	int ret;

	if (n >= PFM_PMC_EXT3_BASE + PFM_NUM_COUNTERS)
		return pfm_reg_fail(&pmc->reg_flags, PFM_REG_RETFL_NOTAVAIL, -EINVAL);
	set = pfm_find_set(ctx, pmc->reg_set);
	if (!set)
		return pfm_reg_fail(&pmc->reg_flags, PFM_REG_RETFL_NOSET, -EINVAL);
	if (pmc->reg_flags & PFM_PMCFL_NO_EMUL64)
		return pfm_reg_fail(&pmc->reg_flags, PFM_REG_RETFL_NOTSUPP, -EOPNOTSUPP);
	if (pmc->reg_flags ||
	    memchr_inv(pmc->reg_reserved2, 0, sizeof(pmc->reg_reserved2)))
		return pfm_reg_fail(&pmc->reg_flags, PFM_REG_RETFL_EINVAL, -EINVAL);

	c = &set->ctr[n % PFM_NUM_COUNTERS];
	next.evtsel = c->evtsel;
	next.ext1 = c->ext1;
	next.ext2 = c->ext2;
	next.ext3 = c->ext3;
	if (n < PFM_PMC_EXT1_BASE)
		reg = &next.evtsel;
	else if (n < PFM_PMC_EXT2_BASE)
		reg = &next.ext1;
	else if (n < PFM_PMC_EXT3_BASE)
		reg = &next.ext2;
	else
		reg = &next.ext3;
	*reg = pmc->reg_value;
	ret = pfm_evtsel_check(&next, &retfl);
	if (ret)
		return pfm_reg_fail(&pmc->reg_flags, retfl, ret);

	if (ctx->state != PFM_CTX_LOADED) {
		c->evtsel = next.evtsel;
		c->ext1 = next.ext1;
		c->ext2 = next.ext2;
		c->ext3 = next.ext3;
		return 0;
	}
	/*
	 * Loaded: a new event replaces the old one, the PMD keeps its
	 * count.  Not when the events are inherited: the copies in the
	 * target's children are the old event's, which the release ends,
	 * and perf gives running children no copy of a new one, so their
	 * counting would stop unseen (EBUSY: unload first).  The access is
	 * checked again first (the load's check may be long past): refused,
	 * the old event stays.
	 */
	if (ctx->load_flags & PFM_LOADFL_INHERIT)
		return pfm_reg_fail(&pmc->reg_flags, PFM_REG_RETFL_EINVAL, -EBUSY);
	locked = ctx->task && next.evtsel;
	if (locked) {
		ret = pfm_lock_target(ctx->task, ctx->self);
		if (ret)
			return pfm_reg_fail(&pmc->reg_flags, PFM_REG_RETFL_PERM, ret);
	}
	pfm_counter_detach(ctx, c);
	c->evtsel = next.evtsel;
	c->ext1 = next.ext1;
	c->ext2 = next.ext2;
	c->ext3 = next.ext3;
	if (!c->evtsel)
		return 0;
	ret = pfm_counter_attach(ctx, c);
	if (locked)
		pfm_unlock_target(ctx->task, ctx->self);
	if (ret) {
		c->evtsel = 0;
		return pfm_reg_fail(&pmc->reg_flags, PFM_REG_RETFL_EINVAL, ret);
	}
	return 0;
}

static struct pfm_counter *pfm_check_pmd(struct pfm_context *ctx,
					 struct pfarg_pmd *pmd, int *err)
{
	struct pfm_set *set;

	*err = -EINVAL;
	if (pmd->reg_num >= PFM_NUM_COUNTERS) {
		pmd->reg_flags |= PFM_REG_RETFL_NOTAVAIL;
		return NULL;
	}
	set = pfm_find_set(ctx, pmd->reg_set);
	if (!set) {
		pmd->reg_flags |= PFM_REG_RETFL_NOSET;
		return NULL;
	}
	if (pmd->reg_reserved1) {
		pmd->reg_flags |= PFM_REG_RETFL_EINVAL;
		return NULL;
	}
	*err = 0;
	return &set->ctr[pmd->reg_num];
}

/*
 * The PMD value and its overflow fields.  Sampling (PFM_PMDFL_SMPL,
 * smpl_pmds, eventid) needs a format: EOPNOTSUPP.  reset_pmds name PMDs
 * of the same set; random needs a seed that is not 0 modulo 2^31 - 1 and
 * a mask of at most 31 bits.
 */
int pfm_ctx_write_pmd(struct pfm_context *ctx, struct pfarg_pmd *pmd)
{
	u32 known = PFM_PMDFL_SMPL | PFM_PMDFL_SWITCH | PFM_PMDFL_OVFL_NOTIFY |
		    PFM_PMDFL_RANDOM;
	struct pfm_counter *c;
	unsigned long flags;
	int ret, i;

	c = pfm_check_pmd(ctx, pmd, &ret);
	if (!c)
		return ret;
	if (pmd->reg_flags & ~known)
		return pfm_reg_fail(&pmd->reg_flags, PFM_REG_RETFL_EINVAL, -EINVAL);
	if (!ctx->smpl &&
	    ((pmd->reg_flags & PFM_PMDFL_SMPL) || pmd->reg_smpl_eventid ||
	     memchr_inv(pmd->reg_smpl_pmds, 0, sizeof(pmd->reg_smpl_pmds))))
		return pfm_reg_fail(&pmd->reg_flags, PFM_REG_RETFL_NOTSUPP,
				    -EOPNOTSUPP);
	for (i = 1; i < PFM_PMD_BV; i++)
		if (pmd->reg_reset_pmds[i] || pmd->reg_smpl_pmds[i])
			return pfm_reg_fail(&pmd->reg_flags,
					    PFM_REG_RETFL_EINVAL, -EINVAL);
	if (pmd->reg_random_mask > PFM_RANDOM_MASK_MAX)
		return pfm_reg_fail(&pmd->reg_flags, PFM_REG_RETFL_EINVAL, -EINVAL);
	if ((pmd->reg_flags & PFM_PMDFL_RANDOM) &&
	    !(pmd->reg_random_seed % PFM_RANDOM_MODULUS))
		return pfm_reg_fail(&pmd->reg_flags, PFM_REG_RETFL_EINVAL, -EINVAL);

	raw_spin_lock_irqsave(&ctx->ovfl_lock, flags);
	c->flags = pmd->reg_flags;
	c->long_reset = pmd->reg_long_reset;
	c->short_reset = pmd->reg_short_reset;
	c->switch_cnt = pmd->reg_ovfl_switch_cnt;
	c->switch_left = pmd->reg_ovfl_switch_cnt;
	memcpy(c->reset_pmds, pmd->reg_reset_pmds, sizeof(c->reset_pmds));
	memcpy(c->smpl_pmds, pmd->reg_smpl_pmds, sizeof(c->smpl_pmds));
	c->eventid = pmd->reg_smpl_eventid;
	c->last_reset = pmd->reg_value;		/* the value loaded */
	c->random_mask = pmd->reg_random_mask;
	c->seed = pmd->reg_random_seed;
	c->rand_state = pmd->reg_random_seed % PFM_RANDOM_MODULUS;
	raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
	pfm_counter_set(ctx, c, pmd->reg_value);
	return 0;
}

int pfm_ctx_read_pmd(struct pfm_context *ctx, struct pfarg_pmd *pmd)
{
	struct pfm_counter *c;
	unsigned long flags;
	int ret;

	c = pfm_check_pmd(ctx, pmd, &ret);
	if (!c)
		return ret;
	if (pmd->reg_flags)
		return pfm_reg_fail(&pmd->reg_flags, PFM_REG_RETFL_EINVAL, -EINVAL);
	pfm_counter_read(ctx, c, pmd);
	raw_spin_lock_irqsave(&ctx->ovfl_lock, flags);
	pmd->reg_long_reset = c->long_reset;
	pmd->reg_short_reset = c->short_reset;
	pmd->reg_last_reset_val = c->last_reset;
	pmd->reg_ovfl_switch_cnt = c->switch_left;
	memcpy(pmd->reg_reset_pmds, c->reset_pmds, sizeof(pmd->reg_reset_pmds));
	memcpy(pmd->reg_smpl_pmds, c->smpl_pmds, sizeof(pmd->reg_smpl_pmds));
	pmd->reg_smpl_eventid = c->eventid;
	pmd->reg_random_mask = c->random_mask;
	pmd->reg_random_seed = c->seed;
	raw_spin_unlock_irqrestore(&ctx->ovfl_lock, flags);
	return 0;
}
