/* One sampling run of a command: spawn it held, open the sampler on it,
 * release it, process samples while it runs, finish. */
#include "sampler.h"
#include "error.h"
#include "measure.h"
#include "target.h"

#include <errno.h>
#include <string.h>
#include <sys/wait.h>

static int run_loop(struct px_sampler *s, struct px_child *c)
{
	pid_t got;
	int ret;

	for (;;) {
		ret = px_sampler_poll(s, 50);
		if (ret)
			return ret;
		got = waitpid(c->pid, &c->wait_status, WNOHANG);
		if (got == c->pid)
			break;
		if (got < 0 && errno != EINTR)
			return px_fail(errno, "cannot wait for the command: %s",
				       strerror(errno));
	}
	c->elapsed_ns = px_now_ns() - c->start_ns;
	return 0;
}

int px_sample_command(const struct px_sample_req *req, char *const argv[],
		      struct px_sampler **out, struct px_run *run)
{
	struct px_target t = { .cpu = req->cpu, .inherit = req->inherit };
	struct px_sampler *s = NULL;
	struct px_child child;
	int ret;

	*out = NULL;
	memset(run, 0, sizeof(*run));
	ret = px_child_spawn(argv, &child);
	if (ret)
		return ret;
	if (req->cpu >= 0) {
		t.pid = -1;
		t.inherit = false;
	} else {
		t.pid = child.pid;
		t.enable_on_exec = true;
	}
	ret = px_sampler_open(req->evs, req->n, req->pmds, &t, &req->opts, &s);
	if (!ret)
		ret = px_sampler_enable(s);
	if (ret)
		goto out_abort;
	ret = px_child_release(&child);
	if (ret)
		goto out_close;
	ret = run_loop(s, &child);
	if (ret) {
		px_child_abort(&child);
		goto out_close;
	}
	ret = px_sampler_finish(s);
	run->exit_code = px_exit_code(child.wait_status);
	run->signal = WIFSIGNALED(child.wait_status) ? WTERMSIG(child.wait_status) : 0;
	run->elapsed_ns = child.elapsed_ns;
	if (ret)
		goto out_close;
	*out = s;
	return 0;
out_close:
	px_sampler_close(s);
	return ret;
out_abort:
	px_sampler_close(s);
	px_child_abort(&child);
	return ret;
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
};
