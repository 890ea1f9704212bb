/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfmon.ko internals: the context, its logical PMU and the limits.
 */
#ifndef PFM_H
#define PFM_H

#include "pfm_compat.h"
#include <linux/cred.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/uidgid.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "perfmon.h"
#include "pfm_act.h"
#include "pfm_fmt.h"

#define PFM_MSGQ_DEPTH	8
#define PFM_PERIOD_MAX	(1ULL << 62)	/* longest overflow period armed */
#define PFM_SETS_MAX	64		/* event sets per context */
#define PFM_FMT_ARG_MAX	256		/* bytes of a format's argument */

/* limits (module parameters, also changed by PFM_SET_CONFIG) */
extern unsigned int pfm_arg_size_max;
extern unsigned int pfm_ctx_per_user_max;
extern unsigned int pfm_sys_gid;
extern unsigned int pfm_thread_gid;
extern bool pfm_hw_pmu;
extern unsigned long pfm_smpl_buf_size_max;
extern unsigned int pfm_dev_gid;
extern unsigned int pfm_events_per_user_max;
extern unsigned int pfm_sets_per_user_max;
extern unsigned long pfm_smpl_buf_per_user_max;

/* dev_gid: no group (only CAP_PERFMON opens /dev/perfmon) */
#define PFM_GROUP_NONE	0xfffffffeU

/*
 * Whether the caller is in group gid of a module parameter (dev_gid,
 * thread_gid, sys_gid): an id of the initial user namespace, where the
 * administrator wrote it, whatever namespace the caller is in.
 */
static inline bool pfm_in_admin_group(unsigned int gid)
{
	kgid_t kgid = make_kgid(&init_user_ns, gid);

	return gid_valid(kgid) && in_group_p(kgid);
}

/* what a user's contexts hold, each bounded per user (pfm_dev.c) */
enum pfm_user_res {
	PFM_USER_CTX,		/* open contexts: ctx_per_user_max */
	PFM_USER_EVENTS,	/* perf events: events_per_user_max */
	PFM_USER_SMPL,		/* bytes of sampling buffers */
	PFM_USER_SETS,		/* event sets but each context's set 0 */
	PFM_USER_NR,
};

int pfm_user_charge(kuid_t uid, enum pfm_user_res res, unsigned long n);
void pfm_user_uncharge(kuid_t uid, enum pfm_user_res res, unsigned long n);

enum pfm_state {
	PFM_CTX_NEW,		/* opened, PFM_CREATE_CONTEXT not yet done */
	PFM_CTX_UNLOADED,
	PFM_CTX_LOADED,
};

struct pfm_context;
struct pfm_set;

/*
 * PFM_FL_NOTIFY_BLOCK: the monitored thread waits, on its way back to
 * user mode, until the tool restarts.  Reference counted apart from the
 * context, so that a thread still waiting when the context is freed
 * wakes up on memory that is still there.
 */
struct pfm_block {
	refcount_t ref;
	wait_queue_head_t wq;
	struct callback_head work;
	unsigned long flags;		/* PFM_BLOCK_*, atomic bit operations */
};

#define PFM_BLOCK_WAIT		0	/* the target must wait */
#define PFM_BLOCK_QUEUED	1	/* work queued on the target, or running */

/*
 * A time-based set switch of a per-thread context, done by its target on
 * its way back to user mode (task_work): the old set's events are
 * disabled and the new set's enabled while the target runs none of its
 * code, so none of its events falls between two sets (from a work item on
 * another CPU the target keeps running between the two).  Reference
 * counted apart from the context, which may be freed first: ctx is
 * cleared under lock, which the work holds while it uses ctx.
 */
struct pfm_switcher {
	refcount_t ref;
	struct mutex lock;
	struct pfm_context *ctx;	/* NULL once the context is freed */
	struct callback_head work;
	bool queued;			/* work queued ... (ovfl_lock) */
	struct task_struct *queued_on;	/* ... on this task (compared only) */
};

