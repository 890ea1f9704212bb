/* pfmon-report's output: the merged events, regions and profiles in text,
 * CSV and JSON, on the primitives of emit.h. */
#include "merge.h"
#include "row.h"
#include "runctx.h"

#include <inttypes.h>
#include <math.h>

/* Past this many ranks, text shows a function's smallest and largest
 * share instead of every rank's. */
#define TEXT_SHARES_MAX 16

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static size_t shown(const struct px_merge_profile *p, size_t top)
{
	return top && top < p->nfuncs ? top : p->nfuncs;
}

/* ---- text ---- */

static void text_head(FILE *f, const struct px_merge *m)
{
	fprintf(f, "# pfmon-report: %s of %zu rank%s (the job has %ld) on %zu host%s",
		px_merge_kind_name(m->kind), m->nin, m->nin > 1 ? "s" : "", m->size,
		m->nhosts, m->nhosts > 1 ? "s" : "");
	if (m->job)
		fprintf(f, ", job %s", m->job);
	fputc('\n', f);
	if ((long)m->nin < m->size)
		fprintf(f, "# %ld rank%s of the job not in these files\n", m->size - (long)m->nin,
			m->size - (long)m->nin > 1 ? "s" : "");
}

/* The columns of the statistics over the ranks, after a row's label. */
static void text_spread_head(FILE *f)
{
	fprintf(f, "%16s %14s %6s %16s %14s %6s %9s\n", "sum", "min", "rank", "mean", "max",
		"rank", "max/mean");
}

static void text_spread(FILE *f, const struct px_merge *m, const struct px_merge_stat *st)
{
	if (!st->n) {
		fputs("<not counted in any rank>\n", f);
		return;
	}
	fprintf(f, "%16.0f %14.0f %6ld %16.2f %14.0f %6ld ", st->sum, st->min, st->min_rank,
		st->mean, st->max, st->max_rank);
	if (isnan(st->imbalance))
		fprintf(f, "%9s", "-");
	else
		fprintf(f, "%9.3f", st->imbalance);
	if (st->n < m->nin)
		fprintf(f, "  (counted in %zu of %zu ranks)", st->n, m->nin);
	fputc('\n', f);
}

static void text_stats(FILE *f, const struct px_merge *m)
{
	fprintf(f, "%-28s ", m->kind == PX_MERGE_SAMPLING ? "samples of" : "event");
	text_spread_head(f);
	for (size_t e = 0; e < m->nstats; e++) {
		char label[256];

		px_merge_label(m->stats[e].name, m->stats[e].set, label, sizeof(label));
		fprintf(f, "%-28s ", label);
		text_spread(f, m, &m->stats[e]);
	}
}

/* perfex --regions: per region and event, what a call counts over every
 * thread and rank, then how the ranks' sums spread as the counts do. */
static void text_regions(FILE *f, const struct px_merge *m)
{
	if (!m->nregions)
		return;
	fprintf(f, "\n# regions: calls over all threads and ranks, each event's sum and its min, mean and max per call\n"
		"%-24s %-28s %10s %16s %14s %16s %14s\n", "region", "event", "calls", "sum", "min",
		"mean", "max");
	for (size_t r = 0; r < m->nregions; r++) {
		const struct px_merge_region_stat *rs = &m->regions[r];

		fprintf(f, "%-24s %-28s %10" PRIu64 " %16.0f %14.0f %16.2f %14.0f%s\n", rs->symbol,
			rs->ranks.name, rs->calls, rs->ranks.sum, rs->min,
			rs->ranks.sum / (double)rs->calls, rs->max, rs->scaled ? "  (scaled)" : "");
	}
	fprintf(f, "\n# regions: each event's sum per rank, over the ranks\n%-24s %-28s ", "region",
		"event");
	text_spread_head(f);
	for (size_t r = 0; r < m->nregions; r++) {
		fprintf(f, "%-24s %-28s ", m->regions[r].symbol, m->regions[r].ranks.name);
		text_spread(f, m, &m->regions[r].ranks);
	}
}

static void text_shares(FILE *f, const struct px_merge *m, const struct px_merge_func *fn)
{
	size_t lo = 0, hi = 0;

	fputs("                    per rank:", f);
	if (m->nin <= TEXT_SHARES_MAX) {
		for (size_t i = 0; i < m->nin; i++)
			fprintf(f, " %ld %.1f%%", m->in[i].rank, pct(fn->per_rank[i], fn->samples));
		fputc('\n', f);
		return;
	}
	for (size_t i = 1; i < m->nin; i++) {
		lo = fn->per_rank[i] < fn->per_rank[lo] ? i : lo;
		hi = fn->per_rank[i] > fn->per_rank[hi] ? i : hi;
	}
	fprintf(f, " least %.1f%% (rank %ld), most %.1f%% (rank %ld), even share %.1f%%\n",
		pct(fn->per_rank[lo], fn->samples), m->in[lo].rank,
		pct(fn->per_rank[hi], fn->samples), m->in[hi].rank, 100.0 / (double)m->nin);
}

