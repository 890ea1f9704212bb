#include "row.h"
#include "emit.h"
#include "runctx.h"

#include <math.h>
#include <stdbool.h>

static const char *const columns[] = {
	"schema", "record", "unit", "pid", "tid", "cpu", "set", "name", "value",
	"raw", "active_pct", "status", "ci95_pct", "runs", "stddev", "min", "max",
	"seconds", "share_pct", "self", "self_pct", "position", "rows", "depth",
	"symbol", "module", "process", "root", "mean", "imbalance", "min_rank",
	"max_rank", "ranks", "cut_ranks",
};

struct px_row px_row_make(const char *record)
{
	return (struct px_row){
		.record = record, .pid = -1, .tid = -1, .cpu = -1, .set = -1,
		.value = NAN, .raw = NAN, .active_pct = NAN, .ci95_pct = NAN,
		.runs = -1, .stddev = NAN, .min = NAN, .max = NAN, .seconds = NAN,
		.user_only = -1, .share_pct = NAN, .self = NAN, .self_pct = NAN,
		.position = -1, .rows = -1, .depth = -1, .mean = NAN, .imbalance = NAN,
		.min_rank = -1, .max_rank = -1, .ranks = -1, .cut_ranks = -1,
	};
}

struct px_row px_row_elapsed(double seconds)
{
	struct px_row row = px_row_make("elapsed");

	row.name = "seconds";
	row.decimals = 9;
	row.value = seconds;
	row.runs = 1;
	row.seconds = seconds;
	return row;
}

void px_row_csv_header(FILE *f, const char *sep)
{
	for (size_t c = 0; c < sizeof(columns) / sizeof(columns[0]); c++)
		fprintf(f, "%s%s", c ? sep : "", columns[c]);
	px_run_csv_columns(f, sep);
	fputc('\n', f);
}

void px_out_csv_header(FILE *f, struct px_out *o)
{
	if (o->csv_header_done)
		return;
	px_row_csv_header(f, o->sep);
	o->csv_header_done = true;
}

static void csv_long(FILE *f, const char *sep, long v)
{
	fputs(sep, f);
	if (v >= 0)
		fprintf(f, "%ld", v);
}

static void csv_text(FILE *f, const char *sep, const char *s)
{
	fputs(sep, f);
	if (s)
		px_csv_field(f, s, sep);
}

void px_row_csv(FILE *f, const char *sep, const struct px_row *r)
{
	fprintf(f, "%d", PX_SCHEMA);
	csv_text(f, sep, r->record);
	csv_text(f, sep, r->unit);
	csv_long(f, sep, r->pid);
	csv_long(f, sep, r->tid);
	csv_long(f, sep, r->cpu);
	csv_long(f, sep, r->set);
	csv_text(f, sep, r->name);
	fputs(sep, f);
	if (isfinite(r->value))
		fprintf(f, "%.*f", r->decimals, r->value);
	px_csv_number(f, sep, "%.0f", r->raw);
	px_csv_number(f, sep, "%.2f", r->active_pct);
	csv_text(f, sep, r->status);
	px_csv_number(f, sep, "%.2f", r->ci95_pct);
	csv_long(f, sep, r->runs);
	fputs(sep, f);
	if (isfinite(r->stddev))
		fprintf(f, "%.*f", r->decimals ? r->decimals : 2, r->stddev);
	fputs(sep, f);
	if (isfinite(r->min))
		fprintf(f, "%.*f", r->decimals, r->min);
	fputs(sep, f);
	if (isfinite(r->max))
		fprintf(f, "%.*f", r->decimals, r->max);
	px_csv_number(f, sep, "%.6f", r->seconds);
	px_csv_number(f, sep, "%.2f", r->share_pct);
	px_csv_number(f, sep, "%.0f", r->self);
	px_csv_number(f, sep, "%.2f", r->self_pct);
	csv_long(f, sep, r->position);
	csv_long(f, sep, r->rows);
	csv_long(f, sep, r->depth);
	csv_text(f, sep, r->symbol);
	csv_text(f, sep, r->module);
	csv_text(f, sep, r->process);
	csv_text(f, sep, r->root);
	px_csv_number(f, sep, "%.2f", r->mean);
	px_csv_number(f, sep, "%.4f", r->imbalance);
	csv_long(f, sep, r->min_rank);
	csv_long(f, sep, r->max_rank);
	csv_long(f, sep, r->ranks);
	csv_long(f, sep, r->cut_ranks);
	px_run_csv_values(f, sep, r->run);
	fputc('\n', f);
}