/*
 * One counter of the logical PMU: PMC i, 64 + i, 128 + i and PMD i of a
 * set.  While loaded the PMD is offset + the event's count; value holds
 * it otherwise.  The overflow handler changes value, offset, hi, gen,
 * frozen, frozen_val, last_reset, rand_state and switch_left under
 * ctx->ovfl_lock, and process context changes them under it too.  event
 * is published and cleared under ovfl_lock (with ctx->lock held), so
 * that the handler, which may run in NMI on any CPU, sees an event
 * together with the offset it counts from; the handler loads it once
 * (READ_ONCE) and uses that pointer only.
 */
struct pfm_counter {
	u64 evtsel;
	u64 ext1;
	u64 ext2;
	u64 ext3;			/* config bits 32..63 (generic events) */
	struct perf_event *event;	/* while loaded, when evtsel != 0 (see above) */
	u64 value;			/* PMD value while there is no event */
	u64 offset;			/* PMD = offset + event count */
	u64 enabled;			/* times of released events, ns */
	u64 running;
	struct pfm_act act;		/* its set's activations (ctx->lock) */
	/* its event's count and running time at the start of the current
	 * activation (ctx->lock) */
	u64 act_start_count;
	u64 act_start_running;

	struct pfm_set *set;
	unsigned int num;
	u32 flags;			/* PFM_PMDFL_* */
	u64 long_reset;
	u64 short_reset;
	u64 last_reset;
	u64 reset_pmds[PFM_PMD_BV];
	u64 smpl_pmds[PFM_PMD_BV];	/* recorded in this PMD's samples */
	u64 eventid;			/* stored, not used by our formats */
	u64 random_mask;
	u32 seed;
	u32 rand_state;
	u64 switch_cnt;
	u64 switch_left;
	bool hi;			/* PMD >= 2^63 when last set: wrap armed */
	bool frozen;			/* masked: the PMD reads frozen_val */
	u64 frozen_val;
	u32 gen;			/* bumped when offset changes */
};

/* hw.interrupts of an event perf has throttled (MAX_INTERRUPTS, private
 * to kernel/events/core.c) */
#define PFM_PERF_THROTTLED	(~0ULL)

/* Whether ev counts on this CPU now (interrupts off). */
static inline bool pfm_event_counts_here(struct perf_event *ev)
{
	return READ_ONCE(ev->state) == PERF_EVENT_STATE_ACTIVE &&
	       READ_ONCE(ev->oncpu) == smp_processor_id() &&
	       !(READ_ONCE(ev->hw.state) & PERF_HES_STOPPED);
}

/*
 * The part of an inherited event's count that the overflow path can
 * read: its copies' that have exited (perf adds each one's count to
 * child_count at its exit, an atomic read in NMI too).  A copy still
 * running counts in its own event, which only a read in process context
 * adds (perf_event_read_value()): the overflow path's PMD values are
 * short of those, and exact once the copies have exited.
 */
static inline u64 pfm_exited_copies(struct perf_event *ev)
{
	return ev->attr.inherit ? (u64)atomic64_read(&ev->child_count) : 0;
}

/*
 * ev's count now, from the overflow path (NMI on x86; interrupts off): a
 * PMU counter keeps what it counted in its register until it is read, so
 * an event counting on this CPU is brought up to date first, as
 * perf_event_read_local() does.  One not counting here has it all in
 * ev->count.  With its exited copies' counts.
 */
static inline u64 pfm_event_count(struct perf_event *ev)
{
	if (pfm_event_counts_here(ev))
		ev->pmu->read(ev);
	return local64_read(&ev->count) + pfm_exited_copies(ev);
}

/*
 * The count of r's event rev (r->event, loaded once by the caller) at the
 * overflow of c, whose event is at count (ovfl_lock held).  Two PMDs
 * programmed alike count the same occurrences, as two hardware counters
 * do, but their perf events see one trigger (a breakpoint, a uprobe) in
 * turn, in an order of the kernel's: r may not have counted the
 * occurrence that overflowed c yet.  It takes c's count.
 */
static inline u64 pfm_count_at(const struct pfm_counter *r,
			       struct perf_event *rev,
			       const struct pfm_counter *c, u64 count)
{
	if (r->evtsel == c->evtsel && r->ext1 == c->ext1 && r->ext2 == c->ext2 &&
	    r->ext3 == c->ext3)
		return count;
	return pfm_event_count(rev);
}

