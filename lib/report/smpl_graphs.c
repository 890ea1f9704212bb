/* A sampling session's call graph as folded stacks (--folded) and as an
 * SVG flame graph per event (--flamegraph, lib/report/flamegraph.h). */
#include "smpl_report.h"
#include "runctx.h"
#include "profile.h"
#include "callgraph.h"
#include "error.h"
#include "flamegraph.h"
#include "grow.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* --folded: every event's stacks; with several events each stack starts
 * with its event's name. */
int px_smpl_write_folded(const struct px_smpl_result *r, FILE *f)
{
	size_t nev = px_profile_events(r->profile);
	int ret = 0;

	for (size_t e = 0; !ret && e < nev; e++)
		ret = px_cg_write_folded(r->cg, e, nev > 1 ? px_profile_event(r->profile, e) : NULL,
					 f);
	return ret;
}

/* An event's stacks for the flame graph: their frames' names. */
struct flame_event {
	const struct px_cg *cg;
	struct px_flame_stack *v;
	size_t n, cap;
	const char **names;	/* every stack's, back to back */
	size_t nnames, names_cap;
};

static int flame_stack(void *arg, const uint32_t *frames, size_t n, uint64_t count)
{
	struct flame_event *fe = arg;

	if (px_grow((void **)&fe->v, &fe->cap, fe->n, 1, sizeof(*fe->v), 256) ||
	    px_grow((void **)&fe->names, &fe->names_cap, fe->nnames, n, sizeof(*fe->names),
		    4096))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		fe->names[fe->nnames + i] = px_cg_frame_name(fe->cg, frames[i]);
	/* the names' offset for now: the array may still move */
	fe->v[fe->n++] = (struct px_flame_stack){ (const char *const *)(uintptr_t)fe->nnames,
						  n, count, 0 };
	fe->nnames += n;
	return 0;
}

/* A graph's title: the event, and the rank when a launcher started the
 * run, so that a job's graphs say which is which.  malloc'ed. */
static char *flame_title(const char *event)
{
	char run[400], *title;

	px_run_describe(run, sizeof(run));
	if (asprintf(&title, *run ? "%s, %s" : "%s", event, run) < 0)
		return NULL;
	return title;
}

/* --flamegraph: one graph per event, titled with its name. */
int px_smpl_write_flamegraph(const struct px_smpl_result *r, FILE *f)
{
	size_t nev = px_profile_events(r->profile);
	struct flame_event *fe = calloc(nev + 1, sizeof(*fe));
	struct px_flame_graph *g = calloc(nev + 1, sizeof(*g));
	int ret = fe && g ? 0 : px_fail(ENOMEM, "out of memory");

	for (size_t e = 0; !ret && e < nev; e++) {
		fe[e].cg = r->cg;
		ret = px_cg_stacks(r->cg, e, flame_stack, &fe[e]);
		for (size_t i = 0; !ret && i < fe[e].n; i++)
			fe[e].v[i].frames = fe[e].names + (uintptr_t)fe[e].v[i].frames;
		g[e] = (struct px_flame_graph){ flame_title(px_profile_event(r->profile, e)),
						fe[e].v, fe[e].n, false };
		if (!g[e].title)
			ret = px_fail(ENOMEM, "out of memory");
	}
	if (!ret)
		ret = px_flamegraph_write(f, g, nev);
	for (size_t e = 0; fe && g && e < nev; e++) {
		free(fe[e].v);
		free(fe[e].names);
		free((char *)g[e].title);
	}
	free(fe);
	free(g);
	return ret;
}

