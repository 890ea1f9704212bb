/* Event-based sampling on perf_events, recorded in the perfmon2 sampling
 * formats (formats/default, formats/double-buffer), so that the perf
 * backend and the kernel module (lib/backend/module/sampler_module.c, through
 * px_sampler_ops below) hand the tool the same records.
 *
 * Events are PMDs in the order given (PMD i = evs[i]), all in one perf
 * group.  An event with a period samples; the others only count and are
 * recorded in the bodies of the samples whose smpl_pmds name them.
 *
 * Event sets: on perf_events a sampler samples one set (o->set, recorded
 * in its samples), and the session (lib/session/monitor.c) opens one per
 * set and switches them with pause(); a set's trigger (switch_ovfls, its
 * first event) is started with perf's event limit, which stops the group
 * at the overflow that ends the set's turn.  The module's sampler opens
 * every set in one context (open_sets) and the kernel switches them.
 *
 * How the perfmon2 semantics map onto perf_events:
 *  - the sampling buffer is a user-space buffer in the chosen format; the
 *    perf ring buffer only carries the kernel's records to it;
 *  - default format: each sample goes through the spec's post-check; a
 *    full buffer is handed to the tool (on_sample for each sample, a
 *    "notification") when an overflowed PMD has notify, then reset
 *    (PFM_RESTART) and the PMD gets its long period once; without notify
 *    the buffer saturates: the samples that reach the tool after it are
 *    dropped (the mask; the kernel still writes them, so each is counted)
 *    and the buffer is handed over at the end;
 *  - blocking: by default the monitored task keeps running while the tool
 *    takes its notification, and what it does meanwhile waits in the ring
 *    buffer, so nothing is lost (the effect of PFM_FL_NOTIFY_BLOCK);
 *    with no_block (pfmon --no-overflow-block), the spec's non-blocking
 *    mask: the tool is woken by every sample (wakeup_events = 1), and the
 *    samples taken after the one that filled the buffer and written
 *    before the tool's restart (the rings' heads then) fell in the mask:
 *    they are dropped (counted in dropped, as the module counts its
 *    masked overflows), which leaves blind spots of the tool's latency;
 *  - double-buffer format: the ring wakes the tool at half its size, a
 *    full half is handed over while recording goes on in the other, and
 *    samples are dropped only when both halves are full with
 *    MASK_WHEN_FULL;
 *  - periods: the first is the long period, then the short period after
 *    every sample recorded without notification, the long one for the one
 *    sample after each restart (pfmon's meaning).  A change is applied with
 *    PERF_EVENT_IOC_PERIOD while the task is stopped.  Periods that change
 *    at overflows (randomisation, or a short period other than the long)
 *    cannot be set while the task runs: the new period would start when
 *    the tool gets to it, and PERF_EVENT_IOC_PERIOD on a running
 *    software-counted event (breakpoint, uprobe, page-faults) takes its
 *    next occurrence as an overflow.  So such a sampler stops the task at
 *    every overflow (attr.sigtrap: a synchronous SIGTRAP, TRAP_PERF, that
 *    the tracing caller sees as a ptrace stop), and the caller drains it
 *    there (px_sampler_drain()), which sets the next period before the
 *    task runs on: the kernel loads it whole when the task is scheduled
 *    in again, as perfmon2 reloads the PMD in its overflow handler.  The
 *    kernel's sigtrap events end at exec (remove_on_exec), so they are
 *    opened on the traced task stopped just after its exec, and only on
 *    that one task (no inherit, no CPU-wide rings);
 *  - last_reset_val is the PMD value perfmon would have loaded:
 *    2^64 - period.  Randomisation is value = base + (random & mask) on
 *    that value, so periods lie in [period - mask, period] and the mask
 *    must be smaller than the period.
 */
#ifndef PX_SAMPLER_H
#define PX_SAMPLER_H

#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "backend.h"
#include "default/px_dfl.h"
#include "events.h"

enum px_smpl_format {
	PX_SMPL_DEFAULT = 0,		/* formats/default */
	PX_SMPL_DOUBLE_BUFFER,		/* formats/double-buffer */
	PX_SMPL_CALLCHAIN,		/* formats/callchain: with call chains */
};

