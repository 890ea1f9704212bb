/* Counting a command from start to end: spawn it held, attach counters,
 * let it run, read them. */
#ifndef PX_MEASURE_H
#define PX_MEASURE_H

#include "backend.h"

struct px_run {
	int exit_code;		/* the shell's code: status, or 128+signal */
	int signal;		/* the signal that killed it, or 0 */
	uint64_t elapsed_ns;
};

/* Count evs over one run of argv and its children.  status[i] tells which
 * events cannot be counted here; when none can, nothing is run and
 * -EOPNOTSUPP is returned.  A command that cannot be executed returns
 * -errno of the exec (see px_exec_exit_code()).  Other failures: -errno,
 * message in px_last_error(). */
int px_count_command(const struct px_backend *be, struct px_event *evs,
		     size_t n, char *const argv[], int *status,
		     struct px_count *counts, struct px_run *run);

/* The same for a child already spawned and held by px_child_spawn(),
 * so a caller can do other work (encode events) while it starts. */
struct px_child;
int px_count_child(const struct px_backend *be, struct px_event *evs,
		   size_t n, struct px_child *child, int *status,
		   struct px_count *counts, struct px_run *run);

#endif
