/* Text, CSV and JSON printers for a report (perfex's counts over its
 * runs), on the primitives of emit.h. */
#include "emit.h"
#include "metrics.h"
#include "report.h"

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

	if (s == PX_NOT_SUPPORTED) {
		fprintf(f, "%20s  %s  (this machine cannot count it)\n",
			"<not supported>", ev->name);
		return;
	}
	if (s == PX_NOT_COUNTED) {
		fprintf(f, "%20s  %s\n", "<not counted>", ev->name);
		return;
	}
	fprintf(f, "%20.0f  %s", res->values.mean, ev->name);
	/* the notes line up in a column; a bare line has no trailing blanks */
	if (r->runs > 1 || s == PX_SCALED || ev->kernel_dropped)
		fprintf(f, "%*s", (int)(strlen(ev->name) < 26 ? 26 - strlen(ev->name) : 0), "");
	if (r->runs > 1)
		fprintf(f, " +- %.2f%%  (min %.0f, max %.0f, %u runs)",
			res->values.mean ? 100.0 * px_stats_stddev(&res->values) /
						   res->values.mean : 0.0,
			res->values.min, res->values.max, res->runs_counted);
	if (res->runs_counted < r->runs)
		fprintf(f, "  (not counted in %u of %u runs)",
			r->runs - res->runs_counted, r->runs);
	if (s == PX_SCALED)
		fprintf(f, "  (scaled from %.2f%% of the time, raw %.0f)",
			res->min_running_pct, res->raws.mean);
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

/* ---- CSV ---- */

static void csv_event(FILE *f, const struct px_report *r, size_t i,
		      const char *sep)
{
	const struct px_event_result *res = &r->results[i];
	enum px_state s = state_of(res);

	fputs("event", f);
	fputs(sep, f);
	px_csv_field(f, r->events[i].name, sep);
	if (s < PX_SCALED) {
		/* empty value, raw and running_pct; no runs, no spread */
		fprintf(f, "%s%s%s%s%s%s0%s%s%s", sep, sep, sep, sep,
			px_state_name(s), sep, sep, sep, sep);
		px_run_csv_values(f, sep);
		fputc('\n', f);
		return;
	}
	px_csv_number(f, sep, "%.0f", res->values.mean);
	px_csv_number(f, sep, "%.0f", res->raws.mean);
	px_csv_number(f, sep, "%.2f", res->min_running_pct);
	fputs(sep, f);
	fputs(px_state_name(s), f);
	fprintf(f, "%s%u", sep, res->runs_counted);
	px_csv_number(f, sep, "%.2f", px_stats_stddev(&res->values));
	px_csv_number(f, sep, "%.0f", res->values.min);
	px_csv_number(f, sep, "%.0f", res->values.max);
	px_run_csv_values(f, sep);
	fputc('\n', f);
}

static void print_csv(FILE *f, const struct px_report *r, const char *sep)
{
	static const char *const columns[] = {
		"kind", "name", "value", "raw", "running_pct", "status",
		"runs", "stddev", "min", "max",
	};
	struct px_metric metrics[PX_METRICS_MAX];
	size_t nm = report_metrics(r, metrics);

	for (size_t c = 0; c < sizeof(columns) / sizeof(columns[0]); c++)
		fprintf(f, "%s%s", c ? sep : "", columns[c]);
	px_run_csv_columns(f, sep);
	fputc('\n', f);
	for (size_t i = 0; i < r->nevents; i++)
		csv_event(f, r, i, sep);
	for (size_t m = 0; m < nm; m++) {
		fprintf(f, "metric%s", sep);
		px_csv_field(f, metrics[m].name, sep);
		fprintf(f, "%s%.6g%s%s%s%s%s%u%s%s%s", sep, metrics[m].value,
			sep, sep, sep, "derived", sep, r->runs, sep, sep, sep);
		px_run_csv_values(f, sep);
		fputc('\n', f);
	}
	fprintf(f, "elapsed%sseconds%s%.9f%s%s%s%s%u%s%.9f%s%.9f%s%.9f",
		sep, sep, r->elapsed_ns.mean / 1e9, sep, sep, sep, sep, r->runs,
		sep, px_stats_stddev(&r->elapsed_ns) / 1e9, sep,
		r->elapsed_ns.min / 1e9, sep, r->elapsed_ns.max / 1e9);
	px_run_csv_values(f, sep);
	fputc('\n', f);
}

/* ---- JSON ---- */

static void json_event(FILE *f, const struct px_report *r, size_t i)
{
	const struct px_event_result *res = &r->results[i];
	enum px_state s = state_of(res);

	fputs("{\"name\":", f);
	px_json_string(f, r->events[i].name);
	fputs(",\"encoding\":", f);
	px_json_string(f, r->events[i].encoded);
	fprintf(f, ",\"status\":\"%s\"", px_state_name(s));
	if (s < PX_SCALED) {
		fputs(",\"value\":null}", f);
		return;
	}
	px_json_number(f, ",\"value\":%.0f", res->values.mean);
	px_json_number(f, ",\"raw\":%.0f", res->raws.mean);
	px_json_number(f, ",\"running_pct\":%.2f", res->min_running_pct);
	fprintf(f, ",\"user_only\":%s", r->events[i].kernel_dropped ? "true" : "false");
	fprintf(f, ",\"runs\":%u", res->runs_counted);
	px_json_number(f, ",\"stddev\":%.2f", px_stats_stddev(&res->values));
	px_json_number(f, ",\"min\":%.0f", res->values.min);
	px_json_number(f, ",\"max\":%.0f}", res->values.max);
}

static void print_json(FILE *f, const struct px_report *r)
{
	struct px_metric metrics[PX_METRICS_MAX];
	size_t nm = report_metrics(r, metrics);

	fputs("{\"tool\":", f);
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
		fputs(i ? "," : "", f);
		json_event(f, r, i);
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

void px_report_print(FILE *f, const struct px_report *r, const struct px_out *o)
{
	if (o->kind == PX_OUT_JSON)
		print_json(f, r);
	else if (o->kind == PX_OUT_CSV)
		print_csv(f, r, o->sep);
	else
		print_text(f, r);
}
