/* Processes over time (see procs.h). */
#include "procs.h"
#include "error.h"
#include "procfs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64	/* forks followed back to a known process */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int px_procs_execs(const struct px_procs *p, uint32_t pid, struct px_proc_execs *e)
{
	size_t n = 0;

	memset(e, 0, sizeof(*e));
	for (size_t i = 0; i < p->ntasks; i++)
		n += p->tasks[i].kind == PX_TASK_COMM && p->tasks[i].exec &&
		     p->tasks[i].pid == pid && p->tasks[i].time;
	if (!n)
		return 0;
	e->t = malloc(n * sizeof(*e->t));
	if (!e->t)
		return px_fail(ENOMEM, "out of memory");
	for (size_t i = 0; i < p->ntasks; i++)
		if (p->tasks[i].kind == PX_TASK_COMM && p->tasks[i].exec &&
		    p->tasks[i].pid == pid && p->tasks[i].time)
			e->t[e->n++] = p->tasks[i].time;
	qsort(e->t, e->n, sizeof(*e->t), cmp_u64);
	return 0;
}

void px_proc_execs_free(struct px_proc_execs *e)
{
	free(e->t);
	memset(e, 0, sizeof(*e));
}

size_t px_proc_execs_epoch(const struct px_proc_execs *e, uint64_t t)
{
	size_t k = 0;

	if (!t)
		return e->n;
	while (k < e->n && e->t[k] <= t)
		k++;
	return k;
}

/* Epoch k's span [lo, hi]: from its exec to just before the next. */
static void span(const struct px_proc_execs *e, size_t k, uint64_t *lo, uint64_t *hi)
{
	*lo = k ? e->t[k - 1] : 0;
	*hi = k < e->n ? e->t[k] - 1 : UINT64_MAX;
}

/* The process pid was forked from during the session (0: none seen), and
 * when. */
static uint32_t parent_of(const struct px_procs *p, uint32_t pid, uint64_t *when)
{
	for (size_t i = 0; i < p->ntasks; i++)
		if (p->tasks[i].kind == PX_TASK_FORK && p->tasks[i].pid == pid &&
		    p->tasks[i].tid == pid && p->tasks[i].ppid != pid) {
			*when = p->tasks[i].time;
			return p->tasks[i].ppid;
		}
	return 0;
}

/* The epoch of process pid at time t, its execs read here. */
static size_t epoch_at(const struct px_procs *p, uint32_t pid, uint64_t t,
		       struct px_proc_execs *e)
{
	if (px_procs_execs(p, pid, e))
		return 0;
	return px_proc_execs_epoch(e, t);
}

static void name_in(const struct px_procs *p, uint32_t pid, const struct px_proc_execs *e,
		    size_t k, char comm[16], int depth)
{
	const struct px_task_event *found = NULL;
	uint64_t lo, hi, when = 0;
	uint32_t parent;

	comm[0] = 0;
	if (!pid) {
		snprintf(comm, 16, "swapper");
		return;
	}
	/* the last name recorded in the epoch, its main thread's first */
	span(e, k, &lo, &hi);
	for (size_t i = 0; i < p->ntasks; i++) {
		const struct px_task_event *t = &p->tasks[i];

		if (t->kind != PX_TASK_COMM || t->pid != pid || t->time < lo || t->time > hi)
			continue;
		if (!found || (t->tid == pid) > (found->tid == pid) ||
		    ((t->tid == pid) == (found->tid == pid) && t->time >= found->time))
			found = t;
	}
	if (found) {
		snprintf(comm, 16, "%s", found->comm);
		return;
	}
	if (k == 0) {
		for (size_t i = 0; i < p->nnames; i++)
			if (p->names[i].pid == pid) {
				snprintf(comm, 16, "%s", p->names[i].comm);
				return;
			}
		parent = parent_of(p, pid, &when);
		if (parent && depth < MAX_DEPTH) {
			struct px_proc_execs pe;
			size_t pk = epoch_at(p, parent, when, &pe);

			name_in(p, parent, &pe, pk, comm, depth + 1);
			px_proc_execs_free(&pe);
			return;
		}
	}
	if (k == e->n)		/* its last program: maybe it still runs */
		px_proc_comm((pid_t)pid, comm, 16);
	if (!comm[0])
		snprintf(comm, 16, "??");
}

void px_procs_name(const struct px_procs *p, uint32_t pid, const struct px_proc_execs *e,
		   size_t k, char comm[16])
{
	name_in(p, pid, e, k, comm, 0);
}

static int maps_in(const struct px_procs *p, uint32_t pid, const struct px_proc_execs *e,
		   size_t k, struct px_maps *m, int depth)
{
	uint64_t lo, hi, when = 0;
	uint32_t parent;
	int ret;

	/* a forked child runs its parent's program until its exec */
	if (k == 0 && (parent = parent_of(p, pid, &when)) && depth < MAX_DEPTH) {
		struct px_proc_execs pe;
		size_t pk = epoch_at(p, parent, when, &pe);

		ret = maps_in(p, parent, &pe, pk, m, depth + 1);
		px_proc_execs_free(&pe);
		if (ret)
			return ret;
	}
	span(e, k, &lo, &hi);
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct px_mapping *x = &p->maps[i];

		if (x->pid != pid || x->time < lo || x->time > hi ||
		    (x->path[0] != '/' && strcmp(x->path, "[vdso]")) || x->path[1] == '/')
			continue;
		if ((ret = px_maps_insert(m, x->start, x->len, x->pgoff, x->path)))
			return ret;
	}
	return 0;
}

int px_procs_maps(const struct px_procs *p, uint32_t pid, const struct px_proc_execs *e,
		  size_t k, struct px_maps *m)
{
	return maps_in(p, pid, e, k, m, 0);
}
