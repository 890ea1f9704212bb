#include "row.h"
#include "emit.h"
#include "runctx.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* The CSV's columns after "schema", in order, and where each is in a row:
 * the header and every row are written from this one list. */
enum col_type { COL_TEXT, COL_LONG, COL_NUM };
#define DECIMALS_ROW (-1)	/* the row's own decimals */
#define DECIMALS_SPREAD (-2)	/* the row's, or 2 for whole counts */
#define DECIMALS_SCI (-3)	/* 3 significant digits, %.3g: probabilities */

static const struct column {
	const char *name;
	enum col_type type;
	size_t offset;
	int decimals;
} columns[] = {
#define TEXT(f) { #f, COL_TEXT, offsetof(struct px_row, f), 0 }
#define LONG(f) { #f, COL_LONG, offsetof(struct px_row, f), 0 }
#define NUM(f, d) { #f, COL_NUM, offsetof(struct px_row, f), d }
	TEXT(record), TEXT(unit), LONG(pid), LONG(tid), LONG(cpu), LONG(set),
	TEXT(name), NUM(value, DECIMALS_ROW), NUM(raw, 0), NUM(active_pct, 2),
	TEXT(status), NUM(ci95_pct, 2), LONG(runs), NUM(stddev, DECIMALS_SPREAD),
	NUM(min, DECIMALS_ROW), NUM(max, DECIMALS_ROW), NUM(seconds, 6),
	NUM(share_pct, 2), NUM(self, 0), NUM(self_pct, 2), LONG(position),
	LONG(rows), LONG(depth), TEXT(symbol), TEXT(module), TEXT(process),
	TEXT(root), NUM(mean, 2), NUM(imbalance, 4), LONG(min_rank),
	LONG(max_rank), LONG(ranks), LONG(cut_ranks), NUM(base_pct, 2),
	NUM(change_pct, 2), NUM(p_value, DECIMALS_SCI),
#undef TEXT
#undef LONG
#undef NUM
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
		.base_pct = NAN, .change_pct = NAN, .p_value = NAN,
	};
}

struct px_row px_row_count(const char *name, long set, const struct px_value *v)
{
	struct px_row row = px_row_make("count");

	row.set = set;
	row.name = name;
	row.status = px_state_name(v->state);
	if (v->state < PX_SCALED)
		return row;
	row.value = v->value;
	row.raw = (double)v->raw;
	row.active_pct = v->active_pct;
	row.ci95_pct = v->ci95_pct;
	row.runs = 1;
	return row;
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
	fputs("schema", f);
	for (size_t c = 0; c < sizeof(columns) / sizeof(columns[0]); c++)
		fprintf(f, "%s%s", sep, columns[c].name);
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

/* One cell: empty when the row has no such value. */
static void csv_cell(FILE *f, const char *sep, const struct px_row *r,
		     const struct column *c)
{
	const char *at = (const char *)r + c->offset;
	const char *text;
	long l;
	double v;
	int d = c->decimals;

	fputs(sep, f);
	switch (c->type) {
	case COL_TEXT:
		memcpy(&text, at, sizeof(text));
		if (text)
			px_csv_field(f, text, sep);
		break;
	case COL_LONG:
		memcpy(&l, at, sizeof(l));
		if (l >= 0)
			fprintf(f, "%ld", l);
		break;
	case COL_NUM:
		memcpy(&v, at, sizeof(v));
		if (d == DECIMALS_ROW || (d == DECIMALS_SPREAD && r->decimals))
			d = r->decimals;
		else if (d == DECIMALS_SPREAD)
			d = 2;
		if (isfinite(v) && d == DECIMALS_SCI)
			fprintf(f, "%.3g", v);
		else if (isfinite(v))
			fprintf(f, "%.*f", d, v);
		break;
	}
}

void px_row_csv(FILE *f, const char *sep, const struct px_row *r)
{
	fprintf(f, "%d", PX_SCHEMA);
	for (size_t c = 0; c < sizeof(columns) / sizeof(columns[0]); c++)
		csv_cell(f, sep, r, &columns[c]);
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
	json_long(f, "pid", r->pid);
	json_long(f, "tid", r->tid);
	json_long(f, "cpu", r->cpu);
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
	if (isfinite(r->change_pct)) {	/* a diff's: p null when not tested */
		json_fixed(f, "base_pct", 2, r->base_pct);
		json_fixed(f, "change_pct", 2, r->change_pct);
		fputs(",\"p_value\":", f);
		if (isfinite(r->p_value))
			fprintf(f, "%.3g", r->p_value);
		else
			fputs("null", f);
	}
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