struct pfm_set {
	struct list_head list;		/* ctx->sets, by increasing id */
	struct pfm_context *ctx;
	u16 id;
	u16 id_next;
	u32 flags;			/* PFM_SETFL_* */
	u64 timeout;			/* ns, effective */
	u64 runs;
	u64 act_duration;		/* ns active while started, unmasked */
	u64 act_since;			/* pfm_set_clock_now() at its start, or 0 */
	u64 switch_pmds[PFM_PMD_BV];
	struct pfm_counter ctr[PFM_NUM_COUNTERS];
};

struct pfm_context {
	struct mutex lock;		/* everything below, except as noted */
	enum pfm_state state;
	u32 flags;			/* PFM_FL_* */
	u32 load_flags;			/* PFM_LOADFL_* */
	bool started;
	bool exec_pending;		/* started by the exec to come, not PFM_START */
	bool self;			/* loaded on the thread that loaded it */
	bool kernel_ip;			/* creator may see kernel addresses */
	struct pid_namespace *pid_ns;	/* the opener's: the pids it is given */
	struct task_struct *task;	/* per-thread target while loaded */
	int cpu;			/* system-wide target while loaded */
	unsigned int cpu_downs;		/* pfm_cpu_downs(cpu) its events were made at */
	struct list_head loaded;	/* on pfm_loaded_list while loaded */
	struct pid *pid;		/* the target's pid, watched for its exit */
	struct wait_queue_entry exit_wait;
	bool exit_seen;			/* the target's process has ended */
	kuid_t owner;			/* charged for the context */

	struct list_head sets;		/* by increasing id; set0 always */
	unsigned int nsets;
	struct pfm_set *active;		/* the set on the PMU */
	struct perf_event *timer;	/* time-based switching, while loaded */

	/* ovfl_lock: the overflow handler's state and the message queue */
	raw_spinlock_t ovfl_lock;
	bool masked;
	bool switch_pending;
	u64 ovfl_pmds[PFM_PMD_BV];
	/* PMDs of the active set whose new period the irq_work writes */
	DECLARE_BITMAP(reload_pmds, PFM_NUM_COUNTERS);
	struct irq_work irq_work;	/* wake readers, queue switch_work */
	struct work_struct switch_work;
	struct work_struct revive_work;	/* its CPU back online */
	struct rcu_work free_work;	/* the free, a grace period after the close */
	/* the last detach's grace period (get_state_synchronize_rcu()),
	 * before which no set may be freed */
	unsigned long detach_gp;
	bool detach_gp_owed;
	struct pfm_switcher *switcher;	/* per-thread time-based switches */

	struct pfm_smpl *smpl;		/* the sampling format, or NULL */
	struct pfm_block *block;	/* with PFM_FL_NOTIFY_BLOCK */

	wait_queue_head_t msg_wait;
	union pfarg_msg msgq[PFM_MSGQ_DEPTH];
	unsigned int msg_head;
	unsigned int msg_count;
	u64 msg_dropped;
	/* times perf throttled one of the context's events (its handler,
	 * any CPU, NMI-safe): pfarg_ctxinfo.ctx_throttled */
	atomic64_t throttled;
};

/*
 * The clock of the sets' active durations: CLOCK_MONOTONIC, the same on
 * every CPU (a set's time starts on one CPU and may end on another) and
 * the clock user space measures with; safe in NMI.  Not local_clock():
 * where the TSC is unstable (the TCG test guest) it is a per-CPU clock
 * held within a tick of the timekeeping, and a set switched just after
 * the guest's CPU came back from a host stall lost the stall.
 */
static inline u64 pfm_set_clock_now(void)
{
	return ktime_get_mono_fast_ns();
}

/* pfm_pmu.c: the logical PMU */
int pfm_pmu_init(void);
int pfm_evtsel_to_attr(const struct pfm_counter *c, struct perf_event_attr *attr);
int pfm_evtsel_check(const struct pfm_counter *regs, u32 *retfl);
int pfm_reginfo_pmc(struct pfarg_reginfo *ri);
int pfm_reginfo_pmd(struct pfarg_reginfo *ri);
ssize_t pfm_pmu_describe(char *buf, bool pmcs);

