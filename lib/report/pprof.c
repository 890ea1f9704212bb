/* --pprof: the resolved samples into a pprof profile (pprof.h): the value
 * types, each sample's locations and labels, alike samples merged. */
#include "pprof_int.h"
#include "error.h"
#include "events.h"
#include "grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The value types: "samples" then each sampling event, set by set, as
 * the profile (lib/profile/smpl_resolve.h) orders them. */
static int value_types(struct px_pprof *p)
{
	const struct px_smpl_session_opts *o = &p->session->o;
	char label[PX_EVENT_NAME_MAX + 16];
	int64_t t, u;

	p->ncolumns = 1;
	for (size_t s = 0; s < o->mon.nsets; s++)
		for (size_t i = 0; i < o->mon.sets[s].n; i++)
			p->ncolumns += o->pmds[s][i].long_period != 0;
	p->type = calloc(p->ncolumns, sizeof(*p->type));
	p->unit = calloc(p->ncolumns, sizeof(*p->unit));
	p->column = calloc(p->session->nevents + 1, sizeof(*p->column));
	if (!p->type || !p->unit || !p->column)
		return -ENOMEM;
	if ((t = pp_string(p, "samples")) < 0 || (u = pp_string(p, "count")) < 0)
		return -ENOMEM;
	p->type[0] = (uint32_t)t;
	p->unit[0] = (uint32_t)u;
	for (size_t s = 0, c = 1; s < o->mon.nsets; s++)
		for (size_t i = 0; i < o->mon.sets[s].n; i++) {
			const struct px_event *ev = &o->mon.sets[s].events[i];

			if (!o->pmds[s][i].long_period)
				continue;
			px_smpl_event_label(o, s, i, label, sizeof(label));
			if ((t = pp_string(p, label)) < 0 ||
			    (u = pp_string(p, px_event_is_clock(ev) ? "nanoseconds" : "events")) < 0)
				return -ENOMEM;
			p->type[c] = (uint32_t)t;
			p->unit[c] = (uint32_t)u;
			p->column[px_smpl_event_index(o, s, i)] = c++;
		}
	return 0;
}

static int pprof_new(struct px_pprof **out, const struct px_smpl_session *s)
{
	static const char *const keys[] = { "pid", "tid", "cpu", "set" };
	struct px_pprof *p = calloc(1, sizeof(*p));
	int64_t id;
	int ret;

	*out = p;
	if (!p)
		return px_fail(ENOMEM, "out of memory");
	p->session = s;
	if ((ret = (int)pp_string(p, "")) < 0 || (ret = value_types(p)))
		return px_fail(ENOMEM, "out of memory");
	for (size_t i = 0; i < 4; i++) {
		if ((id = pp_string(p, keys[i])) < 0)
			return px_fail(ENOMEM, "out of memory");
		p->label_key[i] = (uint32_t)id;
	}
	/* pprof drops a numeric label of 0 that has no unit: cpu 0, set 0 */
	if ((id = pp_string(p, "id")) < 0)
		return px_fail(ENOMEM, "out of memory");
	p->label_unit = (uint32_t)id;
	return 0;
}

static void pprof_free(struct px_pprof *p)
{
	if (!p)
		return;
	free(p->chars);
	free(p->strings);
	px_hindex_free(&p->string_ix);
	free(p->functions);
	px_hindex_free(&p->function_ix);
	free(p->mappings);
	free(p->locations);
	px_hindex_free(&p->location_ix);
	free(p->lines);
	free(p->type);
	free(p->unit);
	free(p->column);
	free(p->samples);
	px_hindex_free(&p->sample_ix);
	free(p->keys);
	free(p->values);
	px_pb_free(&p->key);
	px_pb_free(&p->label);
	free(p->ids);
	free(p->names);
	free(p);
}

/* The string of s, as a number for the tables: -ENOMEM goes up as is. */
#define STR(p, s, out)                                     \
	do {                                               \
		int64_t id_ = pp_string(p, s);             \
		if (id_ < 0)                               \
			return (int)id_;                   \
		out = (uint32_t)id_;                       \
	} while (0)

