/* pfmon's sampling summary and profiles, in text, CSV and JSON on the
 * primitives of emit.h. */
#include "smpl_report.h"
#include "interval.h"
#include "profile.h"
#include "callgraph.h"
#include "row.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The samples of set `set`'s sampling event i: raw, and scaled as its
 * count was (the set's share of the time; NAN when the set never ran). */
struct smpl_count {
	const char *name;
	char label[PX_EVENT_NAME_MAX + 16];
	size_t set;
	uint64_t raw;
	double scaled;
	const struct px_value *v;	/* the event's count */
};

/* Call fn for every sampling event, set by set. */
static void each_sampling_event(const struct px_smpl_result *r,
				void (*fn)(FILE *, const struct smpl_count *, const void *),
				FILE *f, const void *arg)
{
	const struct px_smpl_session_opts *o = &r->session->o;

	for (size_t set = 0; set < o->mon.nsets; set++) {
		for (size_t i = 0; i < o->mon.sets[set].n; i++) {
			size_t k = px_smpl_event_index(o, set, i);
			struct smpl_count c = { .name = o->mon.sets[set].events[i].name,
						.set = set, .raw = r->session->per_event[k],
						.v = &r->session->event_values[k] };

			if (!o->pmds[set][i].long_period)
				continue;
			px_smpl_event_label(o, set, i, c.label, sizeof(c.label));
			c.scaled = (double)c.raw;
			if (c.v->state == PX_NOT_COUNTED)
				c.scaled = NAN;
			else if (c.v->state == PX_SCALED && c.v->raw)
				c.scaled = (double)c.raw * c.v->value / (double)c.v->raw;
			fn(f, &c, arg);
		}
	}
}

static void text_count(FILE *f, const struct smpl_count *c, const void *arg)
{
	(void)arg;
	fprintf(f, "samples of %s: %" PRIu64, c->label, c->raw);
	if (c->v->state == PX_NOT_COUNTED) {
		fputs(" (its set never ran)", f);
	} else if (c->v->state == PX_SCALED) {
		fprintf(f, ", scaled %.0f (set active %.2f%%, +- ", c->scaled, c->v->active_pct);
		if (isnan(c->v->ci95_pct))
			fputs("?)", f);
		else
			fprintf(f, "%.2f%%)", c->v->ci95_pct);
	}
	fputc('\n', f);
}

/* The samples of a sampling event (value: scaled as its count, raw: as
 * taken), and its count while its set was active. */
static struct px_row samples_row(const struct smpl_count *c)
{
	struct px_row row = px_row_make("samples");

	row.set = (long)c->set;
	row.name = c->name;
	row.value = c->scaled;
	row.raw = (double)c->raw;
	row.active_pct = c->v->active_pct;
	row.status = px_state_name(c->v->state);
	if (c->v->state >= PX_SCALED)
		row.ci95_pct = c->v->ci95_pct;
	return row;
}

/* What the event counted over the run (its set's turns). */
static struct px_row count_row(const struct smpl_count *c)
{
	struct px_row row = px_row_count(c->name, (long)c->set, c->v);

	row.unit = "all";
	return row;
}

static void csv_count(FILE *f, const struct smpl_count *c, const void *arg)
{
	const char *sep = arg;
	struct px_row row = samples_row(c);

	px_row_csv(f, sep, &row);
	row = count_row(c);
	px_row_csv(f, sep, &row);
}

/* JSON: the samples rows, or with counts the count rows */
struct json_counts {
	bool first, counts;
};

static void json_count(FILE *f, const struct smpl_count *c, const void *arg)
{
	struct json_counts *j = (struct json_counts *)arg;
	struct px_row row = j->counts ? count_row(c) : samples_row(c);

	fputs(j->first ? "" : ",", f);
	j->first = false;
	px_row_json(f, &row);
}

static const char *format_name(enum px_smpl_format f)
{
	return f == PX_SMPL_DOUBLE_BUFFER ? "double-buffer" :
	       f == PX_SMPL_CALLCHAIN ? "callchain" : "default";
}

/* A module in text: its file name, which keeps the table within a
 * terminal's width (CSV and JSON, and text with -v, give the full path). */
static const char *text_module(const struct px_out *o, const char *path)
{
	const char *slash = path && !o->full_paths ? strrchr(path, '/') : NULL;

	return slash && slash[1] ? slash + 1 : path;
}

/* One text profile row (and its heading with v NULL). */
static void print_text_row(FILE *f, const struct px_smpl_result *r, const struct px_out *o,
			   const struct px_profile_entry *v)
{
	enum px_profile_by by = r->o.by;

	if (!px_profile_by_place(by)) {
		if (v)
			fprintf(f, "%10" PRIu64 " %6.2f%%  %s\n", v->count, v->pct, v->name);
		else
			fprintf(f, "%10s %7s  %s\n", "samples", "%",
				by == PX_PROFILE_CPU ? "cpu" :
				by == PX_PROFILE_PID ? "pid:process" : "process");
		return;
	}
	if (px_smpl_per_process(&r->session->o, &r->o)) {
		if (v)
			fprintf(f, "%10" PRIu64 " %6.2f%%  %-16s", v->count, v->pct, v->process);
		else
			fprintf(f, "%10s %7s  %-16s", "samples", "%", "process");
	} else {
		if (v)
			fprintf(f, "%10" PRIu64 " %6.2f%%  ", v->count, v->pct);
		else
			fprintf(f, "%10s %7s  ", "samples", "%");
	}
	if (v)
		fprintf(f, "%-40s %s\n", v->name, text_module(o, v->module));
	else
		fprintf(f, "%-40s %s\n", by == PX_PROFILE_LINES ? "line" : "function", "module");
}


/* ---- call graphs ---- */

/* The functions whose callers and callees --profile-callers shows: the
 * first of the event's functions by self samples. */
#define CALLER_TREES 5

static int self_cmp(const void *a, const void *b)
{
	const struct px_cg_func *x = a, *y = b;

	return x->self != y->self ? (x->self < y->self ? 1 : -1) :
	       (x->frame > y->frame) - (x->frame < y->frame);
}

/* How each part of the call-graph report is printed. */
struct cg_printer {
	/* the heading of event ev's call graph, then each function */
	void (*head)(FILE *f, const struct px_smpl_result *r, size_t ev, bool first);
	void (*func)(FILE *f, const struct px_smpl_result *r, size_t ev, size_t rank,
		     const struct px_cg_func *fn, const struct px_out *o);
	/* a tree of one function (dir), its nodes, and its end */
	void (*tree)(FILE *f, const struct px_smpl_result *r, size_t ev,
		     enum px_cg_direction dir, const struct px_cg_node *v, size_t n,
		     bool first, const struct px_out *o);
	void (*end)(FILE *f);
};

static void cg_print_event(FILE *f, const struct px_smpl_result *r, size_t ev,
			   const struct px_out *o, const struct cg_printer *pr, bool first)
{
	struct px_cg_func *v = NULL;
	size_t n = 0, shown = 0;

	if (px_cg_functions(r->cg, ev, &v, &n))
		return;
	pr->head(f, r, ev, first);
	for (size_t i = 0; i < n && (!o->top || i < o->top); i++)
		pr->func(f, r, ev, i + 1, &v[i], o);
	qsort(v, n, sizeof(*v), self_cmp);
	for (size_t i = 0; o->callers && i < n && shown < CALLER_TREES && v[i].self; i++) {
		for (int d = 0; d < 2; d++) {
			struct px_cg_node *t = NULL;
			size_t nt = 0;

			if (px_cg_tree(r->cg, ev, v[i].frame, d ? PX_CG_CALLEES : PX_CG_CALLERS,
				       &t, &nt))
				continue;
			pr->tree(f, r, ev, d ? PX_CG_CALLEES : PX_CG_CALLERS, t, nt,
				 !shown && !d, o);
			free(t);
		}
		shown++;
	}
	if (pr->end)
		pr->end(f);
	free(v);
}

static void cg_print(FILE *f, const struct px_smpl_result *r, const struct px_out *o,
		     const struct cg_printer *pr)
{
	size_t nev = r->profile ? px_profile_events(r->profile) : 0;

	for (size_t e = 0; r->cg && e < nev; e++)
		cg_print_event(f, r, e, o, pr, !e);
}

static void text_cg_head(FILE *f, const struct px_smpl_result *r, size_t ev, bool first)
{
	(void)first;
	fprintf(f, "\n# call graph of %s: %" PRIu64 " samples, by functions with their callees (children)\n",
		px_profile_event(r->profile, ev), px_cg_total(r->cg, ev));
	fprintf(f, "%9s %8s %10s %10s  %-40s %s\n", "children", "self", "samples", "self",
		"function", "module");
}

static void text_cg_func(FILE *f, const struct px_smpl_result *r, size_t ev, size_t rank,
			 const struct px_cg_func *fn, const struct px_out *o)
{
	(void)ev, (void)rank;
	fprintf(f, "%8.2f%% %7.2f%% %10" PRIu64 " %10" PRIu64 "  %-40s %s\n", fn->total_pct,
		fn->self_pct, fn->total, fn->self, px_cg_frame_name(r->cg, fn->frame),
		text_module(o, px_cg_frame_module(r->cg, fn->frame)));
}

static void text_cg_tree(FILE *f, const struct px_smpl_result *r, size_t ev,
			 enum px_cg_direction dir, const struct px_cg_node *v, size_t n,
			 bool first, const struct px_out *o)
{
	(void)first, (void)o;
	fprintf(f, "\n# %s of %s (%s): %% of its %" PRIu64 " samples\n",
		dir == PX_CG_CALLERS ? "callers" : "callees",
		px_cg_frame_name(r->cg, v[0].frame), px_profile_event(r->profile, ev),
		v[0].count);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%8.2f%% %10" PRIu64 "  %*s%s\n",
			v[0].count ? 100.0 * (double)v[i].count / (double)v[0].count : 0.0,
			v[i].count, 2 * (int)v[i].depth, "", px_cg_frame_name(r->cg, v[i].frame));
}

