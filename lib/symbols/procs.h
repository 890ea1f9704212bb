/* What ran where in a sampling session: each process's programs over
 * time (its execs), their names and mappings, from what was read of /proc
 * (at the start, at a process's exit) and the kernel's records, so that a
 * sample (pid, time) resolves against the program that process was
 * running when it was taken: a forked child before its exec ran its
 * parent's, a process that exec'ed ran another program before. */
#ifndef PX_PROCS_H
#define PX_PROCS_H

#include <stddef.h>
#include <stdint.h>

#include "procfs.h"
#include "sampler.h"
#include "symbols.h"

/* The session's history; px_mapping.time is 0 for mappings read when the
 * session started (or a task was attached), UINT64_MAX for those read at
 * a process's exit. */
struct px_procs {
	const struct px_mapping *maps;
	size_t nmaps;
	const struct px_task_event *tasks;
	size_t ntasks;
	const struct px_proc_name *names;	/* every process at the start */
	size_t nnames;
};

/* One process's execs recorded during the session, in time order: its
 * program number k (its epoch) runs from the k-th exec to the next. */
struct px_proc_execs {
	uint64_t *t;
	size_t n;
};

int px_procs_execs(const struct px_procs *p, uint32_t pid, struct px_proc_execs *e);
void px_proc_execs_free(struct px_proc_execs *e);
/* The epoch of a sample taken at time t (0: not known, the last). */
size_t px_proc_execs_epoch(const struct px_proc_execs *e, uint64_t t);

/* The name and the mappings of process pid in epoch k. */
void px_procs_name(const struct px_procs *p, uint32_t pid, const struct px_proc_execs *e,
		   size_t k, char comm[16]);
int px_procs_maps(const struct px_procs *p, uint32_t pid, const struct px_proc_execs *e,
		  size_t k, struct px_maps *m);

#endif
