/* Forking, holding and releasing the measured command. */
#include "target.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
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

/* The untraced child's stack: its execvp's search of PATH builds each
 * candidate path on it. */
#define SPAWN_STACK_SIZE (256 * 1024)

/* What the untraced child needs, at the top of its own stack. */
struct spawn_args {
	char *const *argv;
	int release_fd;		/* read end: end of file releases it */
	int release_write_fd;	/* our write end, which it must not hold */
	int err_fd;		/* write end: errno of a failed execvp */
};

/* The untraced child: it shares our memory (and so our errno) until its
 * exec, so it makes system calls only, and the parent writes nothing it
 * reads.  Its hold is a read of a pipe that the release closes. */
static int spawn_child(void *arg)
{
	const struct spawn_args *a = arg;
	char byte;
	int err;

	close(a->release_write_fd);
	if (read(a->release_fd, &byte, 1) != 0)
		_exit(127);
	execvp(a->argv[0], a->argv);
	err = errno;
	if (write(a->err_fd, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

/* clone(CLONE_VM) the untraced child, held on its release pipe. */
static int spawn_untraced(char *const argv[], int err_fd, struct px_child *c)
{
	int hold[2];
	struct spawn_args *a;
	char *stack;

	if (pipe2(hold, O_CLOEXEC))
		return px_fail(errno, "cannot create a pipe: %s", strerror(errno));
	stack = mmap(NULL, SPAWN_STACK_SIZE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED) {
		close(hold[0]);
		close(hold[1]);
		return px_fail(ENOMEM, "cannot map the command's start-up stack: %s",
			       strerror(errno));
	}
	a = (struct spawn_args *)(stack + SPAWN_STACK_SIZE) - 1;
	*a = (struct spawn_args){ argv, hold[0], hold[1], err_fd };
	c->pid = clone(spawn_child, a, CLONE_VM | SIGCHLD, a);
	close(hold[0]);
	if (c->pid < 0) {
		int err = errno;

		close(hold[1]);
		munmap(stack, SPAWN_STACK_SIZE);
		return px_fail(err, "cannot start the command: %s", strerror(err));
	}
	c->release_pipe = hold[1];
	c->stack = stack;
	c->held = true;
	return 0;
}

/* The untraced child has exec'd or ended: its stack is ours again. */
static void free_stack(struct px_child *c)
{
	if (c->stack)
		munmap(c->stack, SPAWN_STACK_SIZE);
	c->stack = NULL;
	if (c->release_pipe >= 0)
		close(c->release_pipe);
	c->release_pipe = -1;
}

static int child_fork(char *const argv[], const sigset_t *mask, bool traced,
		      struct px_child *c)
{
	int pipefd[2];

	memset(c, 0, sizeof(*c));
	c->exec_error_pipe = -1;
	c->release_pipe = -1;
	c->traced = traced;
	if (pipe2(pipefd, O_CLOEXEC))
		return px_fail(errno, "cannot create a pipe: %s", strerror(errno));
	if (!traced) {
		int ret = spawn_untraced(argv, pipefd[1], c);

		close(pipefd[1]);
		if (ret)
			close(pipefd[0]);
		else
			c->exec_error_pipe = pipefd[0];
		return ret;
	}
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

int px_child_fork(char *const argv[], bool traced, struct px_child *c)
{
	return child_fork(argv, NULL, traced, c);
}

int px_child_spawn(char *const argv[], const sigset_t *mask, struct px_child *c)
{
	int ret = child_fork(argv, mask, true, c);

	return ret ? ret : px_child_held(c);
}

int px_child_release(struct px_child *c)
{
	int err = 0;
	ssize_t got;

	if (!c->held && px_child_held(c))
		return -ECHILD;
	if (!c->traced) {
		close(c->release_pipe);
		c->release_pipe = -1;
	} else if (ptrace(PTRACE_DETACH, c->pid, NULL, NULL)) {
		kill(c->pid, SIGCONT);
	}
	/* the pipe closes on a successful exec, or carries exec's errno */
	do {
		got = read(c->exec_error_pipe, &err, sizeof(err));
	} while (got < 0 && errno == EINTR);
	close(c->exec_error_pipe);
	c->exec_error_pipe = -1;
	if (got == (ssize_t)sizeof(err)) {
		waitpid(c->pid, &c->wait_status, 0);
		free_stack(c);
		return -err;
	}
	/* the pipe closed at the exec, in the new program's memory (or when
	 * the child ended): its stack is free */
	free_stack(c);
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
	free_stack(c);
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