/* How call chains are recorded (the callchain format, and only it). */
enum px_callgraph {
	PX_CALLGRAPH_NONE = 0,
	PX_CALLGRAPH_FP,	/* kernel and user chains by frame pointers */
	PX_CALLGRAPH_DWARF,	/* the kernel chain, and the user registers
				 * and a stack copy, unwound after the run
				 * (the perf backend only) */
};

#define PX_CALLGRAPH_MAX_FRAMES 127	/* frames per chain, as perf's
					 * kernel.perf_event_max_stack */
#define PX_CALLGRAPH_STACK_BYTES 8192	/* stack copied per sample, as perf's
					 * --call-graph=dwarf */

/* Sampling settings of one PMD (one event). */
struct px_smpl_pmd {
	uint64_t long_period;	/* 0: this PMD only counts */
	uint64_t short_period;	/* 0: the long period */
	bool random;		/* randomise every reset */
	uint32_t random_mask;	/* at most 31 bits, below the short period */
	uint32_t random_seed;	/* not 0 (see lib/base/random.h) */
	uint64_t smpl_pmds;	/* bit i: PMD i's value in this PMD's samples */
	bool notify;		/* PFM_REGFL_OVFL_NOTIFY: hand over full buffers */
	/* > 0: a trigger (spec 6.4): its set is switched out after this
	 * many of its overflows in one activation (PFM_SETFL_OVFL_SWITCH);
	 * the set then has no time-based switching */
	uint64_t switch_ovfls;
};

/* One event set of a sampling session: its events (PMDs 0..n-1 of the
 * set) and their sampling settings. */
struct px_smpl_set {
	const struct px_event *evs;
	size_t n;
	const struct px_smpl_pmd *pmds;
};

struct px_mapping;

struct px_smpl_opts {
	enum px_smpl_format format;
	size_t entries;		/* buffer capacity in maximum-size samples;
				 * 0: 4096 */
	bool mask_when_full;	/* double-buffer: saturate instead of cycling */
	bool no_block;		/* default format: do not hold the task
				 * during notifications (mask instead) */
	unsigned ring_pages;	/* perf ring data pages (a power of 2); 0: 256 */
	/* the event set whose PMDs these are, recorded in each sample (the
	 * perf backend: one sampler per set, switched by the tool) */
	uint16_t set;
	/* no mapping and task records (another sampler of the same target,
	 * set 0's, records them) */
	bool no_sideband;
	/* call chains: with format PX_SMPL_CALLCHAIN, and only then */
	enum px_callgraph callgraph;
	unsigned max_frames;	/* frames per chain; 0: PX_CALLGRAPH_MAX_FRAMES */
	uint32_t stack_bytes;	/* DWARF: stack bytes per sample, a multiple
				 * of 8; 0: PX_CALLGRAPH_STACK_BYTES */
	/* every sample, in order, when its buffer (or half) is handed over;
	 * a non-zero return is passed back by the call that handed it over */
	px_sample_fn on_sample;
	/* each file mapping the side band records, as it is drained during
	 * the run (a hint: the session's records hold them all at the end) */
	void (*on_map)(void *arg, const struct px_mapping *m);
	void *arg;
};

/* A PERF_RECORD_MMAP2: where a file was mapped, for symbol resolution. */
struct px_mapping {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t prot, flags;
	char path[PATH_MAX];
	uint64_t time;		/* when mapped (perf's clock, as the samples'
				 * time); lib/symbols/procs.h for those read */
};

/* PERF_RECORD_COMM, _FORK and _EXIT. */
enum px_task_kind { PX_TASK_COMM, PX_TASK_FORK, PX_TASK_EXIT };
struct px_task_event {
	enum px_task_kind kind;
	uint32_t pid, tid;	/* the task concerned */
	uint32_t ppid, ptid;	/* FORK/EXIT: its parent */
	uint64_t time;		/* when (perf's clock, as the samples' time);
				 * 0: not known */
	bool exec;		/* COMM: the name changed by execve() */
	char comm[16];		/* COMM */
};

