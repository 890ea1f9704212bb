/* The measured command: fork it held before exec until its counters are
 * attached, and release it (the session engine, lib/session/monitor.c,
 * waits for it). */
#ifndef PX_TARGET_H
#define PX_TARGET_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* How a measured command ended. */
struct px_run {
	int exit_code;		/* the shell's code: status, or 128+signal */
	int signal;		/* the signal that killed it, or 0 */
	uint64_t elapsed_ns;
};

struct px_child {
	pid_t pid;
	int exec_error_pipe;	/* read end: errno of a failed execvp */
	int wait_status;	/* raw waitpid() status after a failed exec */
	bool held;		/* seen stopped before its exec */
};

/* Fork argv[0] (searched in PATH), its signal mask set to *mask (NULL:
 * ours; a caller that blocks signals to read them from a signalfd gives
 * the mask it had before).  The child stops itself under ptrace before
 * execvp, so counters can be attached to a task that has run none of the
 * command yet; perfctr's rule for remote attach is a stopped, traced
 * child.  Returns 0 or -errno. */
int px_child_spawn(char *const argv[], const sigset_t *mask, struct px_child *c);

/* The two halves of px_child_spawn(), for a caller with work to do while
 * the child starts: fork it, then wait until it has stopped (a no-op once
 * seen stopped). */
int px_child_fork(char *const argv[], struct px_child *c);
int px_child_held(struct px_child *c);

/* Let the stopped child go on to execvp.  Returns 0 when the exec
 * happened, or -errno of the failed exec (the child has then exited). */
int px_child_release(struct px_child *c);

/* Kill and reap a child that will not be released. */
void px_child_abort(struct px_child *c);

/* The shell's exit code for a wait status: the exit code, or 128+N when
 * killed by signal N. */
int px_exit_code(int wait_status);

/* The exit code for a failed exec: 127 not found, 126 not executable. */
int px_exec_exit_code(int err);

uint64_t px_now_ns(void);

#endif
