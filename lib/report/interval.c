#include "interval.h"

static void json_row(FILE *f, double t, long set, const char *name,
		     double delta, double value)
{
	fprintf(f, "{\"interval_seconds\":%.6f,", t);
	px_run_json(f);
	fputc(',', f);
	if (set >= 0)
		fprintf(f, "\"set\":%ld,", set);
	fputs("\"name\":", f);
	px_json_string(f, name);
	fprintf(f, ",\"delta\":%.0f,\"value\":%.0f}\n", delta, value);
}

static void csv_row(FILE *f, const char *sep, double t, long set,
		    const char *name, double delta, double value)
{
	if (set < 0) {
		fprintf(f, "interval%s%.6f%s", sep, t, sep);
		px_csv_field(f, name, sep);
		fprintf(f, "%s%.0f%s%.0f", sep, delta, sep, value);
		px_run_csv_values(f, sep);
		fputc('\n', f);
		return;
	}
	/* the count table's columns: value is the change; raw,
	 * active_pct and ci95_pct stay empty */
	fprintf(f, "interval%s%s%s%s%ld%s", sep, sep, sep, sep, set, sep);
	px_csv_field(f, name, sep);
	fprintf(f, "%s%.0f%s%s%sinterval%s%.6f%s", sep, delta, sep, sep, sep, sep, t, sep);
	px_run_csv_values(f, sep);
	fputc('\n', f);
}

void px_interval_row(FILE *f, const struct px_out *o, double t, long set,
		     const char *name, double delta, double value)
{
	char num[48];

	if (o->kind == PX_OUT_JSON) {
		json_row(f, t, set, name, delta, value);
	} else if (o->kind == PX_OUT_CSV) {
		csv_row(f, o->sep, t, set, name, delta, value);
	} else {
		px_format_count(num, sizeof(num), (uint64_t)(delta > 0 ? delta + 0.5 : 0),
				o->format);
		fprintf(f, "%12.6f %20s  %s\n", t, num, name);
	}
}