static void text_profile(FILE *f, const struct px_merge *m, const struct px_merge_profile *p,
			 size_t top)
{
	char label[256];

	px_merge_label(p->event, p->set, label, sizeof(label));
	fprintf(f, "\n# profile of %s over %zu ranks: %" PRIu64 " samples\n", label, m->nin,
		p->samples);
	if (p->cut)
		fprintf(f, "# %zu rank%s' profiles were cut at pfmon's --profile-top: below its cut a function counts 0 there (run pfmon with --profile-top=0 for exact shares)\n",
			p->cut, p->cut > 1 ? "s" : "");
	fprintf(f, "%10s %7s  %-40s %s\n", "samples", "%", "function", "module");
	for (size_t i = 0; i < shown(p, top); i++) {
		const struct px_merge_func *fn = &p->funcs[i];

		fprintf(f, "%10" PRIu64 " %6.2f%%  %-40s %s\n", fn->samples,
			pct(fn->samples, p->samples), fn->name, fn->module);
		text_shares(f, m, fn);
	}
}

/* ---- CSV and JSON: the rows of row.h ---- */

/* The job the rows are of: its size and id, no rank or host of its own;
 * with rank >= 0, one rank's (on host). */
static struct px_runctx job_run(const struct px_merge *m, long rank, const char *host)
{
	struct px_runctx c = { .rank = rank, .size = m->size };

	snprintf(c.host, sizeof(c.host), "%s", host ? host : "");
	snprintf(c.job, sizeof(c.job), "%s", m->job ? m->job : "");
	return c;
}

static struct px_row merged_row(const struct px_merge_stat *st, const struct px_runctx *run)
{
	struct px_row row = px_row_make("merged");

	row.name = st->name;
	row.set = st->set;
	row.ranks = (long)st->n;
	row.run = run;
	if (!st->n)
		return row;
	row.value = st->sum;
	row.min = st->min;
	row.min_rank = st->min_rank;
	row.mean = st->mean;
	row.max = st->max;
	row.max_rank = st->max_rank;
	row.imbalance = st->imbalance;
	return row;
}

/* A region's event over every thread and rank, in the fields of
 * perfex's region rows: runs the calls, value the sum, min, mean and max
 * per call. */
static struct px_row region_row(const struct px_merge_region_stat *rs,
				const struct px_runctx *run)
{
	struct px_row row = px_row_make("region");

	row.name = rs->ranks.name;
	row.symbol = rs->symbol;
	row.status = rs->scaled ? "scaled" : "counted";
	row.runs = (long)rs->calls;
	row.value = rs->ranks.sum;
	row.min = rs->min;
	row.max = rs->max;
	row.mean = rs->ranks.sum / (double)rs->calls;
	row.run = run;
	return row;
}

/* The ranks' sums of a region's event: a merged row, its symbol the
 * region. */
static struct px_row region_merged_row(const struct px_merge_region_stat *rs,
				       const struct px_runctx *run)
{
	struct px_row row = merged_row(&rs->ranks, run);

	row.symbol = rs->symbol;
	return row;
}

static struct px_row input_row(const struct px_merge_input *in, const struct px_runctx *run)
{
	struct px_row row = px_row_make("input");

	row.name = in->path;
	row.run = run;
	return row;
}

static struct px_row profile_size_row(const struct px_merge_profile *p, size_t top,
				      const struct px_runctx *run)
{
	struct px_row row = px_row_make("profile_size");

	row.name = p->event;
	row.set = p->set;
	row.value = (double)p->samples;
	row.rows = (long)p->nfuncs;
	row.position = (long)shown(p, top);
	row.cut_ranks = (long)p->cut;
	row.run = run;
	return row;
}

static struct px_row profile_row(const struct px_merge_profile *p, size_t i,
				 const struct px_runctx *run)
{
	struct px_row row = px_row_make("profile");
	const struct px_merge_func *fn = &p->funcs[i];

	row.name = p->event;
	row.set = p->set;
	row.position = (long)i + 1;
	row.value = (double)fn->samples;
	row.share_pct = pct(fn->samples, p->samples);
	row.symbol = fn->name;
	row.module = fn->module;
	row.run = run;
	return row;
}

/* Function i's samples in one rank (run: that rank's) and their share of
 * the function's samples. */
static struct px_row share_row(const struct px_merge_profile *p, size_t i, size_t r,
			       const struct px_runctx *run)
{
	struct px_row row = px_row_make("share");
	const struct px_merge_func *fn = &p->funcs[i];

	row.name = p->event;
	row.set = p->set;
	row.position = (long)i + 1;
	row.value = (double)fn->per_rank[r];
	row.share_pct = pct(fn->per_rank[r], fn->samples);
	row.symbol = fn->name;
	row.module = fn->module;
	row.run = run;
	return row;
}

