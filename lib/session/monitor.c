/* The session engine: one poll loop over SIGCHLD (ptrace events of the
 * followed tasks), the set-switch timer, the session timeout, the print
 * interval, the signals that end a session and the sampling groups'
 * wake-ups.  Each unit has a backend group per set, switched by the tool;
 * a backend that switches the sets itself (the module) has one group for
 * all of them, started and stopped as a whole, and the set-switch timer
 * is not armed. */
#include "monitor.h"
#include "error.h"
#include "grow.h"
#include "procfs.h"
#include "target.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEFAULT_SWITCH_NS 100000000ull

#ifndef TRAP_PERF
#define TRAP_PERF 6		/* si_code of perf's synchronous SIGTRAP */
#endif

struct loop {
	struct px_monitor *m;
	int sigfd, switchfd, timeoutfd, intervalfd;
	sigset_t old_mask;
	pid_t main_pid;		/* the command or the attached task */
	bool traced;		/* units are ptraced threads */
	bool main_exec_seen;	/* the command's own exec happened */
	size_t live;		/* traced tasks still alive */
	bool main_done;
	unsigned passed;	/* signals sent to us and passed on */
};

size_t px_monitor_index(const struct px_monitor *m, size_t set, size_t i)
{
	size_t base = 0;

	for (size_t s = 0; s < set; s++)
		base += m->opts.sets[s].n;
	return base + i;
}

static void read_comm(pid_t tid, char *comm, size_t len)
{
	if (!px_proc_comm(tid, comm, len))
		snprintf(comm, len, "?");
}

