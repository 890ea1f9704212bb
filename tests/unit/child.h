/* A workload run as a child of the test, talked to through pipes: its
 * stdin is c->to, its stdout c->from.  Shared by the symbol tests, which
 * read the workload's addresses while it lives. */
#ifndef PX_TEST_CHILD_H
#define PX_TEST_CHILD_H

#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

struct child {
	pid_t pid;
	int to;		/* its stdin */
	FILE *from;	/* its stdout */
};

/* Starts exe with no arguments; -1 on failure. */
static int spawn(struct child *c, const char *exe)
{
	int in[2], outp[2];

	if (pipe(in) || pipe(outp))
		return -1;
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (c->pid == 0) {
		dup2(in[0], 0);
		dup2(outp[1], 1);
		close(in[0]);
		close(in[1]);
		close(outp[0]);
		close(outp[1]);
		execl(exe, exe, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(outp[1]);
	c->to = in[1];
	c->from = fdopen(outp[0], "r");
	return c->from ? 0 : -1;
}

/* Closes both pipes and reaps the child: its exit status, 128 + the
 * signal that killed it, or -1. */
static int finish(struct child *c)
{
	int st = 0;

	close(c->to);
	fclose(c->from);
	if (waitpid(c->pid, &st, 0) != c->pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

#endif
