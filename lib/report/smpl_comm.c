/* Process names of samples (smpl_comm.h): each process's execs read once,
 * each of its programs named once. */
#include "smpl_comm.h"
#include "error.h"
#include "procs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct comm_proc {
	uint32_t pid;
	struct px_proc_execs execs;
	char (*names)[16];	/* [execs.n + 1], "" until named */
};

struct px_smpl_comm {
	struct px_procs procs;
	struct comm_proc *v;
	size_t n;
	size_t last;		/* samples come in runs of one process */
};

int px_smpl_comm_new(struct px_smpl_comm **out, const struct px_smpl_session *s)
{
	struct px_smpl_comm *c = calloc(1, sizeof(*c));

	*out = c;
	if (!c)
		return px_fail(ENOMEM, "out of memory");
	c->procs = (struct px_procs){ s->maps, s->nmaps, s->tasks, s->ntasks,
				      s->names, s->nnames };
	return 0;
}

void px_smpl_comm_free(struct px_smpl_comm *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		px_proc_execs_free(&c->v[i].execs);
		free(c->v[i].names);
	}
	free(c->v);
	free(c);
}

static int find_proc(struct px_smpl_comm *c, uint32_t pid, struct comm_proc **out)
{
	struct comm_proc *p;
	int ret;

	if (c->n && c->v[c->last].pid == pid) {
		*out = &c->v[c->last];
		return 0;
	}
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].pid == pid) {
			c->last = i;
			*out = &c->v[i];
			return 0;
		}
	p = realloc(c->v, (c->n + 1) * sizeof(*p));
	if (!p)
		return px_fail(ENOMEM, "out of memory");
	c->v = p;
	p = &c->v[c->n];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	if ((ret = px_procs_execs(&c->procs, pid, &p->execs)))
		return ret;
	if (!(p->names = calloc(p->execs.n + 1, sizeof(*p->names)))) {
		px_proc_execs_free(&p->execs);
		return px_fail(ENOMEM, "out of memory");
	}
	c->last = c->n++;
	*out = p;
	return 0;
}

int px_smpl_comm_get(struct px_smpl_comm *c, uint32_t pid, uint64_t t, const char **name)
{
	struct comm_proc *p = NULL;
	size_t k;
	int ret = find_proc(c, pid, &p);

	if (ret)
		return ret;
	k = px_proc_execs_epoch(&p->execs, t);
	if (!p->names[k][0])
		px_procs_name(&c->procs, pid, &p->execs, k, p->names[k]);
	*name = p->names[k];
	return 0;
}
