/* pfmon's sampling summary and profiles, in text, CSV and JSON on the
 * primitives of emit.h. */
#include "smpl_report.h"
#include "profile.h"

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

	for (size_t set = 0; set < o->nsets; set++) {
		for (size_t i = 0; i < o->sets[set].n; i++) {
			size_t k = px_smpl_event_index(o, set, i);
			struct smpl_count c = { .name = o->sets[set].events[i].name,
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

static const char *by_name(enum px_profile_by by)
{
	switch (by) {
	case PX_PROFILE_LINES: return "lines";
	case PX_PROFILE_INLINED: return "inlined functions";
	case PX_PROFILE_COMM: return "processes";
	case PX_PROFILE_PID: return "process ids";
	case PX_PROFILE_CPU: return "cpus";
	default: return "functions";
	}
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


static void print_text(FILE *f, const struct px_smpl_session *s, size_t top)
{
	const struct px_smpl_stats *st = &s->st;
	size_t nev = s->profile ? px_profile_events(s->profile) : 0;

	fprintf(f, "# sampling summary (%s format)\n",
		s->o.smpl.format == PX_SMPL_DOUBLE_BUFFER ? "double-buffer" : "default");
	fprintf(f, "%-20s %" PRIu64 "\n", "overflows", st->overflows);
	fprintf(f, "%-20s %" PRIu64 "\n", "samples recorded", st->samples);
	fprintf(f, "%-20s %" PRIu64 " (ring buffer %" PRIu64 ", masked or saturated %" PRIu64
		", overwritten %" PRIu64 ")\n", "samples lost", px_smpl_lost_total(st), st->lost,
		st->dropped, st->overwritten);
	fprintf(f, "%-20s %" PRIu64 "\n", "buffer-full events", st->buffer_full);
	fprintf(f, "%-20s %" PRIu64 "\n", "notifications", st->notifications);
	fprintf(f, "%-20s %" PRIu64 "\n", "restarts", st->restarts);
	if (st->throttled)
		fprintf(f, "%-20s %" PRIu64 " times: the kernel dropped the overflows meanwhile uncounted (raise kernel.perf_event_max_sample_rate or the periods)\n",
			"throttled", st->throttled);
	if (st->side_lost)
		fprintf(f, "%-20s %" PRIu64 " (some samples may not resolve)\n",
			"mapping records lost", st->side_lost);
	if (s->o.nsets > 1) {
		fprintf(f, "%-20s", "set activations");
		for (size_t k = 0; k < s->o.nsets; k++)
			fprintf(f, " %" PRIu64, s->set_runs[k]);
		fputc('\n', f);
	}
	each_sampling_event(s, text_count, f, NULL);
	for (size_t e = 0; e < nev; e++) {
		struct px_profile_entry *v = NULL;
		size_t n = 0;

		if (px_profile_rank(s->profile, e, &v, &n))
			continue;
		fprintf(f, "\n# profile of %s: %" PRIu64 " samples, by %s\n",
			px_profile_event(s->profile, e), px_profile_total(s->profile, e),
			by_name(s->o.by));
		print_text_row(f, s, NULL);
		for (size_t i = 0, shown = 0; i < n && (!top || shown < top); i++) {
			if (!v[i].count)
				continue;
			print_text_row(f, s, &v[i]);
			shown++;
		}
		free(v);
	}
}

static void print_csv(FILE *f, const struct px_smpl_session *s, size_t top, const char *sep)
{
	const struct px_smpl_stats *st = &s->st;
	size_t nev = s->profile ? px_profile_events(s->profile) : 0;
	const struct { const char *k; uint64_t v; } rows[] = {
		{ "samples", st->samples }, { "lost", px_smpl_lost_total(st) },
		{ "lost_ring", st->lost }, { "lost_saturated", st->dropped },
		{ "overwritten", st->overwritten }, { "buffer_full", st->buffer_full },
		{ "notifications", st->notifications }, { "restarts", st->restarts },
		{ "overflows", st->overflows }, { "throttled", st->throttled },
		{ "mapping_records_lost", st->side_lost },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		fprintf(f, "summary%s%s%s%" PRIu64 "\n", sep, rows[i].k, sep, rows[i].v);
	for (size_t k = 0; k < s->o.nsets; k++)
		fprintf(f, "summary%sset_runs_%zu%s%" PRIu64 "\n", sep, k, sep, s->set_runs[k]);
	each_sampling_event(s, csv_count, f, sep);
	for (size_t e = 0; e < nev; e++) {
		struct px_profile_entry *v = NULL;
		size_t n = 0;

		if (px_profile_rank(s->profile, e, &v, &n))
			continue;
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
}

static void print_json(FILE *f, const struct px_smpl_session *s, size_t top)
{
	const struct px_smpl_stats *st = &s->st;
	size_t nev = s->profile ? px_profile_events(s->profile) : 0;

	fprintf(f, "{\"summary\":{\"format\":\"%s\",\"samples\":%" PRIu64 ",\"lost\":%" PRIu64
		",\"lost_ring\":%" PRIu64 ",\"lost_saturated\":%" PRIu64 ",\"overwritten\":%" PRIu64
		",\"buffer_full\":%" PRIu64 ",\"notifications\":%" PRIu64 ",\"restarts\":%" PRIu64
		",\"exit_code\":%d,\"overflows\":%" PRIu64 ",\"throttled\":%" PRIu64
		",\"mapping_records_lost\":%" PRIu64 "}",
		s->o.smpl.format == PX_SMPL_DOUBLE_BUFFER ? "double-buffer" : "default",
		st->samples, px_smpl_lost_total(st), st->lost, st->dropped, st->overwritten,
		st->buffer_full, st->notifications, st->restarts, s->run.exit_code,
		st->overflows, st->throttled, st->side_lost);
	{
		bool first = true;

		fputs(",\"set_runs\":[", f);
		for (size_t k = 0; k < s->o.nsets; k++)
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
		fprintf(f, ",\"samples\":%" PRIu64 ",\"by\":\"%s\",\"entries\":[",
			px_profile_total(s->profile, e), by_name(s->o.by));
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
	fputs("]}\n", f);
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
