/* pfmon-report's output: the merged events and profiles in text, CSV and
 * JSON, on the primitives of emit.h. */
#include "merge.h"

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

static void text_stats(FILE *f, const struct px_merge *m)
{
	const char *what = m->kind == PX_MERGE_SAMPLING ? "samples of" : "event";

	fprintf(f, "%-28s %16s %14s %6s %16s %14s %6s %9s\n", what, "sum", "min", "rank",
		"mean", "max", "rank", "max/mean");
	for (size_t e = 0; e < m->nstats; e++) {
		const struct px_merge_stat *st = &m->stats[e];

		if (!st->n) {
			fprintf(f, "%-28s <not counted in any rank>\n", st->name);
			continue;
		}
		fprintf(f, "%-28s %16.0f %14.0f %6ld %16.2f %14.0f %6ld ", st->name, st->sum,
			st->min, st->min_rank, st->mean, st->max, st->max_rank);
		if (isnan(st->imbalance))
			fprintf(f, "%9s", "-");
		else
			fprintf(f, "%9.3f", st->imbalance);
		if (st->n < m->nin)
			fprintf(f, "  (counted in %zu of %zu ranks)", st->n, m->nin);
		fputc('\n', f);
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
	fprintf(f, "\n# profile of %s over %zu ranks: %" PRIu64 " samples\n", p->event, m->nin,
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

/* ---- CSV ---- */

static void print_csv(FILE *f, const struct px_merge *m, const char *sep, size_t top)
{
	fprintf(f, "ranks%s%zu%s%ld%s%zu%s", sep, m->nin, sep, m->size, sep, m->nhosts, sep);
	px_csv_field(f, m->job ? m->job : "", sep);
	fputc('\n', f);
	for (size_t i = 0; i < m->nin; i++) {
		fprintf(f, "input%s%ld%s", sep, m->in[i].rank, sep);
		px_csv_field(f, m->in[i].host, sep);
		fputs(sep, f);
		px_csv_field(f, m->in[i].path, sep);
		fputc('\n', f);
	}
	for (size_t e = 0; e < m->nstats; e++) {
		const struct px_merge_stat *st = &m->stats[e];

		fprintf(f, "event%s", sep);
		px_csv_field(f, st->name, sep);
		fprintf(f, "%s%zu", sep, st->n);
		px_csv_number(f, sep, "%.0f", st->n ? st->sum : NAN);
		px_csv_number(f, sep, "%.0f", st->min);
		px_csv_number(f, sep, "%.0f", st->n ? (double)st->min_rank : NAN);
		px_csv_number(f, sep, "%.2f", st->mean);
		px_csv_number(f, sep, "%.0f", st->max);
		px_csv_number(f, sep, "%.0f", st->n ? (double)st->max_rank : NAN);
		px_csv_number(f, sep, "%.4f", st->imbalance);
		fputc('\n', f);
	}
	for (size_t p = 0; p < m->nprofiles; p++) {
		const struct px_merge_profile *mp = &m->profiles[p];

		fprintf(f, "profile_size%s", sep);
		px_csv_field(f, mp->event, sep);
		fprintf(f, "%s%" PRIu64 "%s%zu%s%zu\n", sep, mp->samples, sep, mp->nfuncs, sep,
			mp->cut);
		for (size_t i = 0; i < shown(mp, top); i++) {
			const struct px_merge_func *fn = &mp->funcs[i];

			fprintf(f, "profile%s", sep);
			px_csv_field(f, mp->event, sep);
			fprintf(f, "%s%zu%s%" PRIu64 "%s%.2f%s", sep, i + 1, sep, fn->samples, sep,
				pct(fn->samples, mp->samples), sep);
			px_csv_field(f, fn->name, sep);
			fputs(sep, f);
			px_csv_field(f, fn->module, sep);
			fputc('\n', f);
			for (size_t r = 0; r < m->nin; r++) {
				fprintf(f, "share%s", sep);
				px_csv_field(f, mp->event, sep);
				fprintf(f, "%s%zu%s%ld%s%" PRIu64 "%s%.2f\n", sep, i + 1, sep,
					m->in[r].rank, sep, fn->per_rank[r], sep,
					pct(fn->per_rank[r], fn->samples));
			}
		}
	}
}

/* ---- JSON ---- */

static void json_stat(FILE *f, const struct px_merge_stat *st)
{
	fputs("{\"name\":", f);
	px_json_string(f, st->name);
	fprintf(f, ",\"ranks\":%zu", st->n);
	px_json_number(f, ",\"sum\":%.0f", st->n ? st->sum : NAN);
	px_json_number(f, ",\"min\":%.0f", st->min);
	px_json_number(f, ",\"min_rank\":%.0f", st->n ? (double)st->min_rank : NAN);
	px_json_number(f, ",\"mean\":%.2f", st->mean);
	px_json_number(f, ",\"max\":%.0f", st->max);
	px_json_number(f, ",\"max_rank\":%.0f", st->n ? (double)st->max_rank : NAN);
	px_json_number(f, ",\"imbalance\":%.4f}", st->imbalance);
}

static void json_profile(FILE *f, const struct px_merge *m, const struct px_merge_profile *p,
			 size_t top)
{
	fputs("{\"event\":", f);
	px_json_string(f, p->event);
	fprintf(f, ",\"samples\":%" PRIu64 ",\"functions_total\":%zu,\"cut_ranks\":%zu,\"functions\":[",
		p->samples, p->nfuncs, p->cut);
	for (size_t i = 0; i < shown(p, top); i++) {
		const struct px_merge_func *fn = &p->funcs[i];

		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		px_json_string(f, fn->name);
		fputs(",\"module\":", f);
		px_json_string(f, fn->module);
		fprintf(f, ",\"samples\":%" PRIu64 ",\"pct\":%.4f,\"per_rank\":[", fn->samples,
			pct(fn->samples, p->samples));
		for (size_t r = 0; r < m->nin; r++)
			fprintf(f, "%s{\"rank\":%ld,\"samples\":%" PRIu64 ",\"pct\":%.4f}",
				r ? "," : "", m->in[r].rank, fn->per_rank[r],
				pct(fn->per_rank[r], fn->samples));
		fputs("]}", f);
	}
	fputs("]}", f);
}

static void print_json(FILE *f, const struct px_merge *m, size_t top)
{
	fputs("{\"tool\":\"pfmon-report\",\"kind\":", f);
	px_json_string(f, px_merge_kind_name(m->kind));
	fprintf(f, ",\"ranks\":%zu,\"size\":%ld,\"hosts\":%zu,\"job\":", m->nin, m->size,
		m->nhosts);
	if (m->job)
		px_json_string(f, m->job);
	else
		fputs("null", f);
	fputs(",\"inputs\":[", f);
	for (size_t i = 0; i < m->nin; i++) {
		fprintf(f, "%s{\"rank\":%ld,\"host\":", i ? "," : "", m->in[i].rank);
		px_json_string(f, m->in[i].host);
		fputs(",\"file\":", f);
		px_json_string(f, m->in[i].path);
		fputc('}', f);
	}
	fputs("],\"events\":[", f);
	for (size_t e = 0; e < m->nstats; e++) {
		fputs(e ? "," : "", f);
		json_stat(f, &m->stats[e]);
	}
	fputs("],\"profile\":[", f);
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
		for (size_t p = 0; p < m->nprofiles; p++)
			text_profile(f, m, &m->profiles[p], top);
	}
}
