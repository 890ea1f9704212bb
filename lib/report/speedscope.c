/* --speedscope: resolved samples into a speedscope file (speedscope.h). */
#include "speedscope.h"
#include "callgraph.h"
#include "emit.h"
#include "error.h"
#include "events.h"
#include "grow.h"
#include "smpl_comm.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A thread's samples of one event. */
struct ss_profile {
	uint32_t pid, tid;
	size_t set, pmd;		/* the event */
	char comm[16];
	uint32_t *stacks;		/* frame indices, back to back */
	size_t nstacks, stacks_cap;
	size_t *ends;			/* each sample's end in stacks */
	uint64_t *weights;
	size_t nsamples, ends_cap, weights_cap;
	uint64_t total;
};

struct px_speedscope {
	const struct px_smpl_session *session;
	struct px_smpl_comm *comm;
	/* the frames, interned by (name, module): a frame's number is its
	 * index in shared.frames */
	struct px_cg *frames;
	char **files;			/* [frame] its source file, or NULL */
	size_t nframes, files_cap;
	struct ss_profile *profiles;
	size_t nprofiles, profiles_cap, last;
	size_t nevents;			/* sampling events */
};

int px_speedscope_new(struct px_speedscope **out, const struct px_smpl_session *s)
{
	const struct px_smpl_session_opts *o = &s->o;
	struct px_speedscope *p = calloc(1, sizeof(*p));
	int ret;

	*out = p;
	if (!p)
		return px_fail(ENOMEM, "out of memory");
	p->session = s;
	for (size_t set = 0; set < o->mon.nsets; set++)
		for (size_t i = 0; i < o->mon.sets[set].n; i++)
			p->nevents += o->pmds[set][i].long_period != 0;
	if ((ret = px_smpl_comm_new(&p->comm, s)) || (ret = px_cg_new(&p->frames)))
		return ret;
	return 0;
}

void px_speedscope_free(struct px_speedscope *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nprofiles; i++) {
		free(p->profiles[i].stacks);
		free(p->profiles[i].ends);
		free(p->profiles[i].weights);
	}
	free(p->profiles);
	for (size_t i = 0; i < p->nframes; i++)
		free(p->files[i]);
	free(p->files);
	px_cg_free(p->frames);
	px_smpl_comm_free(p->comm);
	free(p);
}

/* The number of frame (name, module), with its source file if it has
 * none yet (file NULL or "??": not known).  >= 0, or -ENOMEM. */
static ssize_t frame(struct px_speedscope *p, const char *name, const char *module,
		     const char *file)
{
	ssize_t id = px_cg_frame(p->frames, name, module);

	if (id < 0)
		return id;
	/* frames are numbered in order: a new one is the next */
	if ((size_t)id == p->nframes) {
		if (px_grow((void **)&p->files, &p->files_cap, p->nframes, 1,
			    sizeof(*p->files), 256))
			return -ENOMEM;
		p->files[p->nframes++] = NULL;
	}
	if (file && strcmp(file, "??") && !p->files[id] && !(p->files[id] = strdup(file)))
		return -ENOMEM;
	return id;
}

/* The sampled place's functions with their source files: level j's file
 * is the innermost's for j = 0, else the call site's of level j - 1,
 * which is in level j's function. */
static int place_files(struct px_speedscope *p, const struct px_location *loc)
{
	if (!strcmp(loc->func, "??"))
		return 0;
	for (size_t j = 0; j <= loc->n_inline; j++) {
		const char *name = j < loc->n_inline ? loc->inlines[j].func : loc->func;
		const char *file = j ? loc->inlines[j - 1].call_file : loc->file;

		if (frame(p, name, loc->module, file) < 0)
			return -ENOMEM;
	}
	return 0;
}

static struct ss_profile *profile_of(struct px_speedscope *p, const struct px_sample *x)
{
	struct ss_profile *q;
	const char *comm;

	for (size_t i = 0; i < p->nprofiles; i++) {
		q = &p->profiles[(p->last + i) % p->nprofiles];
		if (q->pid == x->pid && q->tid == x->tid && q->set == x->set &&
		    q->pmd == x->ovfl_pmd) {
			p->last = (size_t)(q - p->profiles);
			return q;
		}
	}
	if (px_smpl_comm_get(p->comm, x->pid, x->tstamp, &comm) ||
	    px_grow((void **)&p->profiles, &p->profiles_cap, p->nprofiles, 1,
		    sizeof(*p->profiles), 16))
		return NULL;
	q = &p->profiles[p->nprofiles];
	memset(q, 0, sizeof(*q));
	q->pid = x->pid;
	q->tid = x->tid;
	q->set = x->set;
	q->pmd = x->ovfl_pmd;
	snprintf(q->comm, sizeof(q->comm), "%s", comm);
	p->last = p->nprofiles++;
	return q;
}