/* A place's Location: its address, its mapping, one Line per inline
 * level, innermost first.  Level j's function is names[j] (the call
 * graph's frames, whose unknown places read "?? (MODULE+0xOFFSET)", or
 * the place's own names without call graphs); its file and line are
 * where the place is in it (px_location_level_file, _line). */
static int place_location(struct px_pprof *p, const struct px_location *loc,
			  const char *const *names, uint32_t *out)
{
	size_t n = loc->n_inline + 1;
	uint32_t module, name, file;
	struct pp_line *lines;
	int64_t id, fn, map;

	if ((*out = pp_location_find(p, loc->serial)))
		return 0;
	STR(p, loc->module, module);
	if ((map = pp_mapping_of(p, module, loc->ip)) < 0 ||
	    (id = pp_location_new(p, loc->serial, n, &lines)) < 0)
		return -ENOMEM;
	for (size_t j = 0; j < n; j++) {
		const char *src = px_location_level_file(loc, j);

		STR(p, names[j], name);
		STR(p, strcmp(src, "??") ? src : "", file);
		if ((fn = pp_function(p, name, module, file)) < 0)
			return (int)fn;
		lines[j].function = (uint32_t)fn;
		lines[j].line = px_location_level_line(loc, j);
	}
	p->locations[id - 1].address = loc->ip;
	p->locations[id - 1].mapping = (uint32_t)map;
	*out = (uint32_t)id;
	return 0;
}

/* A frame of the call graph that no place gave: its name alone. */
static int frame_location(struct px_pprof *p, const struct px_cg *cg, uint32_t frame,
			  uint32_t *out)
{
	uint32_t name, module;
	struct pp_line *line;
	int64_t id, fn;

	if ((*out = pp_location_find(p, PP_FRAME_KEY | frame)))
		return 0;
	STR(p, px_cg_frame_name(cg, frame), name);
	STR(p, px_cg_frame_module(cg, frame), module);
	if ((fn = pp_function(p, name, module, 0)) < 0 ||
	    (id = pp_location_new(p, PP_FRAME_KEY | frame, 1, &line)) < 0)
		return -ENOMEM;
	line->function = (uint32_t)fn;
	p->locations[id - 1].module = module;
	*out = (uint32_t)id;
	return 0;
}

/* The sampled place alone (no call graph), named by itself. */
static int sampled_location(struct px_pprof *p, const struct px_location *loc, uint32_t *out)
{
	size_t levels = loc->n_inline + 1;

	if (px_grow((void **)&p->names, &p->names_cap, 0, levels, sizeof(*p->names), 16))
		return -ENOMEM;
	for (size_t j = 0; j < levels; j++)
		p->names[j] = px_location_level_func(loc, j);
	return place_location(p, loc, p->names, out);
}

/* The sample's locations, leaf first, into p->ids (*nids of them): each
 * place of its chain, named by the frames it gave (innermost first, the
 * stack's last), then the frames no place gave. */
static int sample_locations(struct px_pprof *p, const struct px_smpl_result *r,
			    const struct px_smpl_resolved *sr, size_t *nids)
{
	const struct px_chain_stack *st = &sr->stack;
	size_t left = st->n;	/* the frames not yet placed, outermost */
	uint32_t id = 0;
	int ret = 0;

	if (px_grow((void **)&p->ids, &p->ids_cap, 0, st->n + 1, sizeof(*p->ids), 256))
		return -ENOMEM;
	*nids = 0;
	if (!st->n) {
		ret = sampled_location(p, sr->loc, &id);
		p->ids[(*nids)++] = id;
		return ret;
	}
	for (size_t i = 0; i < st->nplaces && !ret; i++) {
		const struct px_chain_place *pl = &st->places[i];

		if (!pl->loc) {
			ret = frame_location(p, r->cg, st->frames[--left], &id);
		} else if (px_grow((void **)&p->names, &p->names_cap, 0, pl->nframes,
				   sizeof(*p->names), 16)) {
			return -ENOMEM;
		} else {
			for (size_t j = 0; j < pl->nframes; j++)
				p->names[j] = px_cg_frame_name(r->cg, st->frames[--left]);
			ret = place_location(p, pl->loc, p->names, &id);
		}
		p->ids[(*nids)++] = id;
	}
	while (left > 0 && !ret) {
		ret = frame_location(p, r->cg, st->frames[--left], &id);
		p->ids[(*nids)++] = id;
	}
	return ret;
}

