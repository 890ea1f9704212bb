// SPDX-License-Identifier: GPL-2.0
/*
 * hw_ref EVENT COMMAND [ARG...]: the hardware suite's reference count.
 * Counts one user-level event of COMMAND (and its children) with plain
 * perf_event_open(2), enabled by the kernel at COMMAND's exec
 * (enable_on_exec), so no instruction of this program is counted, and
 * prints the count.  EVENT: instructions, cycles, or rHEX (a raw code of
 * the machine's PMU).  Fails (status 1) when the counter was multiplexed
 * (time running below time enabled): a reference is measured alone.
 * Exits with COMMAND's status otherwise.  Built static, independent of
 * the library it checks.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int parse_event(const char *s, struct perf_event_attr *a)
{
	char *end;

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	if (!strcmp(s, "instructions")) {
		a->type = PERF_TYPE_HARDWARE;
		a->config = PERF_COUNT_HW_INSTRUCTIONS;
	} else if (!strcmp(s, "cycles")) {
		a->type = PERF_TYPE_HARDWARE;
		a->config = PERF_COUNT_HW_CPU_CYCLES;
	} else if (s[0] == 'r' && s[1]) {
		a->type = PERF_TYPE_RAW;
		errno = 0;
		a->config = strtoull(s + 1, &end, 16);
		if (errno || *end)
			return -1;
	} else {
		return -1;
	}
	a->disabled = 1;
	a->enable_on_exec = 1;
	a->inherit = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return 0;
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	uint64_t v[3];
	int go[2], fd, status;
	pid_t pid;
	char c = 0;

	if (argc < 3 || parse_event(argv[1], &attr)) {
		fprintf(stderr, "usage: hw_ref instructions|cycles|rHEX COMMAND [ARG...]\n");
		return 2;
	}
	if (pipe(go))
		return perror("hw_ref: pipe"), 1;
	pid = fork();
	if (pid < 0)
		return perror("hw_ref: fork"), 1;
	if (!pid) {
		/* held until the counter is attached */
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		close(go[0]);
		execvp(argv[2], argv + 2);
		fprintf(stderr, "hw_ref: cannot run '%s': %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	fd = syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "hw_ref: perf_event_open(%s): %s\n", argv[1], strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return 1;
	}
	if (write(go[1], &c, 1) != 1)
		return perror("hw_ref: write"), 1;
	close(go[1]);
	if (waitpid(pid, &status, 0) != pid)
		return perror("hw_ref: waitpid"), 1;
	if (read(fd, v, sizeof(v)) != sizeof(v))
		return perror("hw_ref: read"), 1;
	if (v[2] < v[1]) {
		fprintf(stderr, "hw_ref: %s was multiplexed (ran %llu of %llu ns)\n", argv[1],
			(unsigned long long)v[2], (unsigned long long)v[1]);
		return 1;
	}
	printf("%llu\n", (unsigned long long)v[0]);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