static void print_csv(FILE *f, const struct px_merge *m, const char *sep, size_t top)
{
	struct px_runctx job = job_run(m, -1, NULL), one;
	struct px_row row;

	px_row_csv_header(f, sep);
	for (size_t i = 0; i < m->nin; i++) {
		one = job_run(m, m->in[i].rank, m->in[i].host);
		row = input_row(&m->in[i], &one);
		px_row_csv(f, sep, &row);
	}
	for (size_t e = 0; e < m->nstats; e++) {
		row = merged_row(&m->stats[e], &job);
		px_row_csv(f, sep, &row);
	}
	for (size_t r = 0; r < m->nregions; r++) {
		row = region_row(&m->regions[r], &job);
		px_row_csv(f, sep, &row);
		row = region_merged_row(&m->regions[r], &job);
		px_row_csv(f, sep, &row);
	}
	for (size_t p = 0; p < m->nprofiles; p++) {
		const struct px_merge_profile *mp = &m->profiles[p];

		row = profile_size_row(mp, top, &job);
		px_row_csv(f, sep, &row);
		for (size_t i = 0; i < shown(mp, top); i++) {
			row = profile_row(mp, i, &job);
			px_row_csv(f, sep, &row);
			for (size_t r = 0; r < m->nin; r++) {
				one = job_run(m, m->in[r].rank, m->in[r].host);
				row = share_row(mp, i, r, &one);
				px_row_csv(f, sep, &row);
			}
		}
	}
}

static void json_profile(FILE *f, const struct px_merge *m, const struct px_merge_profile *p,
			 size_t top)
{
	struct px_runctx one;
	struct px_row row;

	fputs("{\"event\":", f);
	px_json_string(f, p->event);
	if (p->set >= 0)
		fprintf(f, ",\"set\":%ld", p->set);
	fprintf(f, ",\"samples\":%" PRIu64 ",\"rows\":%zu,\"cut_ranks\":%zu,\"entries\":[",
		p->samples, p->nfuncs, p->cut);
	for (size_t i = 0; i < shown(p, top); i++) {
		row = profile_row(p, i, NULL);	/* the document's run */
		fputs(i ? "," : "", f);
		px_row_json(f, &row);
	}
	fputs("],\"shares\":[", f);
	for (size_t i = 0; i < shown(p, top); i++) {
		for (size_t r = 0; r < m->nin; r++) {
			one = job_run(m, m->in[r].rank, NULL);
			row = share_row(p, i, r, &one);
			fputs(i || r ? "," : "", f);
			px_row_json(f, &row);
		}
	}
	fputs("]}", f);
}

/* ,"regions":[region rows],"region_ranks":[their merged rows], in the
 * same order (the document's run). */
static void json_regions(FILE *f, const struct px_merge *m)
{
	struct px_row row;

	fputs(",\"regions\":[", f);
	for (size_t r = 0; r < m->nregions; r++) {
		row = region_row(&m->regions[r], NULL);
		fputs(r ? "," : "", f);
		px_row_json(f, &row);
	}
	fputs("],\"region_ranks\":[", f);
	for (size_t r = 0; r < m->nregions; r++) {
		row = region_merged_row(&m->regions[r], NULL);
		fputs(r ? "," : "", f);
		px_row_json(f, &row);
	}
	fputc(']', f);
}

static void print_json(FILE *f, const struct px_merge *m, size_t top)
{
	struct px_runctx one;

	fprintf(f, "{\"schema\":%d,\"tool\":\"pfmon-report\",\"kind\":", PX_SCHEMA);
	px_json_string(f, px_merge_kind_name(m->kind));
	fprintf(f, ",\"ranks\":%zu,\"size\":%ld,\"hosts\":%zu,\"job\":", m->nin, m->size,
		m->nhosts);
	if (m->job)
		px_json_string(f, m->job);
	else
		fputs("null", f);
	fputs(",\"inputs\":[", f);
	for (size_t i = 0; i < m->nin; i++) {
		struct px_row row;

		one = job_run(m, m->in[i].rank, m->in[i].host);
		row = input_row(&m->in[i], &one);
		fputs(i ? "," : "", f);
		px_row_json(f, &row);
	}
	fputs("],\"events\":[", f);
	for (size_t e = 0; e < m->nstats; e++) {
		struct px_row row = merged_row(&m->stats[e], NULL);

		fputs(e ? "," : "", f);
		px_row_json(f, &row);
	}
	fputc(']', f);
	json_regions(f, m);
	fputs(",\"profile\":[", f);
	for (size_t p = 0; p < m->nprofiles; p++) {
		fputs(p ? "," : "", f);
		json_profile(f, m, &m->profiles[p], top);
	}
	fputs("]}\n", f);
}

void px_merge_print(FILE *f, const struct px_merge *m, const struct px_out *o, size_t top)
{
	if (o->kind == PX_OUT_JSON) {
		print_json(f, m, top);
	} else if (o->kind == PX_OUT_CSV) {
		print_csv(f, m, o->sep, top);
	} else {
		text_head(f, m);
		text_stats(f, m);
		text_regions(f, m);
		for (size_t p = 0; p < m->nprofiles; p++)
			text_profile(f, m, &m->profiles[p], top);
	}
}