static pid_t tgid_of(pid_t tid)
{
	char path[64], line[128];
	pid_t tgid = tid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return tid;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

static struct px_unit *find_unit(struct px_monitor *m, pid_t tid)
{
	for (size_t i = 0; i < m->nunits; i++)
		if (m->units[i].tid == tid)
			return &m->units[i];
	return NULL;
}

/* Set s's group of unit u; NULL when it has none (with the backend
 * switching the sets, group 0 holds them all). */
static struct px_group *set_group(const struct px_monitor *m, const struct px_unit *u,
				  size_t s)
{
	return s < m->ngroups ? u->groups[s] : NULL;
}

static int enable_set(struct px_monitor *m, struct px_unit *u, size_t set, bool on)
{
	struct px_group *g = set_group(m, u, set);

	if (!g || u->frozen)
		return 0;
	return on ? px_group_enable(g) : px_group_disable(g);
}

/* Several sets switched by pfmon, not the backend. */
static bool tool_switches_sets(const struct px_monitor *m)
{
	return m->opts.nsets > 1 && !m->kernel_sets;
}

/* Several sets: their counts are scaled, and each counter's activations
 * tell by how much they may be off (seen by pfmon when it switches the
 * sets, kept by the backend when it does). */
static bool tracks_activations(const struct px_monitor *m)
{
	return m->opts.nsets > 1 && (!m->kernel_sets || m->opts.backend->activations);
}

/* Whether set s is switched out on its overflows, not on time. */
static bool set_has_trigger(const struct px_monitor *m, size_t s)
{
	const struct px_monitor_sampling *sm = m->opts.sampling;

	for (size_t i = 0; sm && i < m->opts.sets[s].n; i++)
		if (sm->pmds[s][i].switch_ovfls)
			return true;
	return false;
}

/* Set s of unit u read now into counts.  A group for every set (the
 * backend switches them) is set 0's and reads them all.  -ENOENT when
 * the set has none. */
static int read_set(struct px_monitor *m, struct px_unit *u, size_t s,
		    struct px_count *counts)
{
	struct px_group *g = set_group(m, u, s);

	return g ? px_group_read(g, counts) : -ENOENT;
}

/* The activation of set s on unit u that just ended (its counters are
 * disabled): what each counter counted and ran since it began.  With
 * counts NULL they are read now. */
static void end_activation(struct px_monitor *m, struct px_unit *u, size_t s,
			   const struct px_count *counts)
{
	size_t base = px_monitor_index(m, s, 0), n = m->opts.sets[s].n;
	struct px_count now[n ? n : 1];

	if (!tool_switches_sets(m) || !u->acts || u->frozen)
		return;
	if (!counts) {
		if (read_set(m, u, s, now))
			return;
		counts = now;
	}
	for (size_t i = 0; i < n; i++) {
		struct px_activations *a = &u->acts[base + i];
		const struct px_count *c = &counts[i];

		if (c->value >= a->start_value && c->running >= a->start_running)
			px_activations_add(a, c->value - a->start_value,
					   c->running - a->start_running);
		a->start_value = c->value;
		a->start_running = c->running;
	}
}

/* With sets the tool switches, the unit's clock: a dummy software event
 * on the sets' target, enabled the whole session and never switched.
 * Its enabled time is the unit's whole time.  The sets' own times miss
 * the moments between one set's stop and the next one's start (two
 * ioctls, each an interrupt to the task's CPU), in which the task runs
 * and counts in no set; the clock tells how long they were, and the
 * estimates and their intervals allow for them (mon_value.c).  At a
 * 2 ms switch they were 0.8% of the time on one machine here, and more
 * on a slower one: the intervals of sums over the sets alone held their
 * true values in 9 cases of 10 there, not 19 in 20. */
static int open_clock(struct px_monitor *m, struct px_unit *u,
		      const struct px_target *t)
{
	struct px_event ev = { .name = "dummy", .type = PERF_TYPE_SOFTWARE,
			       .config = PERF_COUNT_SW_DUMMY, .exclude_kernel = true,
			       .exclude_hv = true, .priv_explicit = true };
	struct px_event_set set = { .events = &ev, .n = 1 };
	struct px_group_opts counting = { 0 };
	int status = 0, ret;

	if (!tool_switches_sets(m) || u->clock)
		return 0;
	ret = m->opts.backend->open(&set, 1, t, &counting, &status, &u->clock);
	if (!ret && status) {
		px_group_close(u->clock);
		u->clock = NULL;
		ret = px_fail(EOPNOTSUPP,
			      "cannot time the event sets: this kernel has no dummy software event");
	}
	return ret;
}

/* Start or stop the unit's clock: started before its sets, stopped after
 * them, it holds every moment one of them counted. */
static int enable_clock(struct px_unit *u, bool on)
{
	if (!u->clock || u->frozen)
		return 0;
	return on ? px_group_enable(u->clock) : px_group_disable(u->clock);
}

/* -EOPNOTSUPP naming the events when the unit can count none of them
 * (nothing is then run), else 0. */
static int check_countable(const struct px_monitor *m, const struct px_unit *u)
{
	char names[512] = "";
	size_t len = 0;

	for (size_t k = 0; k < m->nevents_total; k++)
		if (!u->status[k])
			return 0;
	for (size_t s = 0; s < m->opts.nsets; s++) {
		for (size_t i = 0; i < m->opts.sets[s].n && len < sizeof(names); i++) {
			int w = snprintf(names + len, sizeof(names) - len, "%s%s",
					 len ? ", " : "", m->opts.sets[s].events[i].name);

			len += w > 0 ? (size_t)w : 0;
		}
	}
	return px_fail(EOPNOTSUPP,
		       "none of the events can be counted on this machine (%s): it has no hardware PMU for them; software events such as task-clock or page-faults work everywhere (see -l)",
		       names);
}

/* Open the unit's groups on target t, all stopped: one per set, or one
 * for every set when the backend switches them.  Only set 0's group
 * starts at the exec (t->enable_on_exec) and, sampling, records the
 * mappings and tasks. */
static int open_groups(struct px_monitor *m, struct px_unit *u,
		       const struct px_target *t)
{
	const struct px_monitor_sampling *sm = m->opts.sampling;
	const struct px_backend *be = m->opts.backend;
	struct px_group_opts o = { .switch_ns = m->opts.switch_ns,
				   .pmds = sm ? sm->pmds : NULL };

	if (sm)
		o.smpl = sm->opts;
	if (m->kernel_sets)
		return be->open(m->opts.sets, m->opts.nsets, t, &o, u->status,
				&u->groups[0]);
	for (size_t s = 0; s < m->ngroups; s++) {
		struct px_target ts = *t;
		int ret;

		ts.enable_on_exec = t->enable_on_exec && s == 0;
		o.pmds = sm ? &sm->pmds[s] : NULL;
		o.smpl.set = (uint16_t)s;
		o.smpl.no_sideband = s > 0;
		ret = be->open(&m->opts.sets[s], 1, &ts, &o,
			       &u->status[px_monitor_index(m, s, 0)], &u->groups[s]);
		if (ret)
			return ret;
	}
	return 0;
}

/* Sampling: open the unit's groups and start them (for_exec: on the
 * command held before its exec, armed to start there).  A sampling group
 * records from its first enable: set 0's, which records the mappings and
 * tasks, is started even when another set is the current one. */
static int open_sampling(struct px_monitor *m, struct px_unit *u, bool for_exec)
{
	struct px_target t = { .pid = u->tid, .cpu = u->cpu,
			       .inherit = m->opts.inherit && u->tid >= 0,
			       .enable_on_exec = for_exec };
	int ret = open_groups(m, u, &t);

	if (!ret && !(ret = open_clock(m, u, &t)) && !for_exec)
		ret = enable_clock(u, true);
	if (!ret)
		ret = px_group_enable(u->groups[0]);
	if (!ret && m->cur_set && (ret = enable_set(m, u, 0, false)) == 0)
		ret = enable_set(m, u, m->cur_set, true);
	return ret;
}

/* A new unit: counting, its groups opened stopped and the current set
 * started if the session is running; sampling, its groups opened once
 * the session runs. */
static int add_unit(struct px_monitor *m, pid_t tid, int cpu)
{
	/* with inherit, the one unit is the command held before its exec */
	struct px_target t = { .pid = tid, .cpu = cpu,
			       .inherit = m->opts.inherit && tid >= 0,
			       .enable_on_exec = m->opts.inherit && tid >= 0 };
	struct px_unit *u;
	int ret;

	ret = px_grow((void **)&m->units, &m->cap, m->nunits, 1, sizeof(*u), 8);
	if (ret)
		return ret;
	u = &m->units[m->nunits];
	memset(u, 0, sizeof(*u));
	u->tid = tid;
	u->pid = tid >= 0 ? tgid_of(tid) : -1;
	u->cpu = cpu;
	if (tid >= 0)
		read_comm(tid, u->comm, sizeof(u->comm));
	else
		snprintf(u->comm, sizeof(u->comm), "CPU%d", cpu);
	u->groups = calloc(m->ngroups ? m->ngroups : 1, sizeof(*u->groups));
	u->status = calloc(m->nevents_total ? m->nevents_total : 1, sizeof(int));
	u->counts = calloc(m->nevents_total, sizeof(struct px_count));
	if (tracks_activations(m))
		u->acts = calloc(m->nevents_total, sizeof(struct px_activations));
	if (!u->groups || !u->status || !u->counts ||
	    (tracks_activations(m) && !u->acts)) {
		free(u->groups);
		free(u->status);
		free(u->counts);
		free(u->acts);
		return px_fail(ENOMEM, "out of memory");
	}
	m->nunits++;
	if (m->opts.sampling)
		return m->started ? open_sampling(m, u, false) : 0;
	u->at_exec = t.enable_on_exec;
	if ((ret = open_groups(m, u, &t)) || (ret = open_clock(m, u, &t)))
		return ret;
	if (m->nunits == 1 && (ret = check_countable(m, u)))
		return ret;
	if (m->started && !(ret = enable_clock(u, true)))
		ret = enable_set(m, u, m->cur_set, true);
	return ret;
}

static void arm_timer(int fd, uint64_t ns, bool periodic)
{
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = (time_t)(ns / 1000000000ull);
	its.it_value.tv_nsec = (long)(ns % 1000000000ull);
	if (periodic)
		its.it_interval = its.it_value;
	timerfd_settime(fd, 0, &its, NULL);
}

/* The tool's switch timer for the current set: its timeout, or none
 * when it switches on its overflows or the backend switches the sets. */
static void arm_switch_timer(struct loop *l)
{
	const struct px_monitor *m = l->m;

	if (!tool_switches_sets(m))
		return;
	arm_timer(l->switchfd, set_has_trigger(m, m->cur_set) ? 0 : m->opts.switch_ns,
		  false);
}

/* The command's exec failed with err: the outcome callers test
 * (m->exec_errno) and its message.  Returns -err. */
static int exec_failed(struct px_monitor *m, int err)
{
	m->exec_errno = err;
	return px_fail(err, "cannot run '%s': %s", m->opts.argv[0], strerror(err));
}

static int start_session(struct loop *l)
{
	struct px_monitor *m = l->m;

	m->started = true;
	m->start_ns = px_now_ns();
	m->set_runs[0]++;
	for (size_t i = 0; i < m->nunits; i++) {
		struct px_unit *u = &m->units[i];
		/* sampling groups opened before the exec: the first set's
		 * samples began there, a trigger's begin now */
		int ret = 0;

		if (!u->at_exec && !(ret = enable_clock(u, true)))
			ret = !m->opts.sampling || u->groups[0] ? enable_set(m, u, 0, true) :
			      open_sampling(m, u, false);

		if (ret)
			return ret;
	}
	arm_switch_timer(l);
	if (m->opts.session_timeout_ns)
		arm_timer(l->timeoutfd, m->opts.session_timeout_ns, false);
	if (m->opts.print_interval_ns && m->opts.on_interval)
		arm_timer(l->intervalfd, m->opts.print_interval_ns, true);
	return 0;
}

/* Tell the front end the counters are attached and counting. */
static void announce_start(const struct px_monitor *m)
{
	if (m->opts.on_start)
		m->opts.on_start(m, m->opts.start_arg);
}

/* The next set's turn.  With sampling, the stopped set's groups are
 * drained: a trigger's count of overflows starts afresh at its next
 * turn, and must not meet this turn's samples then. */
static int switch_set(struct loop *l)
{
	struct px_monitor *m = l->m;
	size_t next = (m->cur_set + 1) % m->opts.nsets;
	int ret = 0;

	/* unit by unit: each unit's gap between its two sets is one
	 * disable, not every unit's */
	for (size_t i = 0; i < m->nunits; i++) {
		enable_set(m, &m->units[i], m->cur_set, false);
		enable_set(m, &m->units[i], next, true);
	}
	/* the old set's counters are stopped: read them at leisure */
	for (size_t i = 0; i < m->nunits; i++) {
		struct px_group *g = set_group(m, &m->units[i], m->cur_set);

		end_activation(m, &m->units[i], m->cur_set, NULL);
		if (g && !ret)
			ret = px_group_poll(g, 0);
	}
	m->cur_set = next;
	m->set_runs[next]++;
	arm_switch_timer(l);
	return ret;
}

/* Whether the current set's trigger has ended its turn on a unit. */
static bool trigger_due(const struct px_monitor *m)
{
	if (!tool_switches_sets(m) || !set_has_trigger(m, m->cur_set))
		return false;
	for (size_t i = 0; i < m->nunits; i++) {
		struct px_group *g = set_group(m, &m->units[i], m->cur_set);

		if (g && px_group_switch_due(g))
			return true;
	}
	return false;
}

/* Every set of unit u stopped, and then its clock. */
static void disable_unit(struct px_monitor *m, struct px_unit *u)
{
	for (size_t s = 0; s < m->opts.nsets; s++)
		enable_set(m, u, s, false);
	enable_clock(u, false);
}

/* Stop counting; finish the sampling groups (before any task is let go:
 * one that stops its task at overflows must not fire on it after). */
static int stop_all(struct px_monitor *m)
{
	int ret = 0;

	for (size_t i = 0; i < m->nunits; i++)
		disable_unit(m, &m->units[i]);
	if (m->started)
		m->elapsed_ns = px_now_ns() - m->start_ns;
	if (m->opts.sampling && !m->smpl_finished) {
		m->smpl_finished = true;
		for (size_t i = 0; i < m->nunits; i++) {
			for (size_t k = 0; k < m->ngroups; k++) {
				struct px_group *g = m->units[i].groups[k];
				int r = g ? px_group_finish(g) : 0;

				if (r && !ret)
					ret = r;
			}
		}
	}
	return ret;
}

int px_monitor_drain(struct px_monitor *m)
{
	/* a group that stops its task is drained at its stops only */
	if (!m->opts.sampling || m->smpl_stops || m->smpl_finished)
		return 0;
	for (size_t i = 0; i < m->nunits; i++) {
		for (size_t k = 0; k < m->ngroups; k++) {
			struct px_group *g = m->units[i].groups[k];
			int ret = g ? px_group_poll(g, 0) : 0;

			if (ret)
				return ret;
		}
	}
	return 0;
}

static void freeze_unit(struct px_monitor *m, struct px_unit *u)
{
	disable_unit(m, u);
	u->frozen = true;
}

/* The ptrace options of the traced tasks: the events of the following
 * pfmon does itself (samplers that inherit follow on their own), and the
 * exit stops a sampling caller reads mappings at. */
static unsigned ptrace_options(const struct px_monitor *m, unsigned follow)
{
	const struct px_monitor_sampling *sm = m->opts.sampling;
	unsigned o = PTRACE_O_TRACEEXEC;

	if (m->opts.inherit)
		follow = 0;
	if (sm && sm->at_exit)
		o |= PTRACE_O_TRACEEXIT;
	if (follow & PX_FOLLOW_FORK)
		o |= PTRACE_O_TRACEFORK;
	if (follow & PX_FOLLOW_VFORK)
		o |= PTRACE_O_TRACEVFORK;
	if (follow & PX_FOLLOW_PTHREAD)
		o |= PTRACE_O_TRACECLONE;
	return o;
}

static int on_traced_status(struct loop *l, pid_t tid, int st);

static int on_new_task(struct loop *l, pid_t parent)
{
	unsigned long msg = 0;
	pid_t child;
	int st;

	ptrace(PTRACE_GETEVENTMSG, parent, NULL, &msg);
	child = (pid_t)msg;
	if (find_unit(l->m, child))
		return 0;	/* its own first stop came before this event */
	/* wait for that first stop: counters are attached to a stopped
	 * task (the module backend requires it, as the spec does) */
	if (waitpid(child, &st, __WALL) != child)
		return px_fail(errno, "lost the new task %d: %s", (int)child,
			       strerror(errno));
	return on_traced_status(l, child, st);
}

static int on_exec(struct loop *l, pid_t tid)
{
	struct px_monitor *m = l->m;
	struct px_unit *u = find_unit(m, tid);
	int ret;

	if (u)
		read_comm(tid, u->comm, sizeof(u->comm));
	if (tid == l->main_pid && !l->main_exec_seen && m->opts.argv) {
		l->main_exec_seen = true;
		ret = start_session(l);
		if (!ret)
			announce_start(m);
		return ret;
	}
	/* sampling goes on across execs (a group whose events end at exec
	 * opens them again) */
	if (u && m->opts.sampling) {
		for (size_t k = 0; k < m->ngroups; k++)
			if (u->groups[k] && (ret = px_group_exec(u->groups[k], tid)))
				return ret;
		return 0;
	}
	if (u && !m->opts.sampling && !(m->opts.follow & PX_FOLLOW_EXEC))
		freeze_unit(m, u);
	return 0;
}

/* A stop of a sampler's own: an overflow of a sampler that stops its task
 * there (perf's synchronous SIGTRAP), drained before the task runs on so
 * that the next period is set while it waits. */
static bool sampler_stop(struct px_monitor *m, struct px_unit *u, int sig, int *ret)
{
	siginfo_t si;

	if (sig != SIGTRAP || !m->smpl_stops || !u->groups[0] ||
	    ptrace(PTRACE_GETSIGINFO, u->tid, NULL, &si) || si.si_code != TRAP_PERF)
		return false;
	*ret = px_group_poll(u->groups[0], 0);
	return true;
}

/* One waitpid() report of a traced task. */
static int on_traced_status(struct loop *l, pid_t tid, int st)
{
	struct px_monitor *m = l->m;
	int event = st >> 16, sig, ret = 0;
	struct px_unit *u;

	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		if (l->live)
			l->live--;
		if (tid == l->main_pid) {
			l->main_done = true;
			/* an attached task's status is its parent's business */
			if (m->opts.argv) {
				m->exit_code = px_exit_code(st);
				m->signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
			}
		}
		return 0;
	}
	if (!WIFSTOPPED(st))
		return 0;
	sig = WSTOPSIG(st);
	u = find_unit(m, tid);
	if (!u) {
		/* a followed task's first stop, before its parent's event */
		l->live++;
		ret = add_unit(m, tid, -1);
		ptrace(PTRACE_CONT, tid, NULL, NULL);
		return ret;
	}
	if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK ||
	    event == PTRACE_EVENT_CLONE)
		ret = on_new_task(l, tid);
	else if (event == PTRACE_EVENT_EXEC)
		ret = on_exec(l, tid);
	else if (event == PTRACE_EVENT_EXIT && m->opts.sampling &&
		 m->opts.sampling->at_exit && u->pid == tid)
		m->opts.sampling->at_exit(tid, m->opts.sampling->arg);
	else if (!event && sampler_stop(m, u, sig, &ret))
		sig = 0;
	/* event stops are ours; so is SIGSTOP: a followed task's first stop,
	 * or a group stop, which a task traced without PTRACE_SEIZE cannot be
	 * left in (job control stops do not hold under pfmon).  Every other
	 * signal, SIGTRAP included, goes on to the program. */
	if (event || sig == SIGSTOP)
		sig = 0;
	ptrace(PTRACE_CONT, tid, NULL, (void *)(long)sig);
	return ret;
}

