/* Event-based sampling on perf_events, recorded in the perfmon2 sampling
 * formats (formats/default, formats/double-buffer), so that the perf
 * backend and the kernel module (lib/backend/module/sampler_module.c)
 * hand the tool the same records.  The perf backend's sampling groups
 * (backend_perf.c) are these samplers.
 *
 * Events are PMDs in the order given (PMD i = evs[i]), all in one perf
 * group.  An event with a period samples; the others only count and are
 * recorded in the bodies of the samples whose smpl_pmds name them.
 *
 * Event sets: on perf_events a sampler samples one set (o->set, recorded
 * in its samples), and the session (lib/session/monitor.c) opens one per
 * set and switches them with pause() (the group's disable and enable); a set's trigger (switch_ovfls, its
 * first event) is started with perf's event limit, which stops the group
 * at the overflow that ends the set's turn.  The module's sampler opens
 * every set in one context and the kernel switches them.
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
#ifndef PX_SAMPLER_PERF_H
#define PX_SAMPLER_PERF_H

#include "backend.h"
#include "sampler.h"

struct px_sampler;

/* Open the events on the target, stopped (or armed for exec with
 * t->enable_on_exec).  inherit samples the children too (one ring per
 * CPU, as perf needs).  Returns 0 or -errno with px_last_error(). */
int px_sampler_open(const struct px_event *evs, size_t n,
		    const struct px_smpl_pmd *pmds,
		    const struct px_target *t, const struct px_smpl_opts *o,
		    struct px_sampler **out);
/* The sampler as a group of the perf backend, and back. */
struct px_group *px_sampler_group(struct px_sampler *s);
struct px_sampler *px_group_sampler(const struct px_group *g);
/* The first call starts the side band and the samples (the samples armed
 * for exec when opened so), later ones the samples (stopped by
 * px_sampler_pause()).  disable stops both. */
int px_sampler_enable(struct px_sampler *s);
int px_sampler_disable(struct px_sampler *s);
/* Stop or start the samples only, not the records of mappings and tasks
 * (the tool switching the sets).  With a trigger (switch_ovfls), starting
 * arms it for that many overflows, after which the kernel stops the set's
 * samples and px_sampler_switch_due() tells it. */
int px_sampler_pause(struct px_sampler *s, bool on);
bool px_sampler_switch_due(const struct px_sampler *s);
/* counts[i] of every event: its count and the time it was enabled and
 * ran, for the scaling of the set's sample counts. */
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

#endif
