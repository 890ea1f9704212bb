/* A measurement session for perfex, pfmon and the sampling runs: event
 * sets multiplexed round-robin over measured units, which are either
 * threads (a command or an attached task, and the tasks it creates when
 * followed) or CPUs (system-wide); each unit has the backend's groups of
 * the sets, which count, and with sampling settings also sample.  One
 * loop, whatever the target: timers (set switch, session timeout, print
 * interval), signals, ptrace events of the traced tasks and the sampling
 * groups' wake-ups. */
#ifndef PX_MONITOR_H
#define PX_MONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "backend.h"
#include "events.h"
#include "scale.h"
#include "target.h"

#define PX_FOLLOW_FORK    1u
#define PX_FOLLOW_VFORK   2u
#define PX_FOLLOW_PTHREAD 4u
#define PX_FOLLOW_EXEC    8u
#define PX_FOLLOW_ALL     15u

struct px_monitor;

/* Sampling: every unit's groups sample (sampling is counting plus a
 * buffer): one group per set, the tool switching them (the stopped set's
 * samples paused, the next one's started), or one for all the sets when
 * the backend switches them.  A set whose sampling event is a trigger
 * (switch_ovfls) is switched out after that many overflows, the others
 * every switch_ns.  A sampling group records from its open, so the groups
 * are opened when the session starts (the command held before its exec,
 * armed for it, or at its exec stop when they stop their task; an
 * attached task stopped; each CPU) and on each followed task at its
 * first stop; they are finished (disabled, drained, their last buffers
 * handed over) when the session stops. */
struct px_monitor_sampling {
	const struct px_smpl_pmd *const *pmds;	/* [nsets] each set's */
	struct px_smpl_opts opts;
	/* a traced process stopped at its exit, its memory still mapped
	 * (the module records no mappings: the caller reads them then) */
	void (*at_exit)(pid_t pid, void *arg);
	void *arg;
};

struct px_monitor_opts {
	const struct px_backend *backend;
	struct px_event_set *sets;
	size_t nsets;
	uint64_t switch_ns;		/* set switch timeout; 0: 100 ms */
	uint64_t session_timeout_ns;	/* 0: until the command ends */
	unsigned follow;		/* PX_FOLLOW_* */
	/* The command's counters or sampler follow its children and threads
	 * themselves (perf's inherit): one unit for them all, no following
	 * by ptrace.  Counting so, the command is not traced at all once
	 * released to its exec (perfex). */
	bool inherit;
	char *const *argv;		/* the command, or NULL */
	/* The command already forked by px_child_fork() (the caller had work
	 * to do while it started), run instead of forking argv; its argv is
	 * still given.  NULL: fork argv. */
	struct px_child *child;
	pid_t attach_pid;		/* > 0: attach to this task instead */
	bool system_wide;
	const int *cpus;		/* system-wide: the CPUs */
	size_t ncpus;
	uint64_t print_interval_ns;	/* > 0: call on_interval that often */
	/* Called with every unit's counts read as they stand now. */
	void (*on_interval)(const struct px_monitor *m, void *arg);
	void *interval_arg;
	/* Called once the counters are attached and counting (the command
	 * exec'd, the attached task let go on, every CPU's counters on). */
	void (*on_start)(const struct px_monitor *m, void *arg);
	void *start_arg;
	const struct px_monitor_sampling *sampling;	/* NULL: counting */
};

/* One measured thread or CPU and its counts. */
struct px_unit {
	pid_t pid;		/* process (tgid), -1 for a CPU */
	pid_t tid;		/* thread, -1 for a CPU */
	int cpu;		/* -1 for a thread */
	char comm[32];
	/* [ngroups] the backend's group of each set, NULL if none (with
	 * kernel_sets groups[0] alone, for every set) */
	struct px_group **groups;
	int *status;		/* [total events] 0 or -EOPNOTSUPP */
	struct px_count *counts; /* [total events], read at the end */
	/* [total events] with sets the tool switches: each counter's
	 * activations, for the uncertainty of its scaled value; else NULL */
	struct px_activations *acts;
	/* with sets the tool switches: a counter enabled the whole session,
	 * never switched, whose enabled time is the unit's (monitor.c:
	 * open_clock); NULL otherwise */
	struct px_group *clock;
	struct px_count clock_count;	/* read with the counts */
	bool frozen;		/* exec'd without --follow-exec: counting stopped */
	/* its counters start at the command's exec (inherit), not when the
	 * session starts: enabled earlier, they would count the last steps
	 * of the held copy before its exec */
	bool at_exec;
	bool smpl_hup;		/* its descriptors hung up: its task ended */
};

struct px_monitor {
	struct px_monitor_opts opts;
	size_t nevents_total;	/* events over all sets */
	struct px_unit *units;
	size_t nunits, cap;
	size_t cur_set;
	uint64_t *set_runs;	/* [nsets] how many times each set was activated */
	bool kernel_sets;	/* the backend switches sets, not the tool:
				 * each unit's groups[0] holds all its sets */
	size_t ngroups;		/* groups per unit */
	bool started;
	uint64_t start_ns, elapsed_ns;
	int exec_errno;		/* the command's exec failed with this
				 * errno (px_monitor_run() then returned
				 * -exec_errno, its message "cannot run
				 * 'CMD': ..."); 0 otherwise */
	int exit_code;		/* the command's, as a shell gives it */
	int signal;
	bool timed_out;
	bool interrupted;
	bool smpl_stops;	/* the sampling groups stop their task at overflows */
	bool smpl_finished;
};

/* Run the session to its end (command exit, task exit, timeout or
 * SIGINT/SIGTERM).  Returns 0, or -errno with px_last_error(); a command
 * that cannot be executed returns -errno of the exec, with m->exec_errno
 * set (px_exec_exit_code() gives the shell's status for it). */
int px_monitor_run(const struct px_monitor_opts *opts, struct px_monitor *m);
void px_monitor_free(struct px_monitor *m);

/* Sampling: process what the units' groups hold now (for an interval
 * report).  0 or -errno. */
int px_monitor_drain(struct px_monitor *m);

/* The value of set s, event i in unit u, scaled to the unit's whole time
 * (its sets' times, and half the moments between them its clock saw),
 * with its interval; NULL: the sum over
 * all units (mon_value.c). */
void px_mon_value(const struct px_monitor *m, const struct px_unit *u,
		  size_t s, size_t i, struct px_value *v);

/* Index of set s's event i in a unit's counts/status arrays. */
size_t px_monitor_index(const struct px_monitor *m, size_t set, size_t i);

#endif
