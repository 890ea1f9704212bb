/* perfex's counting starts at the command's exec: px_report_count()'s
 * count of a workload's page faults equals that of a counter armed with
 * enable_on_exec alone on a child that waits on a pipe (perf stat's way),
 * with the address space laid out the same every run (no ASLR).  Enabled
 * when the session starts instead, its counters also counted the last
 * steps of the held copy of this process before its exec (two faults
 * here on touch_pages). */
#include "tap.h"
#include "backend.h"
#include "error.h"
#include "events.h"
#include "report.h"
#include "target.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The page faults of argv counted by perf_event_open() directly, from the
 * exec of a child held on a pipe; -1 when it could not be counted. */
static long long direct_count(char *const argv[])
{
	struct perf_event_attr a;
	int go[2], fd, st;
	long long v = -1;
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) == 0)
			execv(argv[0], argv);
		_exit(127);
	}
	close(go[0]);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.disabled = 1;
	a.inherit = 1;
	a.enable_on_exec = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, 0);
	close(go[1]);
	waitpid(pid, &st, 0);
	if (fd >= 0 && read(fd, &v, sizeof(v)) != sizeof(v))
		v = -1;
	if (fd >= 0)
		close(fd);
	return WIFEXITED(st) && !WEXITSTATUS(st) ? v : -1;
}

int main(void)
{
	char *argv[] = { PX_TREE "/build/tests/workloads/touch_pages", "1000", NULL };
	struct px_event ev;
	struct px_report r = { 0 };
	struct px_child first;
	int exec_errno;
	long long want;

	ok(personality(ADDR_NO_RANDOMIZE) != -1, "the same address layout every run");
	if (px_event_parse("page-faults", &ev)) {
		ok(0, "page-faults parses: %s", px_last_error());
		return done_testing();
	}
	want = direct_count(argv);
	ok(want > 1000, "touch_pages 1000 counted from its exec alone: %lld faults", want);
	is_int(px_child_fork(argv, &first), 0, "the command starts held");
	is_int(px_report_count(&(struct px_count_opts){
			.tool = "test", .backend = &px_backend_perf, .argv = argv,
			.events = &ev, .nevents = 1, .repeat = 1 },
		&first, &r, &exec_errno), 0, "perfex's count runs");
	is_int((long long)r.results[0].last.raw, want,
	       "and counts exactly those faults: from the exec, nothing of the held copy");
	px_report_free(&r);
	return done_testing();
}
