/* Running the measured command: fork it held before exec until its
 * counters are attached, release it, and wait for it. */
#ifndef PX_TARGET_H
#define PX_TARGET_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct px_child {
	pid_t pid;
	int exec_error_pipe;	/* read end: errno of a failed execvp */
	int exec_errno;		/* set by px_child_release() */
	uint64_t start_ns;	/* CLOCK_MONOTONIC at release */
	uint64_t elapsed_ns;	/* release to exit */
	int wait_status;	/* raw waitpid() status */
	bool held;		/* seen stopped before its exec */
};

/* Fork argv[0] (searched in PATH).  The child stops itself under ptrace
 * before execvp, so counters can be attached to a task that has run none
 * of the command yet; perfctr's rule for remote attach is a stopped,
 * traced child.  Returns 0 or -errno. */
int px_child_spawn(char *const argv[], struct px_child *c);
/* The same, the command's signal mask set to *mask (NULL: ours), for a
 * caller that blocks signals to read them from a signalfd. */
int px_child_spawn_masked(char *const argv[], const sigset_t *mask, struct px_child *c);

/* The two halves of px_child_spawn(), for a caller with work to do while
 * the child starts: fork it, then wait until it has stopped (a no-op once
 * seen stopped). */
int px_child_fork(char *const argv[], struct px_child *c);
int px_child_held(struct px_child *c);

/* Let the stopped child go on to execvp.  Returns 0 when the exec
 * happened, or -errno of the failed exec (the child has then exited). */
int px_child_release(struct px_child *c);

/* Wait for the child to end, forwarding SIGINT, SIGTERM, SIGHUP and
 * SIGQUIT sent to us by kill(2) (the terminal already signals the whole
 * process group).  Returns 0 and fills wait_status and elapsed_ns. */
int px_child_wait(struct px_child *c);

/* While a caller waits for the child its own way: SIGINT, SIGTERM,
 * SIGHUP and SIGQUIT sent to us by kill(2) are passed on to the child,
 * once; a terminal's signal already reached its process group. */
#define PX_FORWARDED_SIGNALS 4
struct px_forwarding {
	struct sigaction saved[PX_FORWARDED_SIGNALS];
};
void px_forward_begin(const struct px_child *c, struct px_forwarding *f);
void px_forward_end(struct px_forwarding *f);

/* Kill and reap a child that will not be released. */
void px_child_abort(struct px_child *c);

/* The shell's exit code for a wait status: the exit code, or 128+N when
 * killed by signal N. */
int px_exit_code(int wait_status);

/* The exit code for a failed exec: 127 not found, 126 not executable. */
int px_exec_exit_code(int err);

uint64_t px_now_ns(void);

#endif