static int push(struct ss_profile *q, ssize_t id)
{
	if (id < 0 || px_grow((void **)&q->stacks, &q->stacks_cap, q->nstacks, 1,
			      sizeof(*q->stacks), 1024))
		return -ENOMEM;
	q->stacks[q->nstacks++] = (uint32_t)id;
	return 0;
}

static int add(struct px_speedscope *p, const struct px_smpl_result *r,
	       const struct px_sample *x, const struct px_location *loc,
	       const uint32_t *frames, size_t n)
{
	struct ss_profile *q = profile_of(p, x);
	uint64_t period = -x->last_reset_val;	/* reset value: 2^64 - period */
	int ret = 0;

	if (!q || place_files(p, loc))
		return -ENOMEM;
	if (r->cg) {
		/* the root, system-wide: the process, which the profile names */
		size_t skip = n && px_smpl_per_process(&r->session->o, &r->o);

		for (size_t i = skip; i < n && !ret; i++)
			ret = push(q, frame(p, px_cg_frame_name(r->cg, frames[i]),
					    px_cg_frame_module(r->cg, frames[i]), NULL));
	} else {
		ret = push(q, frame(p, loc->func, loc->module, NULL));
	}
	if (ret ||
	    px_grow((void **)&q->ends, &q->ends_cap, q->nsamples, 1, sizeof(*q->ends), 1024) ||
	    px_grow((void **)&q->weights, &q->weights_cap, q->nsamples, 1,
		    sizeof(*q->weights), 1024))
		return -ENOMEM;
	q->ends[q->nsamples] = q->nstacks;
	q->weights[q->nsamples++] = period;
	q->total += period;
	return 0;
}

int px_speedscope_add(struct px_speedscope *p, const struct px_smpl_result *r,
		      const struct px_sample *x, const struct px_location *loc,
		      const struct px_chain *c, const uint32_t *frames, size_t n)
{
	(void)c;
	return add(p, r, x, loc, frames, n) ? px_fail(ENOMEM, "out of memory") : 0;
}

static void write_frames(struct px_speedscope *p, FILE *f)
{
	fputs("\"shared\":{\"frames\":[", f);
	for (size_t i = 0; i < p->nframes; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		px_json_string(f, px_cg_frame_name(p->frames, (uint32_t)i));
		if (p->files[i]) {
			fputs(",\"file\":", f);
			px_json_string(f, p->files[i]);
		}
		fputc('}', f);
	}
	fputs("]}", f);
}

static void write_profile(struct px_speedscope *p, const struct ss_profile *q, FILE *f)
{
	const struct px_smpl_session_opts *o = &p->session->o;
	bool known = q->set < o->mon.nsets && q->pmd < o->mon.sets[q->set].n;
	char name[64];

	fputs("{\"type\":\"sampled\",\"name\":", f);
	snprintf(name, sizeof(name), "%s %u/%u", q->comm, q->pid, q->tid);
	if (p->nevents > 1 && known) {
		char label[PX_EVENT_NAME_MAX + 16], full[sizeof(name) + sizeof(label)];

		px_smpl_event_label(o, q->set, q->pmd, label, sizeof(label));
		snprintf(full, sizeof(full), "%s %s", name, label);
		px_json_string(f, full);
	} else {
		px_json_string(f, name);
	}
	fprintf(f, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRIu64 ",\"samples\":[",
		known && px_event_is_clock(&o->mon.sets[q->set].events[q->pmd]) ?
		"nanoseconds" : "none", q->total);
	for (size_t i = 0, b = 0; i < q->nsamples; b = q->ends[i++]) {
		fputs(i ? ",[" : "[", f);
		for (size_t k = b; k < q->ends[i]; k++)
			fprintf(f, k > b ? ",%" PRIu32 : "%" PRIu32, q->stacks[k]);
		fputc(']', f);
	}
	fputs("],\"weights\":[", f);
	for (size_t i = 0; i < q->nsamples; i++)
		fprintf(f, i ? ",%" PRIu64 : "%" PRIu64, q->weights[i]);
	fputs("]}", f);
}

int px_speedscope_write(struct px_speedscope *p, FILE *f)
{
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
	      "\"exporter\":\"pfmon " PX_VERSION "\",", f);
	write_frames(p, f);
	fputs(",\"profiles\":[", f);
	for (size_t i = 0; i < p->nprofiles; i++) {
		if (i)
			fputc(',', f);
		write_profile(p, &p->profiles[i], f);
	}
	fputs("]}\n", f);
	return 0;
}
