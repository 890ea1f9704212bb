/* pfmon's sampling session: one run of a command sampled on its threads
 * and children (or of a task, or of a list of CPUs) by the session engine
 * (monitor.h), its samples kept with the mappings recorded while the
 * processes lived and the counts of the samplers' events.  What follows
 * the run lives above: the resolution in lib/profile/smpl_resolve.h, the
 * files, summary and profile in lib/report/smpl_report.h. */
#ifndef PX_SMPL_SESSION_H
#define PX_SMPL_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "events.h"
#include "target.h"
#include "monitor.h"
#include "procfs.h"
#include "bigbuf.h"
#include "sampler.h"
#include "smpl_spec.h"

struct px_smpl_session_opts {
	/* the run, as counting gives it (sets, switching, the command, task
	 * or CPUs, the timers, on_start and on_interval, which may sum the
	 * samplers' statistics with px_smpl_totals()); its sampling,
	 * inherit and system_wide are the session's */
	struct px_monitor_opts mon;
	const struct px_smpl_pmd *const *pmds;	/* [mon.nsets] each set's */
	struct px_smpl_opts smpl;	/* on_sample/arg are the session's */
	/* each file mapping recorded during the run, as it is drained
	 * (NULL: not told) */
	void (*on_map)(void *arg, const struct px_mapping *m);
	void *map_arg;
};

struct px_smpl_rec;


struct px_smpl_session {
	struct px_smpl_session_opts o;
	struct px_smpl_stats st;	/* summed over the samplers */
	struct px_run run;
	int exec_errno;			/* the command could not be run */
	size_t nevents;			/* events over all sets */
	uint64_t *per_event;		/* [nevents] samples by set and PMD,
					 * set 0's events first */
	/* [nevents] each event's count over the run (px_value): how to
	 * scale its samples (value / raw, ci95_pct) when its set was not
	 * active the whole time */
	struct px_value *event_values;
	uint64_t *set_runs;		/* [nsets] activations of each set */
	struct px_smpl_rec *recs;
	size_t nrecs, cap;
	uint64_t *vals;			/* sample bodies, back to back */
	size_t nvals, vcap;
	struct px_mapping *maps;
	size_t nmaps;
	struct px_task_event *tasks;
	size_t ntasks;
	struct px_proc_name *names;	/* every process read at the start
					 * (system-wide, attached), its name */
	size_t nnames, names_cap;
	/* call graphs: the chains' addresses as recorded, back to back, and
	 * with DWARF each sample's registers and stack copy */
	uint64_t *chain_ips;
	size_t nchain_ips, chain_cap;
	struct px_bigbuf stacks;
};

/* Run the session (px_monitor_run with sampling): the command is spawned
 * held, sampled and waited for (or the task attached, or the CPUs sampled
 * until the timeout or a signal), and its samples and records kept for
 * the resolution (lib/profile/smpl_resolve.h).  Returns 0 (the command's
 * status is in s->run.exit_code), or -errno with px_last_error(); a
 * command that cannot be executed sets s->exec_errno and returns -errno
 * of the exec.  Free s with px_smpl_session_free() in every case. */
int px_smpl_session_run(const struct px_smpl_session_opts *o,
			struct px_smpl_session *s);
void px_smpl_session_free(struct px_smpl_session *s);

/* The index of set s's event i in per_event and event_values. */
size_t px_smpl_event_index(const struct px_smpl_session_opts *o, size_t s, size_t i);

/* The name of set s's event i in the summary and the profiles: the
 * event's, and "EVENT (set S)" with several sets. */
void px_smpl_event_label(const struct px_smpl_session_opts *o, size_t s, size_t i,
			 char *buf, size_t len);

/* The statistics of every sampler of a running session, summed. */
void px_smpl_totals(const struct px_monitor *m, struct px_smpl_stats *st);

/* All the samples lost: by the kernel's ring, to saturation or masking,
 * and to a double buffer's cycling. */
uint64_t px_smpl_lost_total(const struct px_smpl_stats *st);

#endif
