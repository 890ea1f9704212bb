/* Forking, holding and releasing the measured command. */
#include "target.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

uint64_t px_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void child_run(char *const argv[], const sigset_t *mask, int err_fd)
{
	int err;

	/* the command gets the signal mask pfmon was started with, not the
	 * one its session loop blocks signals with to read them from a
	 * signalfd (else Ctrl-C would never reach it) */
	if (mask)
		sigprocmask(SIG_SETMASK, mask, NULL);
	/* under a debugger or strace TRACEME fails: stop all the same (a
	 * plain stop, ended by SIGCONT), so counting still works */
	ptrace(PTRACE_TRACEME, 0, NULL, NULL);
	raise(SIGSTOP);
	execvp(argv[0], argv);
	err = errno;
	if (write(err_fd, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

static int child_fork(char *const argv[], const sigset_t *mask, struct px_child *c)
{
	int pipefd[2];

	memset(c, 0, sizeof(*c));
	c->exec_error_pipe = -1;
	if (pipe2(pipefd, O_CLOEXEC))
		return px_fail(errno, "cannot create a pipe: %s", strerror(errno));
	fflush(NULL);
	c->pid = fork();
	if (c->pid < 0) {
		int err = errno;

		close(pipefd[0]);
		close(pipefd[1]);
		return px_fail(err, "cannot fork: %s", strerror(err));
	}
	if (c->pid == 0) {
		close(pipefd[0]);
		child_run(argv, mask, pipefd[1]);
	}
	close(pipefd[1]);
	c->exec_error_pipe = pipefd[0];
	return 0;
}

int px_child_held(struct px_child *c)
{
	int status;

	if (c->held)
		return 0;
	if (waitpid(c->pid, &status, WUNTRACED) != c->pid || !WIFSTOPPED(status)) {
		close(c->exec_error_pipe);
		c->exec_error_pipe = -1;
		return px_fail(ECHILD, "the command did not stop before exec");
	}
	c->held = true;
	return 0;
}

int px_child_fork(char *const argv[], struct px_child *c)
{
	return child_fork(argv, NULL, c);
}

int px_child_spawn(char *const argv[], const sigset_t *mask, struct px_child *c)
{
	int ret = child_fork(argv, mask, c);

	return ret ? ret : px_child_held(c);
}

int px_child_release(struct px_child *c)
{
	int err = 0;
	ssize_t got;

	if (ptrace(PTRACE_DETACH, c->pid, NULL, NULL))
		kill(c->pid, SIGCONT);
	/* the pipe closes on a successful exec, or carries exec's errno */
	do {
		got = read(c->exec_error_pipe, &err, sizeof(err));
	} while (got < 0 && errno == EINTR);
	close(c->exec_error_pipe);
	c->exec_error_pipe = -1;
	if (got == (ssize_t)sizeof(err)) {
		waitpid(c->pid, &c->wait_status, 0);
		return -err;
	}
	return 0;
}

void px_child_abort(struct px_child *c)
{
	if (c->pid <= 0)
		return;
	kill(c->pid, SIGKILL);
	waitpid(c->pid, &c->wait_status, 0);
	if (c->exec_error_pipe >= 0)
		close(c->exec_error_pipe);
	c->exec_error_pipe = -1;
}

int px_exit_code(int wait_status)
{
	if (WIFSIGNALED(wait_status))
		return 128 + WTERMSIG(wait_status);
	return WEXITSTATUS(wait_status);
}

int px_exec_exit_code(int err)
{
	return err == ENOENT || err == ENOTDIR ? 127 : 126;
}