static const struct cg_printer text_cg = { text_cg_head, text_cg_func, text_cg_tree, NULL };

/* Rows of profile event ev name its event and set, as the counts do. */
static struct px_row event_row(const struct px_smpl_result *r, const char *record, size_t ev)
{
	struct px_row row = px_row_make(record);

	px_smpl_result_event(r, ev, &row.name, &row.set);
	return row;
}

/* JSON: the head of profile event ev's object, {"event":NAME,"set":S, */
static void json_event_head(FILE *f, const struct px_smpl_result *r, size_t ev, bool first)
{
	const char *name;
	long set;

	px_smpl_result_event(r, ev, &name, &set);
	fputs(first ? "{\"event\":" : ",{\"event\":", f);
	px_json_string(f, name);
	if (set >= 0)
		fprintf(f, ",\"set\":%ld", set);
}

/* A function of event ev's call graph: its children and self samples. */
static struct px_row cg_func_row(const struct px_smpl_result *r, size_t ev, size_t rank,
				 const struct px_cg_func *fn)
{
	struct px_row row = event_row(r, "callgraph", ev);

	row.position = (long)rank;
	row.value = (double)fn->total;
	row.share_pct = fn->total_pct;
	row.self = (double)fn->self;
	row.self_pct = fn->self_pct;
	row.symbol = px_cg_frame_name(r->cg, fn->frame);
	row.module = px_cg_frame_module(r->cg, fn->frame);
	return row;
}