static int reap_children(struct loop *l)
{
	int st, ret = 0;
	pid_t tid;

	while ((tid = waitpid(-1, &st, WNOHANG | __WALL)) > 0) {
		if (l->traced) {
			ret = on_traced_status(l, tid, st);
			if (ret)
				return ret;
		} else if (tid == l->main_pid && (WIFEXITED(st) || WIFSIGNALED(st))) {
			l->main_done = true;
			l->m->exit_code = px_exit_code(st);
			l->m->signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
		}
	}
	return 0;
}

static bool loop_done(const struct loop *l)
{
	const struct px_monitor *m = l->m;

	if (m->timed_out || m->interrupted)
		return true;
	if (l->traced)
		return l->live == 0;
	return m->opts.argv && l->main_done;
}

static int stop_all(struct px_monitor *m);

/* A second signal while the command has not ended on the first: the
 * session ends now with what it has.  The counters stop first (a
 * command starved by its sampling interrupts would take as long to die
 * as to run), then the command is killed, and reaped as usual. */
static void end_command(struct loop *l)
{
	(void)stop_all(l->m);
	kill(l->main_pid, SIGKILL);
}

static void on_signal(struct loop *l)
{
	struct signalfd_siginfo si;

	while (read(l->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			continue;
		/* a command gets the terminal's signals itself; one sent to
		 * us by kill(2) is passed on, a second one (or a second
		 * Ctrl-C) ends it; without a command it ends the session */
		if (l->m->opts.argv && l->main_pid > 0) {
			if (l->passed++)
				end_command(l);
			else if (si.ssi_code <= 0)
				kill(l->main_pid, (int)si.ssi_signo);
		} else {
			l->m->interrupted = true;
		}
	}
}

static int read_all(struct px_monitor *m);

static void report_interval(struct px_monitor *m)
{
	uint64_t now = px_now_ns();

	m->elapsed_ns = now - m->start_ns;
	if (!read_all(m) && !px_monitor_drain(m))
		m->opts.on_interval(m, m->opts.interval_arg);
}

/* The loop's descriptors: its signals and timers, then the sampling
 * groups' (except those that stop their task: they are drained at the
 * stops, and those whose task is gone: they are drained at the end).
 * *fds grows as needed; returns how many, or 0 without memory. */
static size_t loop_fds(struct loop *l, struct pollfd **fds, size_t *cap)
{
	const struct px_monitor *m = l->m;
	size_t n = 4, want = 4;

	for (size_t i = 0; !m->smpl_stops && i < m->nunits; i++)
		for (size_t k = 0; k < m->ngroups && !m->units[i].smpl_hup; k++)
			if (m->units[i].groups[k])
				want += px_group_pollfds(m->units[i].groups[k], NULL, 0);
	if (want > *cap) {
		struct pollfd *g = realloc(*fds, want * sizeof(*g));

		if (!g)
			return 0;
		*fds = g;
		*cap = want;
	}
	(*fds)[0] = (struct pollfd){ .fd = l->sigfd, .events = POLLIN };
	(*fds)[1] = (struct pollfd){ .fd = l->switchfd, .events = POLLIN };
	(*fds)[2] = (struct pollfd){ .fd = l->timeoutfd, .events = POLLIN };
	(*fds)[3] = (struct pollfd){ .fd = l->intervalfd, .events = POLLIN };
	for (size_t i = 0; n < want && i < m->nunits; i++)
		for (size_t k = 0; k < m->ngroups && !m->units[i].smpl_hup; k++)
			if (m->units[i].groups[k])
				n += px_group_pollfds(m->units[i].groups[k], *fds + n, want - n);
	return n;
}

/* Sampling groups woke the loop: process them.  A unit whose task has
 * ended (its descriptors hang up) is left for the end. */
static int on_groups(struct loop *l, const struct pollfd *fds, size_t n)
{
	struct px_monitor *m = l->m;
	size_t k = 4;

	for (size_t i = 0; k < n && i < m->nunits; i++) {
		struct px_unit *u = &m->units[i];
		bool hup = false;

		for (size_t s = 0; s < m->ngroups && !u->smpl_hup; s++) {
			struct px_group *g = u->groups[s];
			short ev = 0;
			size_t c;

			if (!g)
				continue;
			c = px_group_pollfds(g, NULL, 0);
			for (size_t j = k; j < k + c && j < n; j++)
				ev |= fds[j].revents;
			k += c;
			hup |= (ev & (POLLHUP | POLLERR)) != 0;
			if (ev) {
				int ret = px_group_poll(g, 0);

				if (ret)
					return ret;
			}
		}
		/* its task ended: every group of it is drained at the end */
		u->smpl_hup |= hup;
	}
	return 0;
}

static int run_loop(struct loop *l)
{
	struct pollfd *fds = NULL;
	size_t cap = 0, n;
	uint64_t ticks;
	int ret = 0;

	while (!loop_done(l)) {
		n = loop_fds(l, &fds, &cap);
		if (!n) {
			ret = px_fail(ENOMEM, "out of memory");
			break;
		}
		if (poll(fds, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			ret = px_fail(errno, "poll failed: %s", strerror(errno));
			break;
		}
		if (fds[1].revents && read(l->switchfd, &ticks, sizeof(ticks)) > 0 &&
		    (ret = switch_set(l)))
			break;
		if (fds[2].revents && read(l->timeoutfd, &ticks, sizeof(ticks)) > 0)
			l->m->timed_out = true;
		if (fds[3].revents && read(l->intervalfd, &ticks, sizeof(ticks)) > 0)
			report_interval(l->m);
		if (fds[0].revents)
			on_signal(l);
		if (n > 4 && (ret = on_groups(l, fds, n)))
			break;
		if (trigger_due(l->m) && (ret = switch_set(l)))
			break;
		if ((ret = reap_children(l)))
			break;
	}
	free(fds);
	return ret;
}

static int setup_loop(struct loop *l, struct px_monitor *m)
{
	sigset_t mask;

	memset(l, 0, sizeof(*l));
	l->m = m;
	l->sigfd = l->switchfd = l->timeoutfd = l->intervalfd = -1;
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	if (sigprocmask(SIG_BLOCK, &mask, &l->old_mask))
		return px_fail(errno, "cannot block signals: %s", strerror(errno));
	l->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	l->switchfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	l->timeoutfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	l->intervalfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (l->sigfd < 0 || l->switchfd < 0 || l->timeoutfd < 0 || l->intervalfd < 0)
		return px_fail(errno, "cannot create the session's timers: %s",
			       strerror(errno));
	return 0;
}

static void teardown_loop(struct loop *l)
{
	if (l->sigfd >= 0)
		close(l->sigfd);
	if (l->switchfd >= 0)
		close(l->switchfd);
	if (l->timeoutfd >= 0)
		close(l->timeoutfd);
	if (l->intervalfd >= 0)
		close(l->intervalfd);
	sigprocmask(SIG_SETMASK, &l->old_mask, NULL);
}

/* Bring a traced task to a ptrace-stop so it can be detached.  A seized
 * task (attach mode) takes PTRACE_INTERRUPT; one that asked to be traced
 * (the command) does not, and is stopped with a SIGSTOP of our own.
 * Returns true when it stopped, and in *sent whether we sent SIGSTOP. */
static bool stop_tracee(pid_t tgid, pid_t tid, bool *sent)
{
	int st;

	*sent = false;
	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL)) {
		if (syscall(SYS_tgkill, tgid, tid, SIGSTOP))
			return false;
		*sent = true;
	}
	return waitpid(tid, &st, __WALL) == tid && WIFSTOPPED(st);
}

