/* What sampling is given and gives back, on either backend: the formats,
 * each event's sampling settings (periods, randomisation, what its
 * samples carry, triggers), the buffer's settings, and the records and
 * statistics a sampling group hands back.  The operations are the
 * backend's (backend.h); how the perf backend maps the perfmon2 sampling
 * semantics onto perf_events is in lib/backend/perf/sampler_perf.h. */
#ifndef PX_SAMPLER_H
#define PX_SAMPLER_H

#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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
	uint64_t ino;		/* the file's inode (0: not known) */
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

/* The settings every sampler refuses (count, format, smpl_pmds beyond the
 * events, randomisation mask and seed, no sampling event), in
 * lib/backend/sampler_check.c.  Returns 0 or -errno with px_last_error(). */
int px_smpl_check(const struct px_event *evs, size_t n,
		  const struct px_smpl_pmd *pmds, const struct px_smpl_opts *o);

/* Whether a sampling PMD's period changes at its overflows (randomised,
 * or a short period other than the long one): the perf backend's sampler
 * then stops the task at every overflow (perf/sampler_perf.h), which needs a
 * target that is one traced task, opened just after its exec. */
bool px_smpl_periods_change(const struct px_smpl_pmd *pmds, size_t n);

#endif
