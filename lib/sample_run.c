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
