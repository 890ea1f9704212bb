/* Checking rank files against each other, and merging them. */
#include "merge.h"
#include "error.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int by_rank(const void *a, const void *b)
{
	const struct px_merge_input *x = a, *y = b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

static bool same_job(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* One kind, one job of one size, distinct ranks (in is sorted). */
static int check_runs(const struct px_merge_input *in, size_t nin)
{
	const struct px_merge_input *first = &in[0];

	for (size_t i = 1; i < nin; i++) {
		const struct px_merge_input *x = &in[i];

		if (x->kind != first->kind)
			return px_fail(EINVAL, "%s holds %s, but %s holds %s: merge outputs of one kind",
				       x->path, px_merge_kind_name(x->kind), first->path,
				       px_merge_kind_name(first->kind));
		if (!same_job(x->job, first->job))
			return px_fail(EINVAL, "%s is from job %s, but %s from job %s: merge the files of one job",
				       x->path, x->job ? x->job : "(none)", first->path,
				       first->job ? first->job : "(none)");
		if (x->size != first->size)
			return px_fail(EINVAL, "%s says its job has %ld ranks, but %s says %ld",
				       x->path, x->size, first->path, first->size);
		if (x->rank == in[i - 1].rank)
			return px_fail(EINVAL, "%s and %s are both rank %ld: each rank's file once",
				       in[i - 1].path, x->path, x->rank);
	}
	return 0;
}

/* The same events in the same order as the first file. */
static int check_events(const struct px_merge_input *in, size_t nin)
{
	const struct px_merge_input *first = &in[0];

	for (size_t i = 1; i < nin; i++) {
		const struct px_merge_input *x = &in[i];

		for (size_t e = 0; e < x->nevents || e < first->nevents; e++) {
			const struct px_merge_event *ea = e < first->nevents ? &first->events[e] : NULL;
			const struct px_merge_event *eb = e < x->nevents ? &x->events[e] : NULL;
			char a[256], b[256];

			if (ea && eb && !strcmp(ea->name, eb->name) && ea->set == eb->set)
				continue;
			if (ea)
				px_merge_label(ea->name, ea->set, a, sizeof(a));
			if (eb)
				px_merge_label(eb->name, eb->set, b, sizeof(b));
			if (!eb)
				return px_fail(EINVAL, "%s lacks the event %s of %s (a truncated file, or another event list?)",
					       x->path, a, first->path);
			if (!ea)
				return px_fail(EINVAL, "%s has the event %s, which %s lacks: merge runs of the same events",
					       x->path, b, first->path);
			return px_fail(EINVAL, "%s has the event %s where %s has %s: merge runs of the same events",
				       x->path, b, first->path, a);
		}
		for (size_t p = 0; p < x->nprofs || p < first->nprofs; p++)
			if (p >= x->nprofs || p >= first->nprofs ||
			    strcmp(x->profs[p].event, first->profs[p].event) ||
			    x->profs[p].set != first->profs[p].set)
				return px_fail(EINVAL, "%s and %s profile different events",
					       x->path, first->path);
	}
	return 0;
}

/* The statistics over the ranks, of counts and of the regions' sums
 * alike: begun, given each rank's value (ranks in order), finished. */
static void stat_begin(struct px_merge_stat *st, const char *name, long set)
{
	*st = (struct px_merge_stat){ .name = name, .set = set, .min = NAN, .max = NAN,
				      .mean = NAN, .imbalance = NAN, .min_rank = -1,
				      .max_rank = -1 };
}

static void stat_add(struct px_merge_stat *st, double value, long rank)
{
	if (!st->n || value < st->min) {
		st->min = value;
		st->min_rank = rank;
	}
	if (!st->n || value > st->max) {
		st->max = value;
		st->max_rank = rank;
	}
	st->sum += value;
	st->n++;
}

static void stat_end(struct px_merge_stat *st)
{
	if (!st->n)
		return;
	st->mean = st->sum / (double)st->n;
	st->imbalance = st->mean > 0 ? st->max / st->mean : NAN;
}

static void event_stat(const struct px_merge *m, size_t e, struct px_merge_stat *st)
{
	stat_begin(st, m->in[0].events[e].name, m->in[0].events[e].set);
	for (size_t i = 0; i < m->nin; i++)
		if (m->in[i].events[e].counted)
			stat_add(st, m->in[i].events[e].value, m->in[i].rank);
	stat_end(st);
}

/* A profile row with the input it came from, for grouping by function. */
struct row_ref {
	const struct px_merge_row *row;
	size_t input;
};

static int by_function(const void *a, const void *b)
{
	const struct px_merge_row *x = ((const struct row_ref *)a)->row;
	const struct px_merge_row *y = ((const struct row_ref *)b)->row;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->module, y->module);
}

static int by_samples(const void *a, const void *b)
{
	const struct px_merge_func *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Profile p of every input, merged: its functions grouped over ranks. */
static int merge_profile(struct px_merge *m, size_t p, struct row_ref *refs)
{
	struct px_merge_profile *mp = &m->profiles[p];
	size_t nrefs = 0;

	mp->event = m->in[0].profs[p].event;
	mp->set = m->in[0].profs[p].set;
	mp->rank_samples = calloc(m->nin, sizeof(uint64_t));
	if (!mp->rank_samples)
		return -ENOMEM;
	for (size_t i = 0; i < m->nin; i++) {
		const struct px_merge_input *x = &m->in[i];

		mp->rank_samples[i] = x->profs[p].samples;
		mp->samples += x->profs[p].samples;
		mp->cut += x->profs[p].listed < x->profs[p].rows;
		for (size_t r = 0; r < x->nrows; r++)
			if (x->rows[r].prof == p)
				refs[nrefs++] = (struct row_ref){ &x->rows[r], i };
	}
	qsort(refs, nrefs, sizeof(*refs), by_function);
	mp->funcs = calloc(nrefs ? nrefs : 1, sizeof(*mp->funcs));
	if (!mp->funcs)
		return -ENOMEM;
	for (size_t r = 0; r < nrefs; r++) {
		struct px_merge_func *fn;

		if (!r || by_function(&refs[r - 1], &refs[r])) {
			fn = &mp->funcs[mp->nfuncs++];
			fn->name = refs[r].row->name;
			fn->module = refs[r].row->module;
			fn->per_rank = calloc(m->nin, sizeof(uint64_t));
			if (!fn->per_rank)
				return -ENOMEM;
		}
		fn = &mp->funcs[mp->nfuncs - 1];
		fn->samples += refs[r].row->samples;
		fn->per_rank[refs[r].input] += refs[r].row->samples;
	}
	qsort(mp->funcs, mp->nfuncs, sizeof(*mp->funcs), by_samples);
	return 0;
}

static int merge_profiles(struct px_merge *m)
{
	size_t most = 0;
	struct row_ref *refs;
	int ret = 0;

	for (size_t i = 0; i < m->nin; i++)
		most += m->in[i].nrows;
	refs = malloc((most ? most : 1) * sizeof(*refs));
	m->profiles = calloc(m->in[0].nprofs ? m->in[0].nprofs : 1, sizeof(*m->profiles));
	if (!refs || !m->profiles) {
		free(refs);
		return -ENOMEM;
	}
	m->nprofiles = m->in[0].nprofs;
	for (size_t p = 0; !ret && p < m->nprofiles; p++)
		ret = merge_profile(m, p, refs);
	free(refs);
	return ret;
}

/* A region row with the input it came from and its event's place among
 * the counts' events, for grouping by region and event. */
struct region_ref {
	const struct px_merge_region *g;
	size_t input, event;
};

/* Where event name is among the input's counts (perfex --regions counts
 * the regions with -e's events): past them when it is not there. */
static size_t event_place(const struct px_merge_input *in, const char *name)
{
	size_t e = 0;

	while (e < in->nevents && strcmp(in->events[e].name, name))
		e++;
	return e;
}

/* By region, then event in -e's order; the input decides nothing here. */
static int by_region_event(const struct region_ref *x, const struct region_ref *y)
{
	int c = strcmp(x->g->symbol, y->g->symbol);

	if (c)
		return c;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	return strcmp(x->g->name, y->g->name);
}

/* Grouped by region and event, and within a group by input (by rank). */
static int by_region(const void *a, const void *b)
{
	const struct region_ref *x = a, *y = b;
	int c = by_region_event(x, y);

	return c ? c : (x->input > y->input) - (x->input < y->input);
}

/* One region's event from its n rows (of one or more threads and runs in
 * each input, by input): the calls and per-call figures over them all,
 * and each rank's sum into the statistics over the ranks. */
static void region_stat(const struct px_merge *m, const struct region_ref *refs, size_t n,
			struct px_merge_region_stat *rs)
{
	double rank_sum = 0;

	*rs = (struct px_merge_region_stat){ .symbol = refs[0].g->symbol };
	stat_begin(&rs->ranks, refs[0].g->name, -1);	/* region rows have no set */
	for (size_t k = 0; k < n; k++) {
		const struct px_merge_region *g = refs[k].g;

		rs->min = !k || g->min < rs->min ? g->min : rs->min;
		rs->max = !k || g->max > rs->max ? g->max : rs->max;
		rs->calls += g->calls;
		rs->scaled |= g->scaled;
		rank_sum += g->sum;
		if (k + 1 == n || refs[k + 1].input != refs[k].input) {
			stat_add(&rs->ranks, rank_sum, m->in[refs[k].input].rank);
			rank_sum = 0;
		}
	}
	stat_end(&rs->ranks);
}

static int merge_regions(struct px_merge *m)
{
	struct region_ref *refs;
	size_t n = 0;

	for (size_t i = 0; i < m->nin; i++)
		n += m->in[i].nregions;
	refs = malloc((n ? n : 1) * sizeof(*refs));
	m->regions = calloc(n ? n : 1, sizeof(*m->regions));
	if (!refs || !m->regions) {
		free(refs);
		return -ENOMEM;
	}
	n = 0;
	for (size_t i = 0; i < m->nin; i++)
		for (size_t r = 0; r < m->in[i].nregions; r++)
			refs[n++] = (struct region_ref){
				&m->in[i].regions[r], i,
				event_place(&m->in[0], m->in[i].regions[r].name) };
	qsort(refs, n, sizeof(*refs), by_region);
	for (size_t k = 0, end; k < n; k = end) {
		for (end = k + 1; end < n && !by_region_event(&refs[k], &refs[end]); end++)
			;
		region_stat(m, &refs[k], end - k, &m->regions[m->nregions++]);
	}
	free(refs);
	return 0;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t count_hosts(const struct px_merge_input *in, size_t nin)
{
	const char **hosts = malloc(nin * sizeof(*hosts));
	size_t n = 0;

	if (!hosts)
		return 0;
	for (size_t i = 0; i < nin; i++)
		hosts[i] = in[i].host;
	qsort(hosts, nin, sizeof(*hosts), by_string);
	for (size_t i = 0; i < nin; i++)
		n += !i || strcmp(hosts[i], hosts[i - 1]);
	free(hosts);
	return n;
}

int px_merge_build(struct px_merge_input *in, size_t nin, struct px_merge *m)
{
	int ret;

	memset(m, 0, sizeof(*m));
	m->in = in;
	m->nin = nin;
	if (!nin)
		return px_fail(EINVAL, "no files to merge");
	qsort(in, nin, sizeof(*in), by_rank);
	ret = check_runs(in, nin);
	if (!ret)
		ret = check_events(in, nin);
	if (ret)
		return ret;
	m->kind = in[0].kind;
	m->size = in[0].size;
	m->job = in[0].job;
	m->nhosts = count_hosts(in, nin);
	m->nstats = in[0].nevents;
	m->stats = calloc(m->nstats ? m->nstats : 1, sizeof(*m->stats));
	if (!m->stats)
		return px_fail(ENOMEM, "out of memory");
	for (size_t e = 0; e < m->nstats; e++)
		event_stat(m, e, &m->stats[e]);
	if ((m->kind == PX_MERGE_SAMPLING && merge_profiles(m)) || merge_regions(m))
		return px_fail(ENOMEM, "out of memory");
	return 0;
}

void px_merge_free(struct px_merge *m)
{
	for (size_t p = 0; p < m->nprofiles; p++) {
		for (size_t f = 0; f < m->profiles[p].nfuncs; f++)
			free(m->profiles[p].funcs[f].per_rank);
		free(m->profiles[p].funcs);
		free(m->profiles[p].rank_samples);
	}
	free(m->profiles);
	free(m->stats);
	free(m->regions);
	for (size_t i = 0; i < m->nin; i++)
		px_merge_input_free(&m->in[i]);
	free(m->in);
	memset(m, 0, sizeof(*m));
}