/* Node i of a callers or callees tree: share_pct of the root's samples. */
static struct px_row cg_node_row(const struct px_smpl_result *r, size_t ev,
				 enum px_cg_direction dir, const struct px_cg_node *v, size_t i)
{
	struct px_row row = event_row(r, dir == PX_CG_CALLERS ? "callers" : "callees", ev);

	row.root = px_cg_frame_name(r->cg, v[0].frame);
	row.depth = (long)v[i].depth;
	row.value = (double)v[i].count;
	row.share_pct = v[0].count ? 100.0 * (double)v[i].count / (double)v[0].count : 0.0;
	row.symbol = px_cg_frame_name(r->cg, v[i].frame);
	return row;
}

static void csv_cg_head(FILE *f, const struct px_smpl_result *r, size_t ev, bool first)
{
	(void)f, (void)r, (void)ev, (void)first;
}

static void csv_cg_func(FILE *f, const struct px_smpl_result *r, size_t ev, size_t rank,
			const struct px_cg_func *fn, const struct px_out *o)
{
	struct px_row row = cg_func_row(r, ev, rank, fn);

	px_row_csv(f, o->sep, &row);
}

static void csv_cg_tree(FILE *f, const struct px_smpl_result *r, size_t ev,
			enum px_cg_direction dir, const struct px_cg_node *v, size_t n,
			bool first, const struct px_out *o)
{
	(void)first;
	for (size_t i = 0; i < n; i++) {
		struct px_row row = cg_node_row(r, ev, dir, v, i);

		px_row_csv(f, o->sep, &row);
	}
}