/* ,"key":number with the row's decimals; NaN as null */
static void json_fixed(FILE *f, const char *key, int decimals, double v)
{
	fprintf(f, ",\"%s\":", key);
	if (isfinite(v))
		fprintf(f, "%.*f", decimals, v);
	else
		fputs("null", f);
}

static void json_long(FILE *f, const char *key, long v)
{
	if (v >= 0)
		fprintf(f, ",\"%s\":%ld", key, v);
}

static void json_text(FILE *f, const char *key, const char *s)
{
	if (!s)
		return;
	fprintf(f, ",\"%s\":", key);
	px_json_string(f, s);
}

/* The row's fields after the opening brace. */
static void json_fields(FILE *f, const struct px_row *r)
{
	/* a value that exists: counted, scaled or derived; the fields that
	 * describe it follow it, as numbers or null when unknown */
	bool measured = isfinite(r->value);

	fputs("\"name\":", f);
	px_json_string(f, r->name ? r->name : "");
	if (r->encoding) {
		fputs(",\"encoding\":", f);
		px_json_string(f, r->encoding);
	}
	if (r->set >= 0)
		fprintf(f, ",\"set\":%ld", r->set);
	if (r->status) {
		fputs(",\"status\":", f);
		px_json_string(f, r->status);
	}
	/* null: not counted (a count, a merged event) */
	if (measured || r->status || r->ranks >= 0)
		json_fixed(f, "value", r->decimals, r->value);
	if (isfinite(r->raw)) {
		json_fixed(f, "raw", 0, r->raw);
		json_fixed(f, "active_pct", 2, r->active_pct);
		json_fixed(f, "ci95_pct", 2, r->ci95_pct);
	}
	if (measured && r->user_only >= 0)
		fprintf(f, ",\"user_only\":%s", r->user_only ? "true" : "false");
	if (measured && r->runs >= 0)
		fprintf(f, ",\"runs\":%ld", r->runs);
	if (isfinite(r->stddev))
		json_fixed(f, "stddev", r->decimals ? r->decimals : 2, r->stddev);
	if (isfinite(r->min))
		json_fixed(f, "min", r->decimals, r->min);
	if (isfinite(r->max))
		json_fixed(f, "max", r->decimals, r->max);
	if (isfinite(r->seconds))
		json_fixed(f, "seconds", 6, r->seconds);
	if (isfinite(r->share_pct))
		json_fixed(f, "share_pct", 2, r->share_pct);
	if (isfinite(r->self)) {
		json_fixed(f, "self", 0, r->self);
		json_fixed(f, "self_pct", 2, r->self_pct);
	}
	json_long(f, "position", r->position);
	json_long(f, "rows", r->rows);
	json_long(f, "depth", r->depth);
	json_text(f, "symbol", r->symbol);
	json_text(f, "module", r->module);
	json_text(f, "process", r->process);
	json_text(f, "root", r->root);
	if (isfinite(r->mean))
		json_fixed(f, "mean", 2, r->mean);
	if (r->ranks >= 0)
		json_fixed(f, "imbalance", 4, r->imbalance);
	json_long(f, "min_rank", r->min_rank);
	json_long(f, "max_rank", r->max_rank);
	json_long(f, "ranks", r->ranks);
	json_long(f, "cut_ranks", r->cut_ranks);
	if (r->run && r->run->rank >= 0)
		fprintf(f, ",\"rank\":%ld", r->run->rank);
	if (r->run && *r->run->host) {
		fputs(",\"host\":", f);
		px_json_string(f, r->run->host);
	}
}

void px_row_json(FILE *f, const struct px_row *r)
{
	fputc('{', f);
	json_fields(f, r);
	fputc('}', f);
}

void px_row_json_line(FILE *f, const struct px_row *r)
{
	fprintf(f, "{\"schema\":%d,\"record\":", PX_SCHEMA);
	px_json_string(f, r->record);
	fputc(',', f);
	px_run_json(f);
	fputc(',', f);
	json_fields(f, r);
	fputs("}\n", f);
}
