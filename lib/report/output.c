/* Text, CSV and JSON printers for a report (perfex's counts over its
 * runs), on the primitives of emit.h. */
#include "emit.h"
#include "metrics.h"
#include "report.h"
#include "row.h"

#include <math.h>
#include <string.h>

/* An event's state over the runs: scaled when any run was. */
static enum px_state state_of(const struct px_event_result *res)
{
	if (res->status)
		return PX_NOT_SUPPORTED;
	if (res->runs_counted == 0)
		return PX_NOT_COUNTED;
	return res->ever_scaled ? PX_SCALED : PX_COUNTED;
}

static size_t report_metrics(const struct px_report *r, struct px_metric *out)
{
	double values[r->nevents ? r->nevents : 1];
	bool counted[r->nevents ? r->nevents : 1];

	for (size_t i = 0; i < r->nevents; i++) {
		counted[i] = state_of(&r->results[i]) >= PX_SCALED;
		values[i] = r->results[i].values.mean;
	}
	return px_metrics_compute(r->events, values, counted, r->nevents,
				  (uint64_t)r->elapsed_ns.mean, out);
}

static void print_command(FILE *f, char *const *argv, bool quoted)
{
	for (size_t i = 0; argv && argv[i]; i++) {
		fputs(i ? " " : "", f);
		if (quoted)
			px_json_string(f, argv[i]);
		else
			fputs(argv[i], f);
	}
}

/* ---- text ---- */

static void text_event(FILE *f, const struct px_report *r, size_t i)
{
	const struct px_event_result *res = &r->results[i];
	const struct px_event *ev = &r->events[i];
	enum px_state s = state_of(res);
	bool msec = px_event_is_clock(ev);
	char num[48], lo[48], hi[48], raw[48];

	if (s == PX_NOT_SUPPORTED) {
		fprintf(f, "%20s  %s  (this machine cannot count it)\n",
			"<not supported>", ev->name);
		return;
	}
	if (s == PX_NOT_COUNTED) {
		fprintf(f, "%20s  %s\n", "<not counted>", ev->name);
		return;
	}
	px_format_value(num, sizeof(num), res->values.mean, msec, PX_FMT_PLAIN);
	fprintf(f, "%20s  %s", num, ev->name);
	/* the notes line up in a column; a bare line has no trailing blanks */
	if (r->runs > 1 || s == PX_SCALED || ev->kernel_dropped)
		fprintf(f, "%*s", (int)(strlen(ev->name) < 26 ? 26 - strlen(ev->name) : 0), "");
	px_format_value(lo, sizeof(lo), res->values.min, msec, PX_FMT_PLAIN);
	px_format_value(hi, sizeof(hi), res->values.max, msec, PX_FMT_PLAIN);
	px_format_value(raw, sizeof(raw), res->raws.mean, msec, PX_FMT_PLAIN);
	if (r->runs > 1)
		fprintf(f, " +- %.2f%%  (min %s, max %s, %u runs)",
			res->values.mean ? 100.0 * px_stats_stddev(&res->values) /
						   res->values.mean : 0.0,
			lo, hi, res->runs_counted);
	if (res->runs_counted < r->runs)
		fprintf(f, "  (not counted in %u of %u runs)",
			r->runs - res->runs_counted, r->runs);
	if (s == PX_SCALED)
		fprintf(f, "  (scaled from %.2f%% of the time, raw %s)",
			res->min_running_pct, raw);
	if (ev->kernel_dropped)
		fputs("  (user space only: perf_event_paranoid)", f);
	fputc('\n', f);
}

static void print_text(FILE *f, const struct px_report *r)
{
	struct px_metric metrics[PX_METRICS_MAX];
	size_t nm = report_metrics(r, metrics);

	px_run_text(f);
	fprintf(f, "\n %s: counts for '", r->tool);
	print_command(f, r->argv, false);
	fprintf(f, "' (backend %s", r->backend);
	if (r->runs > 1)
		fprintf(f, ", %u runs", r->runs);
	fputs("):\n\n", f);
	for (size_t i = 0; i < r->nevents; i++)
		text_event(f, r, i);
	if (nm)
		fputc('\n', f);
	for (size_t m = 0; m < nm; m++)
		fprintf(f, "%20.3f  %-26s # %s\n", metrics[m].value,
			metrics[m].name, metrics[m].desc);
	fprintf(f, "\n %20.9f seconds elapsed", r->elapsed_ns.mean / 1e9);
	if (r->runs > 1)
		fprintf(f, " (mean; +- %.9f)", px_stats_stddev(&r->elapsed_ns) / 1e9);
	fputs("\n\n", f);
}

