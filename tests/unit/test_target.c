/* The measured command held before its exec (lib/session/target.c): the
 * untraced hold perfex uses on the perf backend (a child sharing our
 * memory until its exec, waiting on a pipe) and the ptrace hold, each
 * released, failing its exec and aborted; and counters attached to the
 * held command count it from its exec, as perfex counts. */
#include "tap.h"
#include "backend.h"
#include "error.h"
#include "events.h"
#include "target.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The program task pid runs now, into buf. */
static const char *exe_of(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, buf, len - 1);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

static void released(bool traced)
{
	char *argv[] = { "sh", "-c", "exit 7", NULL };
	char self[PATH_MAX], held[PATH_MAX];
	struct px_child c;
	int st = 0;

	is_int(px_child_fork(argv, traced, &c), 0, "%s: the command starts", traced ? "traced" : "untraced");
	is_int(px_child_held(&c), 0, "and is held");
	is_str(exe_of(c.pid, held, sizeof(held)), exe_of(getpid(), self, sizeof(self)),
	       "held before its exec: it still runs this program");
	ok(c.traced == traced, "held %s", traced ? "in a ptrace stop" : "on a pipe");
	is_int(px_child_release(&c), 0, "released, its exec happened");
	is_int(waitpid(c.pid, &st, 0), c.pid, "it ends");
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 7, "with the command's own status (%#x)", st);
}

static void exec_fails(bool traced)
{
	char *argv[] = { "/nonexistent/command", NULL };
	struct px_child c;

	is_int(px_child_fork(argv, traced, &c), 0, "%s: a missing command starts held",
	       traced ? "traced" : "untraced");
	is_int(px_child_release(&c), -ENOENT, "its release gives the exec's errno");
	ok(WIFEXITED(c.wait_status) && WEXITSTATUS(c.wait_status) == 127,
	   "and the child is reaped (%#x)", c.wait_status);
}

static void aborted(bool traced)
{
	char *argv[] = { "sleep", "100", NULL };
	struct px_child c;

	is_int(px_child_fork(argv, traced, &c), 0, "%s: a command to abort starts",
	       traced ? "traced" : "untraced");
	is_int(px_child_held(&c), 0, "and is held");
	px_child_abort(&c);
	ok(WIFSIGNALED(c.wait_status) && WTERMSIG(c.wait_status) == SIGKILL,
	   "aborted: killed and reaped before its exec (%#x)", c.wait_status);
	ok(kill(c.pid, 0) < 0 && errno == ESRCH, "nothing is left of it");
}

/* perfex's way on the perf backend: counters opened on the held command,
 * inherited and started at its exec, count the command and its child. */
static void counted_from_exec(void)
{
	char *argv[] = { "sh", "-c", "sh -c 'exit 0'; exit 0", NULL };
	struct px_event ev;
	struct px_event_set set = { &ev, 1 };
	struct px_child c;
	struct px_target t = { .cpu = -1, .inherit = true, .enable_on_exec = true };
	struct px_group *g = NULL;
	struct px_count n;
	int status, st;

	if (px_event_parse("task-clock", &ev)) {
		ok(0, "task-clock parses: %s", px_last_error());
		return;
	}
	is_int(px_child_fork(argv, false, &c), 0, "an untraced command starts");
	t.pid = c.pid;
	is_int(px_backend_perf.open(&set, 1, &t, NULL, &status, &g), 0,
	       "a counter opens on it, held");
	if (!g) {
		px_child_abort(&c);
		return;
	}
	is_int(px_group_read(g, &n), 0, "read before the exec");
	ok(n.value == 0 && n.enabled == 0, "nothing counted before its exec");
	is_int(px_child_release(&c), 0, "released");
	waitpid(c.pid, &st, 0);
	is_int(px_group_read(g, &n), 0, "read after its end");
	ok(n.value > 0 && n.enabled == n.running,
	   "the command and its child counted: %llu ns", (unsigned long long)n.value);
	px_group_close(g);
}

int main(void)
{
	for (int traced = 0; traced < 2; traced++) {
		released(traced);
		exec_fails(traced);
		aborted(traced);
	}
	counted_from_exec();
	return done_testing();
}
