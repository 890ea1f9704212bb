/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfmon.ko internals: the context, its logical PMU and the limits.
 */
#ifndef PFM_H
#define PFM_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/uidgid.h>
#include <linux/wait.h>

#include "perfmon.h"

#define PFM_MSGQ_DEPTH	8

/* limits (module parameters, also changed by PFM_SET_CONFIG) */
extern unsigned int pfm_arg_size_max;
extern unsigned int pfm_ctx_per_user_max;
extern unsigned int pfm_sys_gid;
extern unsigned int pfm_thread_gid;
extern bool pfm_hw_pmu;

enum pfm_state {
	PFM_CTX_NEW,		/* opened, PFM_CREATE_CONTEXT not yet done */
	PFM_CTX_UNLOADED,
	PFM_CTX_LOADED,
};

/* one counter of the logical PMU: PMC i, 64 + i, 128 + i and PMD i */
struct pfm_counter {
	u64 evtsel;
	u64 ext1;
	u64 ext2;
	struct perf_event *event;	/* while loaded, when evtsel != 0 */
	u64 value;			/* PMD value while there is no event */
	u64 offset;			/* PMD = offset + event count */
	u64 enabled;			/* times of released events, ns */
	u64 running;
};

struct pfm_context {
	struct mutex lock;		/* everything below */
	enum pfm_state state;
	u32 flags;			/* PFM_FL_* */
	u32 load_flags;			/* PFM_LOADFL_* */
	bool started;
	bool self;			/* loaded on the thread that loaded it */
	struct task_struct *task;	/* per-thread target while loaded */
	int cpu;			/* system-wide target while loaded */
	struct list_head loaded;	/* on pfm_loaded_list while loaded */
	struct pid *pid;		/* the target's pid, watched for its exit */
	struct wait_queue_entry exit_wait;
	bool exit_seen;			/* the target's process has ended */
	kuid_t owner;			/* charged for the context */

	wait_queue_head_t msg_wait;
	spinlock_t msg_lock;
	union pfarg_msg msgq[PFM_MSGQ_DEPTH];
	unsigned int msg_head;
	unsigned int msg_count;
	u64 msg_dropped;

	struct pfm_counter ctr[PFM_NUM_COUNTERS];
};

/* pfm_pmu.c: the logical PMU */
int pfm_pmu_init(void);
int pfm_evtsel_to_attr(const struct pfm_counter *c, struct perf_event_attr *attr);
int pfm_evtsel_check(u64 evtsel, u64 ext1, u64 ext2, u32 *retfl);
int pfm_reginfo_pmc(struct pfarg_reginfo *ri);
int pfm_reginfo_pmd(struct pfarg_reginfo *ri);
ssize_t pfm_pmu_describe(char *buf, bool pmcs);

/* pfm_ctx.c: the context state machine */
struct pfm_context *pfm_ctx_alloc(void);
void pfm_ctx_free(struct pfm_context *ctx);
int pfm_ctx_create(struct pfm_context *ctx, const struct pfarg_ctx *arg);
int pfm_ctx_load(struct pfm_context *ctx, const struct pfarg_load *ld);
int pfm_ctx_unload(struct pfm_context *ctx);
int pfm_ctx_start(struct pfm_context *ctx, const struct pfarg_start *st);
int pfm_ctx_stop(struct pfm_context *ctx);
int pfm_ctx_write_pmc(struct pfm_context *ctx, struct pfarg_pmc *pmc);
int pfm_ctx_write_pmd(struct pfm_context *ctx, struct pfarg_pmd *pmd);
int pfm_ctx_read_pmd(struct pfm_context *ctx, struct pfarg_pmd *pmd);
void pfm_ctx_check_exit(struct pfm_context *ctx);
bool pfm_ctx_exit_pending(struct pfm_context *ctx);
bool pfm_ctx_has_msg(struct pfm_context *ctx);
int pfm_ctx_pop_msg(struct pfm_context *ctx, union pfarg_msg *msg);
void pfm_ctx_cache_destroy(void);
int pfm_ctx_cache_init(void);
extern atomic_t pfm_nr_contexts;

#endif
