/* One sampling run of a command: spawn it held, open the samplers on it
 * (or on CPUs), release it, process samples while it runs, finish.  The
 * one runner of sampling jobs, whatever the backend: the module's
 * samplers and perf's samplers that stop at overflows keep the command
 * traced. */
#include "sampler.h"
#include "error.h"
#include "measure.h"
#include "target.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef TRAP_PERF
#define TRAP_PERF 6		/* si_code of perf's synchronous SIGTRAP */
#endif

struct job_run {
	const struct px_sample_job *j;
	struct px_child child;
	void **sv;
	size_t ns, opened;
	bool traced;		/* the command stays traced to its end */
	bool stops;		/* and stops at every overflow */
};

static int open_samplers(struct job_run *r, bool enable_on_exec)
{
	const struct px_sample_job *j = r->j;
	int ret;

	for (; r->opened < r->ns; r->opened++) {
		struct px_target t = { .pid = r->child.pid, .cpu = -1,
				       .inherit = j->inherit,
				       .enable_on_exec = enable_on_exec };

		if (j->ncpus)
			t = (struct px_target){ .pid = -1, .cpu = j->cpus[r->opened] };
		ret = j->ops->open(j->evs, j->n, j->pmds, &t, &j->opts,
				   &r->sv[r->opened]);
		if (!ret)
			ret = j->ops->enable(r->sv[r->opened]);
		if (ret) {
			if (r->sv[r->opened])
				r->opened++;
			return ret;
		}
	}
	return 0;
}

static int drain_samplers(struct job_run *r)
{
	int ret;

	for (size_t i = 0; i < r->opened; i++)
		if ((ret = r->j->ops->poll(r->sv[i], 0)))
			return ret;
	return 0;
}

/* The traced command stopped: its exit (the caller's at_exit sees its
 * memory), an exec, an overflow stop (drained before it runs on, so the
 * next period is set while it waits), or a signal to deliver. */
static int on_stop(struct job_run *r, int status)
{
	pid_t pid = r->child.pid;
	int event = status >> 16, sig = WSTOPSIG(status), ret = 0;
	siginfo_t si;

	if (event == PTRACE_EVENT_EXIT && r->j->at_exit)
		r->j->at_exit(pid, r->j->arg);
	if (event == PTRACE_EVENT_EXEC && r->j->ops->exec)
		for (size_t i = 0; i < r->opened && !ret; i++)
			ret = r->j->ops->exec(r->sv[i], pid);
	if (!event && sig == SIGTRAP && r->stops &&
	    !ptrace(PTRACE_GETSIGINFO, pid, NULL, &si) && si.si_code == TRAP_PERF) {
		ret = drain_samplers(r);
		sig = 0;
	}
	if (event)
		sig = 0;
	ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
	return ret;
}

/* Let the held command exec, still traced (px_child_release() without the
 * detach).  0, or -errno of a failed exec. */
static int release_traced(struct job_run *r)
{
	struct px_child *c = &r->child;
	int err = 0, status;
	ssize_t got;

	if (ptrace(PTRACE_SETOPTIONS, c->pid, NULL,
		   (void *)(long)(PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC |
				  PTRACE_O_EXITKILL))) {
		if (r->stops)
			return px_fail(EPERM,
				       "cannot trace the command (is this program itself traced?): periods that change at overflows need it on the perf backend");
		r->traced = false;	/* not ours to trace: no maps at exit */
		return px_child_release(c);
	}
	c->start_ns = px_now_ns();
	if (ptrace(PTRACE_CONT, c->pid, NULL, NULL))
		return px_fail(errno, "cannot start the command: %s", strerror(errno));
	do {
		got = read(c->exec_error_pipe, &err, sizeof(err));
	} while (got < 0 && errno == EINTR);
	close(c->exec_error_pipe);
	c->exec_error_pipe = -1;
	if (got != (ssize_t)sizeof(err))
		return 0;
	c->exec_errno = err;
	while (waitpid(c->pid, &status, 0) == c->pid && WIFSTOPPED(status))
		ptrace(PTRACE_CONT, c->pid, NULL, NULL);
	c->wait_status = status;
	return -err;
}

/* Stop-at-overflow samplers are opened on the command stopped just after
 * its exec (their events end at exec). */
static int wait_exec_stop(struct job_run *r)
{
	pid_t pid = r->child.pid, got;
	int status;

	for (;;) {
		got = waitpid(pid, &status, 0);
		if (got < 0 && errno == EINTR)
			continue;
		if (got != pid)
			return px_fail(errno, "cannot wait for the command: %s",
				       strerror(errno));
		if (!WIFSTOPPED(status)) {
			r->child.wait_status = status;
			return px_fail(ECHILD, "the command ended before it started");
		}
		if (status >> 8 == (SIGTRAP | PTRACE_EVENT_EXEC << 8))
			return 0;
		ptrace(PTRACE_CONT, pid, NULL,
		       (void *)(long)(status >> 16 ? 0 : WSTOPSIG(status)));
	}
}

static int wait_loop(struct job_run *r)
{
	const struct px_sampler_ops *ops = r->j->ops;
	int timeout = r->ns > 1 ? 10 : 50, status, ret = 0;
	struct px_forwarding f;
	pid_t got;

	px_forward_begin(&r->child, &f);
	for (;;) {
		/* a stopping sampler is drained at its stops: wait for them */
		for (size_t i = 0; i < r->opened && !r->stops; i++)
			if ((ret = ops->poll(r->sv[i], timeout)))
				goto out;
		got = waitpid(r->child.pid, &status, r->stops ? 0 : WNOHANG);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			ret = px_fail(errno, "cannot wait for the command: %s",
				      strerror(errno));
			goto out;
		}
		if (got == 0)
			continue;
		if (WIFSTOPPED(status)) {
			if (r->traced && (ret = on_stop(r, status)))
				goto out;
			continue;
		}
		r->child.wait_status = status;
		break;
	}
	r->child.elapsed_ns = px_now_ns() - r->child.start_ns;
