/* --speedscope: resolved samples into a speedscope file (speedscope.h). */
#include "speedscope.h"
#include "callgraph.h"
#include "emit.h"
#include "error.h"
#include "events.h"
#include "grow.h"

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
	/* the frames, interned by (name, module): a frame's number is its
	 * index in shared.frames */
	struct px_cg *frames;
	char **files;			/* [frame] its source file, or NULL */
	size_t nframes, files_cap;
	/* the call graph's frames' numbers here, -1 until seen: a chain's
	 * frames are found by index, not by name, sample after sample */
	ssize_t *of_cg;
	size_t ncg;
	struct ss_profile *profiles;
	size_t nprofiles, profiles_cap, last;
	size_t nevents;			/* sampling events */
};

static int speedscope_new(struct px_speedscope **out, const struct px_smpl_session *s)
{
	const struct px_smpl_session_opts *o = &s->o;
	struct px_speedscope *p = calloc(1, sizeof(*p));

	*out = p;
	if (!p)
		return px_fail(ENOMEM, "out of memory");
	p->session = s;
	for (size_t set = 0; set < o->mon.nsets; set++)
		for (size_t i = 0; i < o->mon.sets[set].n; i++)
			p->nevents += o->pmds[set][i].long_period != 0;
	return px_cg_new(&p->frames);
}

static void speedscope_free(struct px_speedscope *p)
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
	free(p->of_cg);
	px_cg_free(p->frames);
	free(p);
}

/* Frame id's source file, when it has none yet (file NULL or "??": not
 * known).  id, or -ENOMEM. */
static ssize_t frame_file(struct px_speedscope *p, ssize_t id, const char *file)
{
	if (file && strcmp(file, "??") && !p->files[id] && !(p->files[id] = strdup(file)))
		return -ENOMEM;
	return id;
}

/* The number of frame (name, module), with its source file if it has
 * none yet (frame_file).  >= 0, or -ENOMEM. */
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
	return frame_file(p, id, file);
}

/* A place's functions with their source files (without call graphs). */
static int place_files(struct px_speedscope *p, const struct px_location *loc)
{
	if (!strcmp(loc->func, "??"))
		return 0;
	for (size_t j = 0; j <= loc->n_inline; j++) {
		if (frame(p, px_location_level_func(loc, j), loc->module,
			  px_location_level_file(loc, j)) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The number of the call graph's frame fr, with its source file if it
 * has none yet (NULL: not known).  >= 0, or -ENOMEM. */
static ssize_t cg_frame(struct px_speedscope *p, const struct px_cg *cg, uint32_t fr,
			const char *file)
{
	ssize_t id;

	if (fr >= p->ncg) {
		size_t n = p->ncg;

		if (px_grow((void **)&p->of_cg, &p->ncg, n, fr + 1 - n, sizeof(*p->of_cg), 1024))
			return -ENOMEM;
		for (size_t i = n; i < p->ncg; i++)
			p->of_cg[i] = -1;
	}
	id = p->of_cg[fr];
	if (id < 0)
		return p->of_cg[fr] = frame(p, px_cg_frame_name(cg, fr), px_cg_frame_module(cg, fr),
					    file);
	return frame_file(p, id, file);
}

/* The files of a stack's frames that places gave (each place's frames,
 * the stack's last, innermost first: its inline levels, its function). */
static int stack_files(struct px_speedscope *p, const struct px_cg *cg,
		       const struct px_chain_stack *st)
{
	size_t left = st->n;

	for (size_t i = 0; i < st->nplaces; i++) {
		const struct px_location *loc = st->places[i].loc;
		bool named = loc && strcmp(loc->func, "??");

		for (size_t j = 0; j < st->places[i].nframes; j++)
			if (cg_frame(p, cg, st->frames[--left],
				     named ? px_location_level_file(loc, j) : NULL) < 0)
				return -ENOMEM;
	}
	return 0;
}

static struct ss_profile *profile_of(struct px_speedscope *p, const struct px_sample *x,
				     const char *comm)
{
	struct ss_profile *q;

	for (size_t i = 0; i < p->nprofiles; i++) {
		q = &p->profiles[(p->last + i) % p->nprofiles];
		if (q->pid == x->pid && q->tid == x->tid && q->set == x->set &&
		    q->pmd == x->ovfl_pmd) {
			p->last = (size_t)(q - p->profiles);
			return q;
		}
	}
	if (px_grow((void **)&p->profiles, &p->profiles_cap, p->nprofiles, 1,
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
	       const struct px_smpl_resolved *sr)
{
	struct ss_profile *q = profile_of(p, sr->x, sr->comm);
	const struct px_chain_stack *st = &sr->stack;
	uint64_t period = -sr->x->last_reset_val;	/* reset value: 2^64 - period */
	int ret = 0;

	if (!q)
		return -ENOMEM;
	if (r->cg) {
		/* the root, system-wide: the process, which the profile names */
		size_t skip = st->n && px_smpl_per_process(&r->session->o, &r->o);

		if (stack_files(p, r->cg, st))
			return -ENOMEM;
		for (size_t i = skip; i < st->n && !ret; i++)
			ret = push(q, cg_frame(p, r->cg, st->frames[i], NULL));
	} else {
		if (place_files(p, sr->loc))
			return -ENOMEM;
		ret = push(q, frame(p, sr->loc->func, sr->loc->module, NULL));
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

static int speedscope_write(struct px_speedscope *p, FILE *f)
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

static int export_open(void **state, const struct px_smpl_session *s, FILE *f)
{
	(void)f;	/* written whole at the end */
	return speedscope_new((struct px_speedscope **)state, s);
}

static int export_add(void *state, const struct px_smpl_result *r,
		      const struct px_smpl_resolved *s)
{
	return add(state, r, s) ? px_fail(ENOMEM, "out of memory") : 0;
}

static int export_write(void *state, FILE *f)
{
	return speedscope_write(state, f);
}

static void export_free(void *state)
{
	speedscope_free(state);
}

const struct px_smpl_export px_export_speedscope = {
	export_open, export_add, export_write, export_free,
};