static const struct cg_printer csv_cg = { csv_cg_head, csv_cg_func, csv_cg_tree, NULL };

static void json_cg_head(FILE *f, const struct px_smpl_result *r, size_t ev, bool first)
{
	json_event_head(f, r, ev, first);
	fprintf(f, ",\"samples\":%" PRIu64 ",\"functions\":[", px_cg_total(r->cg, ev));
}

static void json_cg_func(FILE *f, const struct px_smpl_result *r, size_t ev, size_t rank,
			 const struct px_cg_func *fn, const struct px_out *o)
{
	struct px_row row = cg_func_row(r, ev, rank, fn);

	(void)o;
	fputs(rank > 1 ? "," : "", f);
	px_row_json(f, &row);
}

static void json_cg_tree(FILE *f, const struct px_smpl_result *r, size_t ev,
			 enum px_cg_direction dir, const struct px_cg_node *v, size_t n,
			 bool first, const struct px_out *o)
{
	(void)o;
	fputs(first ? "],\"trees\":[" : ",", f);
	fprintf(f, "{\"kind\":\"%s\",\"function\":",
		dir == PX_CG_CALLERS ? "callers" : "callees");
	px_json_string(f, px_cg_frame_name(r->cg, v[0].frame));
	fputs(",\"nodes\":[", f);
	for (size_t i = 0; i < n; i++) {
		struct px_row row = cg_node_row(r, ev, dir, v, i);

		fputs(i ? "," : "", f);
		px_row_json(f, &row);
	}
	fputs("]}", f);
}

static void json_cg_end(FILE *f)
{
	fputs("]}", f);
}

static const struct cg_printer json_cg = { json_cg_head, json_cg_func, json_cg_tree,
					   json_cg_end };

/* The chains' quality: frames, unknown ones, chains cut short. */
static void text_chain_summary(FILE *f, const struct px_smpl_result *r)
{
	if (!r->cg)
		return;
	fprintf(f, "%-20s %" PRIu64 " frames, %" PRIu64 " unknown (\?\?), %" PRIu64
		" chains cut short ([truncated])\n", "call chains", r->frames,
		r->unknown_frames, r->cut_chains);
}

static void print_text(FILE *f, const struct px_smpl_result *r, const struct px_out *o)
{
	size_t top = o->top;
	const struct px_smpl_stats *st = &r->session->st;
	size_t nev = r->profile ? px_profile_events(r->profile) : 0;

	px_run_text(f);
	fprintf(f, "# sampling summary (%s format)\n",
		format_name(r->session->o.smpl.format));
	fprintf(f, "%-20s %" PRIu64 "\n", "overflows", st->overflows);
	fprintf(f, "%-20s %" PRIu64 "\n", "samples recorded", st->samples);
	fprintf(f, "%-20s %" PRIu64 " (ring buffer %" PRIu64 ", masked or saturated %" PRIu64
		", overwritten %" PRIu64 ", late interrupts %" PRIu64 ")\n", "samples lost",
		px_smpl_lost_total(st), st->lost, st->dropped, st->overwritten, st->late);
	if (st->late)
		fprintf(f, "%-20s %" PRIu64 " periods ended with no interrupt in time: the PMU interrupted only after more periods had passed, so they have no sample (qemu's emulated event counters interrupt at the next timer tick; a stalled virtual CPU does too)\n",
			"late interrupts", st->late);
	fprintf(f, "%-20s %" PRIu64 "\n", "buffer-full events", st->buffer_full);
	fprintf(f, "%-20s %" PRIu64 "\n", "notifications", st->notifications);
	fprintf(f, "%-20s %" PRIu64 "\n", "restarts", st->restarts);
	if (st->throttled)
		fprintf(f, "%-20s %" PRIu64 " times: the kernel dropped the overflows meanwhile uncounted (raise kernel.perf_event_max_sample_rate or the periods)\n",
			"throttled", st->throttled);
	if (st->side_lost)
		fprintf(f, "%-20s %" PRIu64 " (some samples may not resolve)\n",
			"mapping records lost", st->side_lost);
	if (r->session->o.mon.nsets > 1) {
		fprintf(f, "%-20s", "set activations");
		for (size_t k = 0; k < r->session->o.mon.nsets; k++)
			fprintf(f, " %" PRIu64, r->session->set_runs[k]);
		fputc('\n', f);
	}
	text_chain_summary(f, r);
	each_sampling_event(r, text_count, f, NULL);
	for (size_t e = 0; e < nev; e++) {
		struct px_profile_entry *v = NULL;
		size_t n = 0;

		if (px_profile_rank(r->profile, e, &v, &n))
			continue;
		fprintf(f, "\n# profile of %s: %" PRIu64 " samples, by %s\n",
			px_profile_event(r->profile, e), px_profile_total(r->profile, e),
			px_profile_by_name(r->o.by));
		print_text_row(f, r, o, NULL);
		for (size_t i = 0, shown = 0; i < n && (!top || shown < top); i++) {
			if (!v[i].count)
				continue;
			print_text_row(f, r, o, &v[i]);
			shown++;
		}
		free(v);
	}
	cg_print(f, r, o, &text_cg);
}