/* Let go of every traced task still alive (attach mode, or a session cut
 * short by its timeout): they run on as if never traced. */
static void detach_all(struct loop *l)
{
	struct px_monitor *m = l->m;

	for (size_t i = 0; i < m->nunits; i++) {
		pid_t tid = m->units[i].tid;
		bool sent;

		if (tid <= 0 || !stop_tracee(m->units[i].pid, tid, &sent))
			continue;
		ptrace(PTRACE_DETACH, tid, NULL, NULL);
		/* our SIGSTOP may still be pending if another stop came first */
		if (sent)
			syscall(SYS_tgkill, m->units[i].pid, tid, SIGCONT);
	}
}

/* The command, stopped before its exec: the caller's (opts.child) or
 * forked now with the signal mask we had before the loop blocked ours.
 * 0 or -errno (the child then gone). */
static int hold_command(struct loop *l, struct px_child *local, struct px_child **out)
{
	struct px_child *c = l->m->opts.child ? l->m->opts.child : local;
	int ret = l->m->opts.child ? px_child_held(c) :
		  px_child_spawn(l->m->opts.argv, &l->old_mask, c);

	if (ret && l->m->opts.child)
		px_child_abort(c);
	*out = c;
	return ret;
}

static int run_command_traced(struct loop *l)
{
	struct px_monitor *m = l->m;
	struct px_child local, *child;
	int ret = hold_command(l, &local, &child), stopped;

	if (ret)
		return ret;
	l->traced = true;
	l->main_pid = child->pid;
	l->live = 1;
	ret = add_unit(m, child->pid, -1);
	/* sampling groups are opened before the exec, to record the
	 * mappings the exec makes, unless they stop their task (their events
	 * end at exec) */
	if (!ret && m->opts.sampling && !m->smpl_stops)
		ret = open_sampling(m, &m->units[0], true);
	if (!ret && ptrace(PTRACE_SETOPTIONS, child->pid, NULL,
			   (void *)(long)(ptrace_options(m, m->opts.follow) |
					  PTRACE_O_EXITKILL)))
		ret = px_fail(errno, "cannot trace the command: %s%s", strerror(errno),
			      errno == ESRCH ? " (a task has one tracer: is pfmon itself run under a debugger or strace?)" : "");
	if (ret) {
		px_child_abort(child);
		return ret;
	}
	/* let it run to its exec, still traced: the exec event starts the
	 * session; a failed exec reports its errno through the pipe */
	ptrace(PTRACE_CONT, child->pid, NULL, NULL);
	ret = run_loop(l);
	if (!ret && !l->main_exec_seen) {
		int err = 0;

		if (read(child->exec_error_pipe, &err, sizeof(err)) == sizeof(err) && err) {
			close(child->exec_error_pipe);
			child->exec_error_pipe = -1;
			return exec_failed(l->m, err);
		}
	}
	close(child->exec_error_pipe);
	child->exec_error_pipe = -1;
	stopped = stop_all(m);
	if (!ret)
		ret = stopped;
	if (!l->main_done) {
		/* timeout: the command goes on without us */
		detach_all(l);
	}
	return ret;
}

