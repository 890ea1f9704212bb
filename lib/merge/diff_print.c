/* pfmon-report --diff's output: a table, "diff" rows of the one schema
 * (lib/report/row.h) in CSV, or a JSON document with them. */
#include "diff.h"
#include "row.h"

#include <math.h>
#include <string.h>

/* A module in text: its file name (CSV and JSON give the path). */
static const char *file_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

static const char *verdict(const struct px_diff_func *f)
{
	return isnan(f->p) ? "not tested" : f->significant ? "significant" : "not significant";
}

static struct px_row diff_row(const struct px_diff_func *f, size_t rank)
{
	struct px_row row = px_row_make("diff");

	row.name = f->event;
	row.set = f->set;
	row.position = (long)rank;
	row.symbol = f->name;
	row.module = *f->module ? f->module : NULL;
	row.share_pct = f->new_pct;
	row.base_pct = f->base_pct;
	row.change_pct = f->change;
	row.p_value = f->p;
	row.status = verdict(f);
	return row;
}

static size_t shown(const struct px_diff *d, size_t top)
{
	return top && top < d->nfuncs ? top : d->nfuncs;
}

static void print_text(FILE *f, const struct px_diff *d, size_t top)
{
	fprintf(f, "# pfmon-report --diff: %zu base run%s, %zu new run%s; Welch's t test over the runs' shares,\n"
		   "# significant: p < %g / %zu functions tested\n",
		d->nbase, d->nbase == 1 ? "" : "s", d->nnew, d->nnew == 1 ? "" : "s",
		PX_DIFF_ALPHA, d->tested);
	fprintf(f, "%-16s %8s %8s %8s %9s  %-15s  %-32s %s\n", "event", "base %", "new %",
		"change", "p", "", "function", "module");
	for (size_t i = 0; i < shown(d, top); i++) {
		const struct px_diff_func *x = &d->funcs[i];
		char p[16];

		snprintf(p, sizeof(p), isnan(x->p) ? "-" : "%.2g", x->p);
		fprintf(f, "%-16s %8.2f %8.2f %+8.2f %9s  %-15s  %-32s %s\n", x->event,
			x->base_pct, x->new_pct, x->change, p, verdict(x), x->name,
			file_name(x->module));
	}
	if (shown(d, top) < d->nfuncs)
		fprintf(f, "# %zu more (--top=0: all)\n", d->nfuncs - shown(d, top));
}

static void json_paths(FILE *f, const char *key, const struct px_merge_input *runs, size_t n)
{
	fprintf(f, ",\"%s\":[", key);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? "," : "", f);
		px_json_string(f, runs[i].path);
	}
	fputc(']', f);
}

static void print_json(FILE *f, const struct px_diff *d, size_t top)
{
	fprintf(f, "{\"schema\":%d,\"tool\":\"pfmon-report\",\"kind\":\"diff\"", PX_SCHEMA);
	json_paths(f, "base", d->base, d->nbase);
	json_paths(f, "new", d->new, d->nnew);
	fprintf(f, ",\"alpha\":%g,\"tested\":%zu,\"functions\":%zu,\"diff\":[", PX_DIFF_ALPHA,
		d->tested, d->nfuncs);
	for (size_t i = 0; i < shown(d, top); i++) {
		struct px_row row = diff_row(&d->funcs[i], i + 1);

		fputs(i ? "," : "", f);
		px_row_json(f, &row);
	}
	fputs("]}\n", f);
}

void px_diff_print(FILE *f, const struct px_diff *d, const struct px_out *o, size_t top)
{
	if (o->kind == PX_OUT_JSON) {
		print_json(f, d, top);
	} else if (o->kind == PX_OUT_CSV) {
		px_row_csv_header(f, o->sep);
		for (size_t i = 0; i < shown(d, top); i++) {
			struct px_row row = diff_row(&d->funcs[i], i + 1);

			px_row_csv(f, o->sep, &row);
		}
	} else {
		print_text(f, d, top);
	}
}