/* ---- CSV and JSON: the rows of row.h ---- */

/* An event's row: the mean over the runs that counted it, their spread,
 * and the lowest share of the time it ran (perfex's runs all measure the
 * command as a whole: unit all, set 0). */
static struct px_row event_row(const struct px_report *r, size_t i)
{
	const struct px_event_result *res = &r->results[i];
	enum px_state s = state_of(res);
	struct px_row row = px_row_make("count");

	row.unit = "all";
	row.set = 0;
	row.name = r->events[i].name;
	row.encoding = r->events[i].encoded;
	row.status = px_state_name(s);
	row.seconds = r->elapsed_ns.mean / 1e9;
	if (s < PX_SCALED)
		return row;
	row.value = res->values.mean;
	row.raw = res->raws.mean;
	row.active_pct = res->min_running_pct;
	/* one run: its own interval; more: their spread says it */
	if (res->runs_counted == 1)
		row.ci95_pct = res->last.ci95_pct;
	row.runs = res->runs_counted;
	row.stddev = px_stats_stddev(&res->values);
	row.min = res->values.min;
	row.max = res->values.max;
	row.user_only = r->events[i].kernel_dropped;
	return row;
}

static struct px_row metric_row(const struct px_report *r, const struct px_metric *m)
{
	struct px_row row = px_row_make("metric");

	row.name = m->name;
	row.decimals = 6;
	row.value = m->value;
	row.status = "derived";
	row.runs = r->runs;
	return row;
}

/* The mean over the runs, and their spread. */
static struct px_row elapsed_row(const struct px_report *r)
{
	struct px_row row = px_row_elapsed(r->elapsed_ns.mean / 1e9);

	row.runs = r->runs;
	row.stddev = px_stats_stddev(&r->elapsed_ns) / 1e9;
	row.min = r->elapsed_ns.min / 1e9;
	row.max = r->elapsed_ns.max / 1e9;
	return row;
}

static void print_csv(FILE *f, const struct px_report *r, struct px_out *o)
{
	struct px_metric metrics[PX_METRICS_MAX];
	size_t nm = report_metrics(r, metrics);
	const char *sep = o->sep;
	struct px_row row;

	px_out_csv_header(f, o);
	for (size_t i = 0; i < r->nevents; i++) {
		row = event_row(r, i);
		px_row_csv(f, sep, &row);
	}
	for (size_t m = 0; m < nm; m++) {
		row = metric_row(r, &metrics[m]);
		px_row_csv(f, sep, &row);
	}
	row = elapsed_row(r);
	px_row_csv(f, sep, &row);
}

/* ---- JSON ---- */

static void print_json(FILE *f, const struct px_report *r)
{
	struct px_metric metrics[PX_METRICS_MAX];
	size_t nm = report_metrics(r, metrics);

	fprintf(f, "{\"schema\":%d,\"tool\":", PX_SCHEMA);
	px_json_string(f, r->tool);
	fputc(',', f);
	px_run_json(f);
	fputs(",\"command\":[", f);
	for (size_t i = 0; r->argv && r->argv[i]; i++) {
		fputs(i ? "," : "", f);
		px_json_string(f, r->argv[i]);
	}
	fputs("],\"backend\":", f);
	px_json_string(f, r->backend);
	fprintf(f, ",\"runs\":%u,\"exit_status\":%d", r->runs, r->exit_code);
	px_json_number(f, ",\"elapsed_seconds\":%.9f", r->elapsed_ns.mean / 1e9);
	px_json_number(f, ",\"elapsed_stddev\":%.9f", px_stats_stddev(&r->elapsed_ns) / 1e9);
	fputs(",\"events\":[", f);
	for (size_t i = 0; i < r->nevents; i++) {
		struct px_row row = event_row(r, i);

		row.seconds = NAN;	/* the document's elapsed_seconds */
		fputs(i ? "," : "", f);
		px_row_json(f, &row);
	}
	fputs("],\"metrics\":[", f);
	for (size_t m = 0; m < nm; m++) {
		fputs(m ? ",{\"name\":" : "{\"name\":", f);
		px_json_string(f, metrics[m].name);
		px_json_number(f, ",\"value\":%.6g", metrics[m].value);
		fputs(",\"description\":", f);
		px_json_string(f, metrics[m].desc);
		fputc('}', f);
	}
	fputs("]}\n", f);
}

void px_report_print(FILE *f, const struct px_report *r, struct px_out *o)
{
	if (o->kind == PX_OUT_JSON)
		print_json(f, r);
	else if (o->kind == PX_OUT_CSV)
		print_csv(f, r, o);
	else
		print_text(f, r);
}