out:
	px_forward_end(&f);
	return ret;
}

static void close_samplers(const struct px_sample_job *j, void **sv, size_t n)
{
	for (size_t i = 0; i < n; i++)
		j->ops->close(sv[i]);
	free(sv);
}

int px_sample_job_run(const struct px_sample_job *j, char *const argv[],
		      struct px_sample_result *res)
{
	struct job_run r = { .j = j, .ns = j->ncpus ? j->ncpus : 1 };
	int ret;

	memset(res, 0, sizeof(*res));
	r.stops = j->ops->stops && j->ops->stops(j->pmds, j->n);
	r.traced = j->at_exit || r.stops;
	r.sv = calloc(r.ns, sizeof(*r.sv));
	if (!r.sv)
		return px_fail(ENOMEM, "out of memory");
	ret = px_child_spawn(argv, &r.child);
	if (ret) {
		free(r.sv);
		return px_fail(-ret, "cannot start '%s': %s", argv[0], strerror(-ret));
	}
	if (!r.stops && (ret = open_samplers(&r, !j->ncpus)))
		goto out_abort;
	ret = r.traced ? release_traced(&r) : px_child_release(&r.child);
	if (ret) {
		if (!r.child.exec_errno)
			goto out_abort;
		res->exec_errno = r.child.exec_errno;
		px_fail(r.child.exec_errno, "cannot run '%s': %s", argv[0],
			strerror(r.child.exec_errno));
		goto out_close;
	}
	if (r.stops) {
		ret = wait_exec_stop(&r);
		if (!ret)
			ret = open_samplers(&r, false);
		if (!ret && ptrace(PTRACE_CONT, r.child.pid, NULL, NULL))
			ret = px_fail(errno, "cannot start the command: %s",
				      strerror(errno));
		if (ret)
			goto out_abort;
	}
	if ((ret = wait_loop(&r)))
		goto out_abort;
	for (size_t i = 0; i < r.opened && !ret; i++)
		ret = j->ops->finish(r.sv[i]);
	res->run.exit_code = px_exit_code(r.child.wait_status);
	res->run.signal = WIFSIGNALED(r.child.wait_status) ?
			  WTERMSIG(r.child.wait_status) : 0;
	res->run.elapsed_ns = r.child.elapsed_ns;
	if (ret)
		goto out_close;
	res->samplers = r.sv;
	res->nsamplers = r.opened;
	return 0;
out_abort:
	px_child_abort(&r.child);
out_close:
	close_samplers(j, r.sv, r.opened);
	return ret;
}

void px_sample_result_free(const struct px_sample_job *j,
			   struct px_sample_result *res)
{
	close_samplers(j, res->samplers, res->nsamplers);
	res->samplers = NULL;
	res->nsamplers = 0;
}

int px_sample_command(const struct px_sample_req *req, char *const argv[],
		      struct px_sampler **out, struct px_run *run)
{
	struct px_sample_job j = {
		.ops = &px_sampler_perf_ops,
		.evs = req->evs, .n = req->n, .pmds = req->pmds,
		.opts = req->opts,
		.cpus = req->cpu >= 0 ? &req->cpu : NULL,
		.ncpus = req->cpu >= 0,
		.inherit = req->inherit,
	};
	struct px_sample_result r;
	int ret = px_sample_job_run(&j, argv, &r);

	*out = NULL;
	*run = r.run;
	if (ret)
		return ret;
	*out = r.samplers[0];
	free(r.samplers);
	return 0;
}

/* px_sampler_* as a px_sampler_ops */
static int perf_open(const struct px_event *evs, size_t n,
		     const struct px_smpl_pmd *pmds, const struct px_target *t,
		     const struct px_smpl_opts *o, void **out)
{
	struct px_sampler *s = NULL;
	int ret = px_sampler_open(evs, n, pmds, t, o, &s);

	*out = s;
	return ret;
}

static int perf_enable(void *s)
{
	return px_sampler_enable(s);
}

static int perf_poll(void *s, int timeout_ms)
{
	return px_sampler_poll(s, timeout_ms);
}

static int perf_finish(void *s)
{
	return px_sampler_finish(s);
}

static void perf_close(void *s)
{
	px_sampler_close(s);
}

static void perf_stats(const void *s, struct px_smpl_stats *st)
{
	px_sampler_stats(s, st);
}

static size_t perf_mappings(const void *s, const struct px_mapping **m)
{
	return px_sampler_mappings(s, m);
}

static size_t perf_tasks(const void *s, const struct px_task_event **t)
{
	return px_sampler_tasks(s, t);
}

static int perf_exec(void *s, pid_t pid)
{
	return px_sampler_exec(s, pid);
}

const struct px_sampler_ops px_sampler_perf_ops = {
	.name = "perf",
	.open = perf_open,
	.enable = perf_enable,
	.poll = perf_poll,
	.finish = perf_finish,
	.close = perf_close,
	.stats = perf_stats,
	.mappings = perf_mappings,
	.tasks = perf_tasks,
	.stops = px_smpl_periods_change,
	.exec = perf_exec,
};