/* Attach the counters to the seized task while it is stopped (the module
 * backend requires it, as the spec does), then let it run on. */
static int attach_stopped(struct loop *l, pid_t pid)
{
	int st, sig, ret;

	if (ptrace(PTRACE_INTERRUPT, pid, NULL, NULL) ||
	    waitpid(pid, &st, __WALL) != pid)
		return px_fail(errno, "cannot stop task %d to attach to it: %s",
			       (int)pid, strerror(errno));
	if (!WIFSTOPPED(st))
		return px_fail(ESRCH, "task %d ended as pfmon attached to it",
			       (int)pid);
	ret = add_unit(l->m, pid, -1);
	if (!ret)
		ret = start_session(l);
	/* the interrupt's own stop is ours; a signal that stopped it first
	 * goes on to the task */
	sig = (st >> 16) == PTRACE_EVENT_STOP ? 0 : WSTOPSIG(st);
	ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
	if (!ret)
		announce_start(l->m);
	return ret;
}

static int run_attached(struct loop *l)
{
	struct px_monitor *m = l->m;
	pid_t pid = m->opts.attach_pid;
	int ret, stopped;

	if (ptrace(PTRACE_SEIZE, pid, NULL,
		   (void *)(long)ptrace_options(m, m->opts.follow | PX_FOLLOW_EXEC)))
		return px_fail(errno, "cannot attach to task %d: %s%s", (int)pid,
			       strerror(errno),
			       errno == EPERM ? " (it must be yours, or run as root; see /proc/sys/kernel/yama/ptrace_scope)" : "");
	l->traced = true;
	l->main_pid = pid;
	l->live = 1;
	ret = attach_stopped(l, pid);
	if (!ret)
		ret = run_loop(l);
	stopped = stop_all(m);
	if (!ret)
		ret = stopped;
	if (l->live)
		detach_all(l);
	return ret;
}