/* A profile's rows with samples (the ranked array keeps empty ones). */
static size_t nonzero_rows(const struct px_profile_entry *v, size_t n)
{
	size_t rows = 0;

	for (size_t i = 0; i < n; i++)
		rows += v[i].count != 0;
	return rows;
}

/* The summary's figures, by the names of CSV and JSON. */
struct summary_figure {
	const char *name;
	uint64_t value;
};

/* The figures of every report; the last CHAIN_FIGURES only with call
 * graphs. */
#define SUMMARY_FIGURES 15
#define CHAIN_FIGURES 3

static size_t summary_figures(const struct px_smpl_result *r, struct summary_figure *out)
{
	const struct px_smpl_stats *st = &r->session->st;
	struct summary_figure all[] = {
		{ "samples", st->samples }, { "lost", px_smpl_lost_total(st) },
		{ "lost_ring", st->lost }, { "lost_saturated", st->dropped },
		{ "overwritten", st->overwritten }, { "lost_late", st->late },
		{ "buffer_full", st->buffer_full },
		{ "notifications", st->notifications }, { "restarts", st->restarts },
		{ "overflows", st->overflows }, { "throttled", st->throttled },
		{ "mapping_records_lost", st->side_lost },
		{ "chain_frames", r->frames }, { "unknown_frames", r->unknown_frames },
		{ "cut_chains", r->cut_chains },
	};
	size_t n = SUMMARY_FIGURES - (r->cg ? 0 : CHAIN_FIGURES);

	_Static_assert(sizeof(all) / sizeof(all[0]) == SUMMARY_FIGURES,
		       "SUMMARY_FIGURES counts the figures");

	memcpy(out, all, n * sizeof(*out));
	return n;
}

/* A profile's entry i: its samples, share and place. */
static struct px_row profile_row(const struct px_smpl_result *r, size_t e,
				 const struct px_profile_entry *v, long position)
{
	struct px_row row = event_row(r, "profile", e);

	row.value = (double)v->count;
	row.share_pct = v->pct;
	row.position = position;
	row.symbol = v->name;
	row.module = v->module;
	row.process = v->process && *v->process ? v->process : NULL; /* per process */
	return row;
}

static void print_csv(FILE *f, const struct px_smpl_result *r, struct px_out *o)
{
	size_t top = o->top;
	const char *sep = o->sep;
	struct summary_figure fig[SUMMARY_FIGURES];
	size_t nfig = summary_figures(r, fig);
	size_t nev = r->profile ? px_profile_events(r->profile) : 0;
	struct px_row row;

	px_out_csv_header(f, o);
	for (size_t i = 0; i < nfig; i++) {
		row = px_row_make("summary");
		row.name = fig[i].name;
		row.value = (double)fig[i].value;
		px_row_csv(f, sep, &row);
	}
	for (size_t k = 0; k < r->session->o.mon.nsets; k++) {
		row = px_row_make("summary");
		row.set = (long)k;
		row.name = "set_runs";
		row.value = (double)r->session->set_runs[k];
		px_row_csv(f, sep, &row);
	}
	each_sampling_event(r, csv_count, f, sep);
	for (size_t e = 0; e < nev; e++) {
		struct px_profile_entry *v = NULL;
		size_t n = 0, rows;
		long shown;

		if (px_profile_rank(r->profile, e, &v, &n))
			continue;
		/* the whole profile's rows and samples, and the position of
		 * the last row listed, so that a reader (pfmon-report) tells
		 * a profile cut at the top from a whole one, and a truncated
		 * file from both */
		rows = nonzero_rows(v, n);
		shown = (long)(top && top < rows ? top : rows);
		row = event_row(r, "profile_size", e);
		row.value = (double)px_profile_total(r->profile, e);
		row.rows = (long)rows;
		row.position = shown;
		px_row_csv(f, sep, &row);
		for (size_t i = 0, rank = 0; i < n && rank < (size_t)shown; i++) {
			if (!v[i].count)
				continue;
			row = profile_row(r, e, &v[i], (long)++rank);
			px_row_csv(f, sep, &row);
		}
		free(v);
	}
	cg_print(f, r, o, &csv_cg);
	row = px_row_elapsed(r->session->run.elapsed_ns / 1e9);
	px_row_csv(f, sep, &row);
}

