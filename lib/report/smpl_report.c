/* pfmon's sampling summary and profiles, in text, CSV and JSON on the
 * primitives of emit.h. */
#include "smpl_report.h"
#include "interval.h"
#include "profile.h"
#include "callgraph.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

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
static void each_sampling_event(const struct px_smpl_session *s,
				void (*fn)(FILE *, const struct smpl_count *, const void *),
				FILE *f, const void *arg)
{
	const struct px_smpl_session_opts *o = &s->o;

	for (size_t set = 0; set < o->mon.nsets; set++) {
		for (size_t i = 0; i < o->mon.sets[set].n; i++) {
			size_t k = px_smpl_event_index(o, set, i);
			struct smpl_count c = { .name = o->mon.sets[set].events[i].name,
						.set = set, .raw = s->per_event[k],
						.v = &s->event_values[k] };

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

/* samples,EVENT,SET,RAW,SCALED,ACTIVE_PCT,CI95_PCT,COUNT (unknown: empty);
 * COUNT: what the event counted while its set was active */
static void csv_count(FILE *f, const struct smpl_count *c, const void *arg)
{
	const char *sep = arg;

	fputs("samples", f);
	fputs(sep, f);
	px_csv_field(f, c->name, sep);
	fprintf(f, "%s%zu%s%" PRIu64 "%s", sep, c->set, sep, c->raw, sep);
	if (isfinite(c->scaled))
		fprintf(f, "%.0f", c->scaled);
	fprintf(f, "%s%.2f%s", sep, c->v->active_pct, sep);
	if (c->v->state == PX_COUNTED)
		fputs("0.00", f);
	else if (c->v->state == PX_SCALED && isfinite(c->v->ci95_pct))
		fprintf(f, "%.2f", c->v->ci95_pct);
	fprintf(f, "%s%" PRIu64 "\n", sep, c->v->raw);
}

static void json_count(FILE *f, const struct smpl_count *c, const void *arg)
{
	bool *first = (bool *)arg;

	fputs(*first ? "{\"event\":" : ",{\"event\":", f);
	*first = false;
	px_json_string(f, c->name);
	fprintf(f, ",\"set\":%zu,\"samples\":%" PRIu64 ",\"count\":%" PRIu64,
		c->set, c->raw, c->v->raw);
	px_json_number(f, ",\"scaled\":%.0f", c->scaled);
	fprintf(f, ",\"active_pct\":%.2f,\"status\":\"%s\"", c->v->active_pct,
		px_state_name(c->v->state));
	px_json_number(f, ",\"ci95_pct\":%.2f",
		       c->v->state >= PX_SCALED ? c->v->ci95_pct : NAN);
	fputc('}', f);
}

static const char *format_name(enum px_smpl_format f)
{
	return f == PX_SMPL_DOUBLE_BUFFER ? "double-buffer" :
	       f == PX_SMPL_CALLCHAIN ? "callchain" : "default";
}

/* One text profile row (and its heading with v NULL). */
static void print_text_row(FILE *f, const struct px_smpl_session *s,
			   const struct px_profile_entry *v)
{
	enum px_profile_by by = s->o.by;

	if (!px_profile_by_place(by)) {
		if (v)
			fprintf(f, "%10" PRIu64 " %6.2f%%  %s\n", v->count, v->pct, v->name);
		else
			fprintf(f, "%10s %7s  %s\n", "samples", "%",
				by == PX_PROFILE_CPU ? "cpu" :
				by == PX_PROFILE_PID ? "pid:process" : "process");
		return;
	}
	if (px_smpl_session_per_process(&s->o)) {
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
		fprintf(f, "%-40s %s\n", v->name, v->module);
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
	void (*head)(FILE *f, const struct px_smpl_session *s, size_t ev, bool first);
	void (*func)(FILE *f, const struct px_smpl_session *s, size_t ev, size_t rank,
		     const struct px_cg_func *fn, const char *sep);
	/* a tree of one function (dir), its nodes, and its end */
	void (*tree)(FILE *f, const struct px_smpl_session *s, size_t ev,
		     enum px_cg_direction dir, const struct px_cg_node *v, size_t n,
		     bool first, const char *sep);
	void (*end)(FILE *f);
};

static void cg_print_event(FILE *f, const struct px_smpl_session *s, size_t ev,
			   size_t top, const struct cg_printer *pr, bool first, const char *sep)
{
	struct px_cg_func *v = NULL;
	size_t n = 0, shown = 0;

	if (px_cg_functions(s->cg, ev, &v, &n))
		return;
	pr->head(f, s, ev, first);
	for (size_t i = 0; i < n && (!top || i < top); i++)
		pr->func(f, s, ev, i + 1, &v[i], sep);
	qsort(v, n, sizeof(*v), self_cmp);
	for (size_t i = 0; s->o.callers && i < n && shown < CALLER_TREES && v[i].self; i++) {
		for (int d = 0; d < 2; d++) {
			struct px_cg_node *t = NULL;
			size_t nt = 0;

			if (px_cg_tree(s->cg, ev, v[i].frame, d ? PX_CG_CALLEES : PX_CG_CALLERS,
				       &t, &nt))
				continue;
			pr->tree(f, s, ev, d ? PX_CG_CALLEES : PX_CG_CALLERS, t, nt,
				 !shown && !d, sep);
			free(t);
		}
		shown++;
	}
	if (pr->end)
		pr->end(f);
	free(v);
}

static void cg_print(FILE *f, const struct px_smpl_session *s, size_t top,
		     const struct cg_printer *pr, const char *sep)
{
	size_t nev = s->profile ? px_profile_events(s->profile) : 0;

	for (size_t e = 0; s->cg && e < nev; e++)
		cg_print_event(f, s, e, top, pr, !e, sep);
}

static void text_cg_head(FILE *f, const struct px_smpl_session *s, size_t ev, bool first)
{
	(void)first;
	fprintf(f, "\n# call graph of %s: %" PRIu64 " samples, by functions with their callees (children)\n",
		px_profile_event(s->profile, ev), px_cg_total(s->cg, ev));
	fprintf(f, "%9s %8s %10s %10s  %-40s %s\n", "children", "self", "samples", "self",
		"function", "module");
}

static void text_cg_func(FILE *f, const struct px_smpl_session *s, size_t ev, size_t rank,
			 const struct px_cg_func *fn, const char *sep)
{
	(void)ev, (void)rank, (void)sep;
	fprintf(f, "%8.2f%% %7.2f%% %10" PRIu64 " %10" PRIu64 "  %-40s %s\n", fn->total_pct,
		fn->self_pct, fn->total, fn->self, px_cg_frame_name(s->cg, fn->frame),
		px_cg_frame_module(s->cg, fn->frame));
}

static void text_cg_tree(FILE *f, const struct px_smpl_session *s, size_t ev,
			 enum px_cg_direction dir, const struct px_cg_node *v, size_t n,
			 bool first, const char *sep)
{
	(void)first, (void)sep;
	fprintf(f, "\n# %s of %s (%s): %% of its %" PRIu64 " samples\n",
		dir == PX_CG_CALLERS ? "callers" : "callees",
		px_cg_frame_name(s->cg, v[0].frame), px_profile_event(s->profile, ev),
		v[0].count);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%8.2f%% %10" PRIu64 "  %*s%s\n",
			v[0].count ? 100.0 * (double)v[i].count / (double)v[0].count : 0.0,
			v[i].count, 2 * (int)v[i].depth, "", px_cg_frame_name(s->cg, v[i].frame));
}

static const struct cg_printer text_cg = { text_cg_head, text_cg_func, text_cg_tree, NULL };

/* callgraph,EVENT,RANK,CHILDREN,CHILDREN_PCT,SELF,SELF_PCT,FUNCTION,MODULE */
static void csv_cg_head(FILE *f, const struct px_smpl_session *s, size_t ev, bool first)
{
	(void)f, (void)s, (void)ev, (void)first;
}

static void csv_cg_func(FILE *f, const struct px_smpl_session *s, size_t ev, size_t rank,
			const struct px_cg_func *fn, const char *sep)
{
	fprintf(f, "callgraph%s", sep);
	px_csv_field(f, px_profile_event(s->profile, ev), sep);
	fprintf(f, "%s%zu%s%" PRIu64 "%s%.2f%s%" PRIu64 "%s%.2f%s", sep, rank, sep, fn->total,
		sep, fn->total_pct, sep, fn->self, sep, fn->self_pct, sep);
	px_csv_field(f, px_cg_frame_name(s->cg, fn->frame), sep);
	fputs(sep, f);
	px_csv_field(f, px_cg_frame_module(s->cg, fn->frame), sep);
	fputc('\n', f);
}

/* callers|callees,EVENT,FUNCTION,DEPTH,SAMPLES,PCT,NAME (depth 0: itself) */
static void csv_cg_tree(FILE *f, const struct px_smpl_session *s, size_t ev,
			enum px_cg_direction dir, const struct px_cg_node *v, size_t n,
			bool first, const char *sep)
{
	(void)first;
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s%s", dir == PX_CG_CALLERS ? "callers" : "callees", sep);
		px_csv_field(f, px_profile_event(s->profile, ev), sep);
		fputs(sep, f);
		px_csv_field(f, px_cg_frame_name(s->cg, v[0].frame), sep);
		fprintf(f, "%s%u%s%" PRIu64 "%s%.2f%s", sep, v[i].depth, sep, v[i].count, sep,
			v[0].count ? 100.0 * (double)v[i].count / (double)v[0].count : 0.0, sep);
		px_csv_field(f, px_cg_frame_name(s->cg, v[i].frame), sep);
		fputc('\n', f);
	}
}

static const struct cg_printer csv_cg = { csv_cg_head, csv_cg_func, csv_cg_tree, NULL };

static void json_cg_head(FILE *f, const struct px_smpl_session *s, size_t ev, bool first)
{
	fputs(first ? "{\"event\":" : ",{\"event\":", f);
	px_json_string(f, px_profile_event(s->profile, ev));
	fprintf(f, ",\"samples\":%" PRIu64 ",\"functions\":[", px_cg_total(s->cg, ev));
}

static void json_cg_func(FILE *f, const struct px_smpl_session *s, size_t ev, size_t rank,
			 const struct px_cg_func *fn, const char *sep)
{
	(void)ev, (void)sep;
	fputs(rank > 1 ? ",{\"name\":" : "{\"name\":", f);
	px_json_string(f, px_cg_frame_name(s->cg, fn->frame));
	fputs(",\"module\":", f);
	px_json_string(f, px_cg_frame_module(s->cg, fn->frame));
	fprintf(f, ",\"self\":%" PRIu64 ",\"children\":%" PRIu64
		",\"self_pct\":%.4f,\"children_pct\":%.4f}",
		fn->self, fn->total, fn->self_pct, fn->total_pct);
}

static void json_cg_tree(FILE *f, const struct px_smpl_session *s, size_t ev,
			 enum px_cg_direction dir, const struct px_cg_node *v, size_t n,
			 bool first, const char *sep)
{
	(void)ev, (void)sep;
	fputs(first ? "],\"trees\":[" : ",", f);
	fprintf(f, "{\"kind\":\"%s\",\"function\":",
		dir == PX_CG_CALLERS ? "callers" : "callees");
	px_json_string(f, px_cg_frame_name(s->cg, v[0].frame));
	fputs(",\"nodes\":[", f);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		px_json_string(f, px_cg_frame_name(s->cg, v[i].frame));
		fprintf(f, ",\"depth\":%u,\"samples\":%" PRIu64 "}", v[i].depth, v[i].count);
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
static void text_chain_summary(FILE *f, const struct px_smpl_session *s)
{
	if (!s->cg)
		return;
	fprintf(f, "%-20s %" PRIu64 " frames, %" PRIu64 " unknown (\?\?), %" PRIu64
		" chains cut short ([truncated])\n", "call chains", s->frames,
		s->unknown_frames, s->cut_chains);
}

static void print_text(FILE *f, const struct px_smpl_session *s, size_t top)
{
	const struct px_smpl_stats *st = &s->st;
	size_t nev = s->profile ? px_profile_events(s->profile) : 0;

	px_run_text(f);
	fprintf(f, "# sampling summary (%s format)\n",
		format_name(s->o.smpl.format));
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
	if (s->o.mon.nsets > 1) {
		fprintf(f, "%-20s", "set activations");
		for (size_t k = 0; k < s->o.mon.nsets; k++)
			fprintf(f, " %" PRIu64, s->set_runs[k]);
		fputc('\n', f);
	}
	text_chain_summary(f, s);
	each_sampling_event(s, text_count, f, NULL);
	for (size_t e = 0; e < nev; e++) {
		struct px_profile_entry *v = NULL;
		size_t n = 0;

		if (px_profile_rank(s->profile, e, &v, &n))
			continue;
		fprintf(f, "\n# profile of %s: %" PRIu64 " samples, by %s\n",
			px_profile_event(s->profile, e), px_profile_total(s->profile, e),
			px_profile_by_name(s->o.by));
		print_text_row(f, s, NULL);
		for (size_t i = 0, shown = 0; i < n && (!top || shown < top); i++) {
			if (!v[i].count)
				continue;
			print_text_row(f, s, &v[i]);
			shown++;
		}
		free(v);
	}
	cg_print(f, s, top, &text_cg, NULL);
}

/* A profile's rows with samples (the ranked array keeps empty ones). */
static size_t nonzero_rows(const struct px_profile_entry *v, size_t n)
{
	size_t rows = 0;

	for (size_t i = 0; i < n; i++)
		rows += v[i].count != 0;
	return rows;
}

static void print_csv(FILE *f, const struct px_smpl_session *s, size_t top, const char *sep)
{
	const struct px_smpl_stats *st = &s->st;
	size_t nev = s->profile ? px_profile_events(s->profile) : 0;
	const struct { const char *k; uint64_t v; } rows[] = {
		{ "samples", st->samples }, { "lost", px_smpl_lost_total(st) },
		{ "lost_ring", st->lost }, { "lost_saturated", st->dropped },
		{ "overwritten", st->overwritten }, { "lost_late", st->late },
		{ "buffer_full", st->buffer_full },
		{ "notifications", st->notifications }, { "restarts", st->restarts },
		{ "overflows", st->overflows }, { "throttled", st->throttled },
		{ "mapping_records_lost", st->side_lost },
	};

	px_run_csv_rows(f, sep);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		fprintf(f, "summary%s%s%s%" PRIu64 "\n", sep, rows[i].k, sep, rows[i].v);
	for (size_t k = 0; k < s->o.mon.nsets; k++)
		fprintf(f, "summary%sset_runs_%zu%s%" PRIu64 "\n", sep, k, sep, s->set_runs[k]);
	if (s->cg)
		fprintf(f, "summary%schain_frames%s%" PRIu64 "\nsummary%sunknown_frames%s%" PRIu64
			"\nsummary%scut_chains%s%" PRIu64 "\n", sep, sep, s->frames, sep, sep,
			s->unknown_frames, sep, sep, s->cut_chains);
	each_sampling_event(s, csv_count, f, sep);
	for (size_t e = 0; e < nev; e++) {
		struct px_profile_entry *v = NULL;
		size_t n = 0, rows;

		if (px_profile_rank(s->profile, e, &v, &n))
			continue;
		/* profile_size,EVENT,ROWS,SAMPLES,SHOWN: the whole profile's
		 * rows and samples, and how many rows follow, so that a reader
		 * (pfmon-report) tells a profile cut at the top from a whole
		 * one, and a truncated file from both */
		rows = nonzero_rows(v, n);
		fprintf(f, "profile_size%s", sep);
		px_csv_field(f, px_profile_event(s->profile, e), sep);
		fprintf(f, "%s%zu%s%" PRIu64 "%s%zu\n", sep, rows, sep,
			px_profile_total(s->profile, e), sep, top && top < rows ? top : rows);
		for (size_t i = 0, rank = 0; i < n && (!top || rank < top); i++) {
			if (!v[i].count)
				continue;
			fputs("profile", f);
			fputs(sep, f);
			px_csv_field(f, px_profile_event(s->profile, e), sep);
			fprintf(f, "%s%zu%s%" PRIu64 "%s%.2f%s", sep, ++rank, sep, v[i].count,
				sep, v[i].pct, sep);
			px_csv_field(f, v[i].name, sep);
			fputs(sep, f);
			px_csv_field(f, v[i].module, sep);
			fputs(sep, f);
			px_csv_field(f, v[i].process, sep);
			fputc('\n', f);
		}
		free(v);
	}
	cg_print(f, s, top, &csv_cg, sep);
}

static void print_json(FILE *f, const struct px_smpl_session *s, size_t top)
{
	const struct px_smpl_stats *st = &s->st;
	size_t nev = s->profile ? px_profile_events(s->profile) : 0;

	fputs("{\"tool\":\"pfmon\",", f);
	px_run_json(f);
	fprintf(f, ",\"summary\":{\"format\":\"%s\",\"samples\":%" PRIu64 ",\"lost\":%" PRIu64
		",\"lost_ring\":%" PRIu64 ",\"lost_saturated\":%" PRIu64 ",\"overwritten\":%" PRIu64
		",\"lost_late\":%" PRIu64
		",\"buffer_full\":%" PRIu64 ",\"notifications\":%" PRIu64 ",\"restarts\":%" PRIu64
		",\"exit_code\":%d,\"overflows\":%" PRIu64 ",\"throttled\":%" PRIu64
		",\"mapping_records_lost\":%" PRIu64 "}",
		format_name(s->o.smpl.format),
		st->samples, px_smpl_lost_total(st), st->lost, st->dropped, st->overwritten, st->late,
		st->buffer_full, st->notifications, st->restarts, s->run.exit_code,
		st->overflows, st->throttled, st->side_lost);
	{
		bool first = true;

		fputs(",\"set_runs\":[", f);
		for (size_t k = 0; k < s->o.mon.nsets; k++)
			fprintf(f, "%s%" PRIu64, k ? "," : "", s->set_runs[k]);
		fputs("],\"events\":[", f);
		each_sampling_event(s, json_count, f, &first);
	}
	fputs("],\"profile\":[", f);
	for (size_t e = 0; e < nev; e++) {
		struct px_profile_entry *v = NULL;
		size_t n = 0;

		if (px_profile_rank(s->profile, e, &v, &n))
			continue;
		fputs(e ? ",{\"event\":" : "{\"event\":", f);
		px_json_string(f, px_profile_event(s->profile, e));
		fprintf(f, ",\"samples\":%" PRIu64 ",\"by\":\"%s\",\"rows\":%zu,\"entries\":[",
			px_profile_total(s->profile, e), px_profile_by_name(s->o.by), nonzero_rows(v, n));
		for (size_t i = 0, shown = 0; i < n && (!top || shown < top); i++) {
			if (!v[i].count)
				continue;
			fputs(shown++ ? ",{\"name\":" : "{\"name\":", f);
			px_json_string(f, v[i].name);
			fputs(",\"module\":", f);
			px_json_string(f, v[i].module);
			fprintf(f, ",\"samples\":%" PRIu64 ",\"pct\":%.4f,\"process\":",
				v[i].count, v[i].pct);
			px_json_string(f, v[i].process);
			fputc('}', f);
		}
		fputs("]}", f);
		free(v);
	}
	fputs("]", f);
	if (s->cg) {
		fprintf(f, ",\"call_chains\":{\"frames\":%" PRIu64 ",\"unknown_frames\":%" PRIu64
			",\"cut_chains\":%" PRIu64 "},\"callgraph\":[",
			s->frames, s->unknown_frames, s->cut_chains);
		cg_print(f, s, top, &json_cg, NULL);
		fputc(']', f);
	}
	fputs("}\n", f);
}

void px_smpl_report_print(FILE *f, const struct px_smpl_session *s,
			  const struct px_out *o)
{
	if (o->kind == PX_OUT_JSON)
		print_json(f, s, o->top);
	else if (o->kind == PX_OUT_CSV)
		print_csv(f, s, o->top, o->sep);
	else
		print_text(f, s, o->top);
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
		px_interval_row(iv->f, iv->out, t, -1, rows[i].name, (double)delta,
				(double)rows[i].value);
	}
	fflush(iv->f);
}