/* Start the session and let the held command go to its exec.  0, or
 * -errno (a failed exec: exec_failed(), the child then gone). */
static int start_with_command(struct loop *l, struct px_child *child)
{
	int ret = start_session(l);

	if (ret && child)
		px_child_abort(child);
	if (ret || !child)
		return ret;
	ret = px_child_release(child);
	if (ret) {
		(void)stop_all(l->m);
		ret = exec_failed(l->m, -ret);
	}
	return ret;
}

/* The units of a session whose command is released untraced: every CPU
 * (system-wide), or the command itself, its counters inherited by what it
 * starts.  0 or -errno. */
static int add_untraced_units(struct px_monitor *m, const struct px_child *child)
{
	int ret = 0;

	if (!m->opts.system_wide)
		return add_unit(m, child->pid, -1);
	for (size_t i = 0; i < m->opts.ncpus && !ret; i++)
		ret = add_unit(m, -1, m->opts.cpus[i]);
	return ret;
}

/* System-wide (with a command or without), or counting a command by
 * inherited counters: the units are opened, then the command, held until
 * then, goes to its exec untraced and is waited for. */
static int run_untraced(struct loop *l)
{
	struct px_monitor *m = l->m;
	struct px_child local, *child = NULL;
	int ret = 0, stopped;

	if (m->opts.argv) {
		ret = hold_command(l, &local, &child);
		if (ret)
			return ret;
		l->main_pid = child->pid;
	}
	ret = add_untraced_units(m, child);
	if (ret) {
		if (child)
			px_child_abort(child);
		return ret;
	}
	ret = start_with_command(l, child);
	if (ret)
		return ret;
	announce_start(m);
	ret = run_loop(l);
	stopped = stop_all(m);
	/* after a timeout or a signal the command, untraced since its
	 * release, goes on without us */
	return ret ? ret : stopped;
}