/* Every overflow is recorded or lost in one of the ways below:
 * overflows = samples + lost + dropped + overwritten + late.  (On
 * either backend, the overflows the kernel throttles are neither: see
 * throttled.) */
struct px_smpl_stats {
	uint64_t overflows;	/* overflows of the sampling PMDs seen */
	uint64_t samples;	/* recorded in the buffer and kept */
	uint64_t lost;		/* the kernel could not store (ring full):
				 * PERF_RECORD_LOST */
	uint64_t dropped;	/* reached us while the format was saturated,
				 * or taken while masked (no_block) */
	uint64_t overwritten;	/* double-buffer: lost to cycling in a half */
	uint64_t late;		/* module: periods that ended with no
				 * interrupt in time (the PMU raised it
				 * after more periods had passed), so with
				 * no sample: ctx_smpl_late */
	uint64_t buffer_full;	/* times the buffer (a half) became full */
	uint64_t notifications;	/* full buffers (halves) handed to the tool */
	uint64_t restarts;	/* buffer restarts after a notification */
	uint64_t period_changes; /* PERF_EVENT_IOC_PERIOD calls */
	uint64_t side_lost;	/* mapping and task records the kernel could
				 * not store (samples may then resolve less) */
	uint64_t throttled;	/* times the kernel throttled sampling
				 * (kernel.perf_event_max_sample_rate): its
				 * overflows meanwhile are neither recorded
				 * nor counted */
};

struct px_sampler;

/* The settings every sampler refuses (count, format, smpl_pmds beyond the
 * events, randomisation mask and seed, no sampling event), in
 * lib/backend/sampler_check.c.  Returns 0 or -errno with px_last_error(). */
int px_smpl_check(const struct px_event *evs, size_t n,
		  const struct px_smpl_pmd *pmds, const struct px_smpl_opts *o);

/* Whether a sampling PMD's period changes at its overflows (randomised,
 * or a short period other than the long one): the perf backend's sampler
 * then stops the task at every overflow (see above), which needs a
 * target that is one traced task, opened just after its exec. */
bool px_smpl_periods_change(const struct px_smpl_pmd *pmds, size_t n);

struct px_sampler_ops;

/* What a sampler cannot do with these sets on this target (the perf
 * sampler's limits with changing periods and triggers; see above).
 * 0, or -EINVAL with px_last_error() saying what to change. */
int px_sampler_check_run(const struct px_sampler_ops *ops,
			 const struct px_event_set *sets, size_t nsets,
			 const struct px_smpl_pmd *const *pmds,
			 bool system_wide, bool follow);

/* Open the events on the target, stopped (or armed for exec with
 * t->enable_on_exec).  inherit samples the children too (one ring per
 * CPU, as perf needs).  Returns 0 or -errno with px_last_error(). */
int px_sampler_open(const struct px_event *evs, size_t n,
		    const struct px_smpl_pmd *pmds,
		    const struct px_target *t, const struct px_smpl_opts *o,
		    struct px_sampler **out);
int px_sampler_enable(struct px_sampler *s);
int px_sampler_disable(struct px_sampler *s);
/* The ops' pause, switch_due and read (below). */
int px_sampler_pause(struct px_sampler *s, bool on);
bool px_sampler_switch_due(const struct px_sampler *s);
int px_sampler_read(struct px_sampler *s, struct px_count *counts);
/* Wait up to timeout_ms for the rings to wake us, then process them. */
int px_sampler_poll(struct px_sampler *s, int timeout_ms);
/* Process what the rings hold now. */
int px_sampler_drain(struct px_sampler *s);
/* The descriptors px_sampler_poll() waits on: the count, the first max of
 * them in fds. */
size_t px_sampler_pollfds(const struct px_sampler *s, struct pollfd *fds, size_t max);
/* The stopped task pid has just run another program: a sampler that
 * stops at overflows (its events ended at the exec) opens them again,
 * each sampling PMD with what was left of its period and every count
 * going on from where it was, as one counter across the exec would.
 * Nothing to do for other samplers.  0 or -errno. */