/* pfm_ctx.c: the context state machine */
struct pfm_context *pfm_ctx_alloc(void);
void pfm_ctx_free(struct pfm_context *ctx);
void pfm_ctx_free_wait(void);
int pfm_ctx_create(struct pfm_context *ctx, const struct pfarg_ctx *arg);
int pfm_ctx_load(struct pfm_context *ctx, const struct pfarg_load *ld);
int pfm_ctx_unload(struct pfm_context *ctx);
int pfm_ctx_start(struct pfm_context *ctx, const struct pfarg_start *st);
int pfm_ctx_stop(struct pfm_context *ctx);
int pfm_ctx_write_pmc(struct pfm_context *ctx, struct pfarg_pmc *pmc);
int pfm_ctx_write_pmd(struct pfm_context *ctx, struct pfarg_pmd *pmd);
int pfm_ctx_read_pmd(struct pfm_context *ctx, struct pfarg_pmd *pmd);
int pfm_ctx_restart(struct pfm_context *ctx);
void pfm_ctx_info(struct pfm_context *ctx, struct pfarg_ctxinfo *ci);
int pfm_ctx_create_set(struct pfm_context *ctx, struct pfarg_setdesc *sd);
int pfm_ctx_delete_set(struct pfm_context *ctx, struct pfarg_setdesc *sd);
int pfm_ctx_getinfo_set(struct pfm_context *ctx, struct pfarg_setinfo *si);
void pfm_ctx_check_exit(struct pfm_context *ctx);
bool pfm_ctx_exit_pending(struct pfm_context *ctx);
bool pfm_ctx_has_msg(struct pfm_context *ctx);
int pfm_ctx_pop_msg(struct pfm_context *ctx, union pfarg_msg *msg);
void pfm_ctx_cache_destroy(void);
int pfm_ctx_cache_init(void);
int pfm_ctx_check_cpu(struct pfm_context *ctx, unsigned int nr);
int pfm_hotplug_init(void);
void pfm_hotplug_exit(void);

/* pfm_ovfl.c: overflow processing, randomisation, messages */
u32 pfm_random_step(u32 s);
u64 pfm_distance(u64 pmd);
void pfm_ovfl_handler(struct perf_event *ev, struct perf_sample_data *data,
		      struct pt_regs *regs);
void pfm_timer_handler(struct perf_event *ev, struct perf_sample_data *data,
		       struct pt_regs *regs);
void pfm_irq_work(struct irq_work *w);
void pfm_queue_msg_locked(struct pfm_context *ctx, const union pfarg_msg *msg);
struct pfm_block *pfm_block_new(void);
void pfm_block_put(struct pfm_block *b);
void pfm_unblock_locked(struct pfm_context *ctx);
void pfm_ctx_switch_pending(struct pfm_context *ctx);
void pfm_flush_overflows(struct pfm_context *ctx);
bool pfm_ovfl_pending_locked(struct pfm_context *ctx, struct pfm_counter *c,
			     u64 count);
u64 pfm_next_reset(struct pfm_counter *c, u64 base);
void pfm_rearm(struct perf_event *ev, u64 period);
extern atomic_t pfm_nr_contexts;
void pfm_task_works_wait(void);

/* pfm_fmt.c: the registry of sampling formats */
const struct pfm_smpl_fmt *pfm_fmt_get(const char *name, const u8 *uuid);
void pfm_fmt_put(const struct pfm_smpl_fmt *fmt);
int pfm_fmt_info(struct pfarg_fmtinfo *fi);
ssize_t pfm_fmt_describe(char *buf);

/* pfm_smpl.c: the sampling buffer of a context and its samples */
int pfm_smpl_create(struct pfm_context *ctx, const struct pfarg_ctx *arg);
void pfm_smpl_free(struct pfm_context *ctx);
int pfm_smpl_mmap(struct pfm_context *ctx, struct vm_area_struct *vma);
unsigned int pfm_smpl_handler(struct pfm_context *ctx, struct pfm_set *set,
			      struct pfm_counter *c, u64 count, u64 late,
			      struct pt_regs *regs);
int pfm_smpl_restart_locked(struct pfm_context *ctx, bool masked);
u64 pfm_smpl_mem(void);

#endif