/* With kernel_sets, each set's runs are the most any unit's context made
 * (units switch on their own clocks); the tool's count stays if the
 * backend cannot tell. */
static void read_set_runs(struct px_monitor *m)
{
	size_t nsets = m->opts.nsets;
	uint64_t *runs, *max;

	if (!m->kernel_sets || !m->opts.backend->set_runs)
		return;
	runs = calloc(nsets, sizeof(*runs));
	max = calloc(nsets, sizeof(*max));
	if (!runs || !max)
		goto out;
	for (size_t i = 0; i < m->nunits; i++) {
		struct px_group *g = m->units[i].groups[0];

		if (!g || px_group_set_runs(g, runs, nsets))
			goto out;
		for (size_t s = 0; s < nsets; s++)
			if (runs[s] > max[s])
				max[s] = runs[s];
	}
	if (m->nunits)
		memcpy(m->set_runs, max, nsets * sizeof(*max));
out:
	free(runs);
	free(max);
}

static int read_all(struct px_monitor *m)
{
	read_set_runs(m);
	for (size_t i = 0; i < m->nunits; i++) {
		struct px_unit *u = &m->units[i];

		int ret = u->clock ? px_group_read(u->clock, &u->clock_count) : 0;

		if (ret)
			return ret;
		for (size_t s = 0; s < m->opts.nsets; s++) {
			ret = read_set(m, u, s, &u->counts[px_monitor_index(m, s, 0)]);
			if (ret && ret != -ENOENT)
				return ret;
		}
	}
	return 0;
}