int px_sampler_exec(struct px_sampler *s, pid_t pid);
/* Disable, drain, and hand over the samples still in the buffer. */
int px_sampler_finish(struct px_sampler *s);
void px_sampler_close(struct px_sampler *s);

void px_sampler_stats(const struct px_sampler *s, struct px_smpl_stats *st);
/* The mappings and task events seen so far (valid until close). */
size_t px_sampler_mappings(const struct px_sampler *s,
			   const struct px_mapping **m);
size_t px_sampler_tasks(const struct px_sampler *s,
			const struct px_task_event **t);
/* The format buffer (for px_dfl_read()/px_dbl_read()) and its body
 * callback: pass px_sampler_body with the sampler as its argument. */
const void *px_sampler_buffer(const struct px_sampler *s, size_t *len);
int px_sampler_body(void *sampler, unsigned set, unsigned ovfl_pmd);

/* The sampler interface, as each backend gives it: the functions above
 * for perf_events (px_sampler_perf_ops, lib/backend/perf/sampler_perf_ops.c), the perfmon
 * kernel module's (px_sampler_module_ops, lib/backend/module/sampler_module.c).  The
 * module's sampler records no MMAP/COMM/FORK records: its mappings()
 * and tasks() are empty, the caller takes the mappings itself. */
struct px_sampler_ops {
	const char *name;
	/* What the sampler does itself: records its tasks' mappings and
	 * names as they happen (a side band; else the session reads them
	 * from /proc when a traced process exits), and follows the children
	 * and threads of a command (perf's inherit; else the session traces
	 * them and opens a sampler on each). */
	bool task_mappings;
	bool inherits;
	int (*open)(const struct px_event *evs, size_t n,
		    const struct px_smpl_pmd *pmds, const struct px_target *t,
		    const struct px_smpl_opts *o, void **out);
	int (*enable)(void *s);
	int (*poll)(void *s, int timeout_ms);
	int (*finish)(void *s);
	void (*close)(void *s);
	void (*stats)(const void *s, struct px_smpl_stats *st);
	size_t (*mappings)(const void *s, const struct px_mapping **m);
	size_t (*tasks)(const void *s, const struct px_task_event **t);
	/* whether the sampler stops its task at every overflow for these
	 * settings (NULL: never); the session (lib/session/monitor.c) then opens it on the
	 * traced task stopped (the command just after its exec) and drains it at each stop */
	bool (*stops)(const struct px_smpl_pmd *pmds, size_t n);
	/* the stopped command ran another program (NULL: nothing to do) */
	int (*exec)(void *s, pid_t pid);
	/* the descriptors that wake the caller when poll() has work: the
	 * count, with the first max of them in fds */
	size_t (*pollfds)(const void *s, struct pollfd *fds, size_t max);
	/* counts[i] of every event (over every set with open_sets, one set
	 * after the other): its count and the time its set was enabled and
	 * ran, for the scaling of the set's sample counts.  0 or -errno. */
	int (*read)(void *s, struct px_count *counts);

	/* Sets the tool switches (one sampler per set, open_sets NULL):
	 * stop or start the set's samples, not the records of mappings and
	 * tasks.  With a trigger (switch_ovfls), starting arms it for that
	 * many overflows, after which the kernel stops the set's samples
	 * and switch_due() tells it. */
	int (*pause)(void *s, bool on);
	bool (*switch_due)(const void *s);

	/* Optional: the backend switches the sets (the module: one context
	 * with every set).  Sets without a trigger switch every switch_ns
	 * of the target's time (a thread's CPU time, a CPU's wall time);
	 * each sample carries its set.  Then activations() gives, for every
	 * event as read()'s counts, the sums over its set's activations
	 * (scale.h), and set_runs() how many times each set was active. */
	int (*open_sets)(const struct px_smpl_set *sets, size_t nsets,
			 const struct px_target *t, const struct px_smpl_opts *o,
			 uint64_t switch_ns, void **out);
	int (*activations)(void *s, struct px_activations *acts);
	int (*set_runs)(void *s, uint64_t *runs, size_t nsets);
};

extern const struct px_sampler_ops px_sampler_perf_ops;
extern const struct px_sampler_ops px_sampler_module_ops;

#endif