/* A numeric label into the sample's key. */
static void label(struct px_pprof *p, size_t k, uint64_t num)
{
	px_pb_reset(&p->label);
	px_pb_uint(&p->label, 1, p->label_key[k]);
	px_pb_uint(&p->label, 3, num);
	px_pb_uint(&p->label, 4, p->label_unit);
	px_pb_bytes(&p->key, 3, p->label.p, p->label.n);	/* Sample.label */
}

static uint64_t sample_hash_of(const void *arg, size_t i)
{
	return ((const struct px_pprof *)arg)->samples[i].hash;
}

/* The values of the sample whose key is p->key: an earlier one's, or a
 * new sample's, zeroed. */
static uint64_t *sample_values(struct px_pprof *p)
{
	uint64_t h = px_hash_bytes(p->key.p, p->key.n);
	struct pp_sample *e;
	size_t j;

	if (px_hindex_reserve(&p->sample_ix, p->nsamples, sample_hash_of, p))
		return NULL;
	for (j = px_hindex_first(&p->sample_ix, h); p->sample_ix.slot[j];
	     j = px_hindex_next(&p->sample_ix, j)) {
		e = &p->samples[p->sample_ix.slot[j] - 1];
		if (e->hash == h && e->len == p->key.n &&
		    !memcmp(p->keys + e->off, p->key.p, e->len))
			return p->values + (p->sample_ix.slot[j] - 1) * p->ncolumns;
	}
	if (px_grow((void **)&p->samples, &p->samples_cap, p->nsamples, 1,
		    sizeof(*p->samples), 1024) ||
	    px_grow((void **)&p->keys, &p->keys_cap, p->nkeys, p->key.n, 1, 65536) ||
	    px_grow((void **)&p->values, &p->values_cap, p->nsamples * p->ncolumns,
		    p->ncolumns, sizeof(*p->values), 1024))
		return NULL;
	memcpy(p->keys + p->nkeys, p->key.p, p->key.n);
	p->samples[p->nsamples] = (struct pp_sample){ p->nkeys, p->key.n, h };
	p->nkeys += p->key.n;
	p->sample_ix.slot[j] = ++p->nsamples;
	return memset(p->values + (p->nsamples - 1) * p->ncolumns, 0,
		      p->ncolumns * sizeof(*p->values));
}

static int pprof_add(struct px_pprof *p, const struct px_smpl_result *r,
		     const struct px_smpl_resolved *sr)
{
	const struct px_smpl_session_opts *o = &p->session->o;
	const struct px_sample *x = sr->x;
	bool known = x->set < o->mon.nsets && x->ovfl_pmd < o->mon.sets[x->set].n;
	size_t col = known ? p->column[px_smpl_event_index(o, x->set, x->ovfl_pmd)] : 0;
	uint64_t *v;
	size_t nids;
	int ret;

	if ((ret = sample_locations(p, r, sr, &nids)))
		return ret == -ENOMEM ? px_fail(ENOMEM, "out of memory") : ret;
	px_pb_reset(&p->key);
	px_pb_packed(&p->key, 1, p->ids, nids);		/* Sample.location_id */
	label(p, 0, x->pid);
	label(p, 1, x->tid);
	label(p, 2, x->cpu);
	label(p, 3, x->set);
	if (p->key.err || p->label.err || !(v = sample_values(p)))
		return px_fail(ENOMEM, "out of memory");
	v[0]++;
	/* the period that ended in this sample: perfmon's reset value is
	 * 2^64 - period (lib/backend/perf/sampler_perf.h) */
	if (col)
		v[col] += -x->last_reset_val;
	return 0;
}

static int export_open(void **state, const struct px_smpl_session *s, FILE *f)
{
	(void)f;	/* written whole at the end */
	return pprof_new((struct px_pprof **)state, s);
}

static int export_add(void *state, const struct px_smpl_result *r,
		      const struct px_smpl_resolved *s)
{
	return pprof_add(state, r, s);
}

static int export_write(void *state, FILE *f)
{
	return px_pprof_write(state, f);
}

static void export_free(void *state)
{
	pprof_free(state);
}

const struct px_smpl_export px_export_pprof = {
	export_open, export_add, export_write, export_free,
};