int px_monitor_run(const struct px_monitor_opts *opts, struct px_monitor *m)
{
	struct loop l;
	int ret;

	memset(m, 0, sizeof(*m));
	m->opts = *opts;
	if (!m->opts.switch_ns)
		m->opts.switch_ns = DEFAULT_SWITCH_NS;
	m->kernel_sets = opts->nsets > 1 && opts->backend->switches_sets;
	m->ngroups = m->kernel_sets ? 1 : opts->nsets;
	for (size_t s = 0; opts->sampling && opts->backend->stops && s < opts->nsets; s++)
		m->smpl_stops |= opts->backend->stops(opts->sampling->pmds[s], opts->sets[s].n);
	if (m->smpl_stops && opts->nsets > 1)
		return px_fail(EINVAL, "sampling groups that stop their task at every overflow take one event set");
	for (size_t s = 0; s < opts->nsets; s++)
		m->nevents_total += opts->sets[s].n;
	m->set_runs = calloc(opts->nsets ? opts->nsets : 1, sizeof(uint64_t));
	if (!m->set_runs) {
		if (opts->child)	/* ours to end when nothing runs */
			px_child_abort(opts->child);
		return px_fail(ENOMEM, "out of memory");
	}
	ret = setup_loop(&l, m);
	if (ret && opts->child)
		px_child_abort(opts->child);
	if (!ret) {
		if (opts->attach_pid > 0 && !opts->system_wide)
			ret = run_attached(&l);
		else if (opts->system_wide || (opts->inherit && !opts->sampling))
			ret = run_untraced(&l);
		else
			ret = run_command_traced(&l);
	}
	teardown_loop(&l);
	if (!ret)
		ret = read_all(m);
	/* the last activation, cut by the end of the session; or the
	 * backend's own account of the activations of its sets */
	for (size_t i = 0; !ret && m->started && i < m->nunits; i++) {
		struct px_unit *u = &m->units[i];

		if (m->kernel_sets && u->acts && u->groups[0])
			ret = px_group_activations(u->groups[0], u->acts);
		else
			end_activation(m, u, m->cur_set,
				       &u->counts[px_monitor_index(m, m->cur_set, 0)]);
	}
	/* the last, partial interval: the intervals add up to the totals */
	if (!ret && m->started && opts->print_interval_ns && opts->on_interval)
		opts->on_interval(m, opts->interval_arg);
	return ret;
}

void px_monitor_free(struct px_monitor *m)
{
	for (size_t i = 0; i < m->nunits; i++) {
		struct px_unit *u = &m->units[i];

		for (size_t k = 0; u->groups && k < m->ngroups; k++)
			px_group_close(u->groups[k]);
		px_group_close(u->clock);
		free(u->groups);
		free(u->status);
		free(u->counts);
		free(u->acts);
	}
	free(m->units);
	free(m->set_runs);
	memset(m, 0, sizeof(*m));
}