static void print_json(FILE *f, const struct px_smpl_result *r, const struct px_out *o)
{
	size_t top = o->top;
	struct summary_figure fig[SUMMARY_FIGURES];
	size_t nfig = summary_figures(r, fig);
	size_t nev = r->profile ? px_profile_events(r->profile) : 0;
	struct json_counts jc = { .first = true };

	fprintf(f, "{\"schema\":%d,\"tool\":\"pfmon\",", PX_SCHEMA);
	px_run_json(f);
	fprintf(f, ",\"summary\":{\"format\":\"%s\",\"exit_code\":%d",
		format_name(r->session->o.smpl.format), r->session->run.exit_code);
	for (size_t i = 0; i < nfig; i++)
		fprintf(f, ",\"%s\":%" PRIu64, fig[i].name, fig[i].value);
	fputs("},\"set_runs\":[", f);
	for (size_t k = 0; k < r->session->o.mon.nsets; k++)
		fprintf(f, "%s%" PRIu64, k ? "," : "", r->session->set_runs[k]);
	fputs("],\"events\":[", f);
	each_sampling_event(r, json_count, f, &jc);
	fputs("],\"counts\":[", f);
	jc = (struct json_counts){ .first = true, .counts = true };
	each_sampling_event(r, json_count, f, &jc);
	fputs("],\"profile\":[", f);
	for (size_t e = 0; e < nev; e++) {
		struct px_profile_entry *v = NULL;
		size_t n = 0;

		if (px_profile_rank(r->profile, e, &v, &n))
			continue;
		json_event_head(f, r, e, !e);
		fprintf(f, ",\"samples\":%" PRIu64 ",\"by\":\"%s\",\"rows\":%zu,\"entries\":[",
			px_profile_total(r->profile, e), px_profile_by_name(r->o.by), nonzero_rows(v, n));
		for (size_t i = 0, shown = 0; i < n && (!top || shown < top); i++) {
			struct px_row row;

			if (!v[i].count)
				continue;
			row = profile_row(r, e, &v[i], (long)shown + 1);
			fputs(shown++ ? "," : "", f);
			px_row_json(f, &row);
		}
		fputs("]}", f);
		free(v);
	}
	fputs("]", f);
	if (r->cg) {
		fputs(",\"callgraph\":[", f);
		cg_print(f, r, o, &json_cg);
		fputc(']', f);
	}
	fputs("}\n", f);
}

void px_smpl_report_print(FILE *f, const struct px_smpl_result *r,
			  struct px_out *o)
{
	if (o->kind == PX_OUT_JSON)
		print_json(f, r, o);
	else if (o->kind == PX_OUT_CSV)
		print_csv(f, r, o);
	else
		print_text(f, r, o);
}

void px_smpl_interval_print(const struct px_monitor *m, void *arg)
{
	struct px_smpl_interval *iv = arg;
	double t = m->elapsed_ns / 1e9;
	struct px_smpl_stats st;
	struct { const char *name; uint64_t value, *prev; } rows[2];

	px_smpl_totals(m, &st);
	rows[0] = (typeof(rows[0])){ "samples", st.samples, &iv->samples };
	rows[1] = (typeof(rows[1])){ "lost", px_smpl_lost_total(&st), &iv->lost };
	for (size_t i = 0; i < 2; i++) {
		uint64_t delta = rows[i].value - *rows[i].prev;

		*rows[i].prev = rows[i].value;
		px_interval_row(iv->f, iv->out, t, -1, rows[i].name, false, (double)delta);
	}
	fflush(iv->f);
}
