#include "measure.h"
#include "error.h"
#include "target.h"

#include <errno.h>
#include <string.h>
#include <sys/wait.h>

static int all_unsupported(const struct px_event *evs, size_t n,
			   const int *status)
{
	char names[512] = "";

	for (size_t i = 0; i < n; i++) {
		if (!status[i])
			return 0;
		if (strlen(names) + strlen(evs[i].name) + 3 < sizeof(names)) {
			strcat(names, i ? ", " : "");
			strcat(names, evs[i].name);
		}
	}
	return px_fail(EOPNOTSUPP,
		       "none of the events can be counted on this machine (%s): it has no hardware PMU for them; software events such as task-clock or page-faults work everywhere (see -l)",
		       names);
}

int px_count_child(const struct px_backend *be, struct px_event *evs,
		   size_t n, struct px_child *child, int *status,
		   struct px_count *counts, struct px_run *run)
{
	struct px_target t = { .pid = child->pid, .cpu = -1, .inherit = true,
			       .enable_on_exec = true };
	void *state = NULL;
	int ret;

	memset(run, 0, sizeof(*run));
	ret = px_child_held(child);
	if (ret) {
		px_child_abort(child);
		return ret;
	}
	ret = be->open(evs, n, &t, status, &state);
	if (!ret)
		ret = all_unsupported(evs, n, status);
	if (!ret)
		ret = be->enable(state);
	if (ret)
		goto out_abort;
	ret = px_child_release(child);
	if (ret)
		goto out_close;
	ret = px_child_wait(child);
	if (ret)
		goto out_close;
	be->disable(state);
	ret = be->read(state, counts);
	run->exit_code = px_exit_code(child->wait_status);
	run->signal = WIFSIGNALED(child->wait_status) ? WTERMSIG(child->wait_status) : 0;
	run->elapsed_ns = child->elapsed_ns;
out_close:
	be->close(state);
	return ret;
out_abort:
	if (state)
		be->close(state);
	px_child_abort(child);
	return ret;
}

int px_count_command(const struct px_backend *be, struct px_event *evs,
		     size_t n, char *const argv[], int *status,
		     struct px_count *counts, struct px_run *run)
{
	struct px_child child;
	int ret = px_child_spawn(argv, &child);

	if (ret)
		return ret;
	return px_count_child(be, evs, n, &child, status, counts, run);
}
