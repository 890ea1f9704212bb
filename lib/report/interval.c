#include "interval.h"
#include "row.h"

void px_interval_row(FILE *f, struct px_out *o, double t, long set,
		     const char *name, bool msec, double delta)
{
	struct px_row row = px_row_make("interval");
	char num[48];

	row.set = set;
	row.name = name;
	row.value = delta;
	row.seconds = t;
	if (o->kind == PX_OUT_JSON) {
		px_row_json_line(f, &row);
	} else if (o->kind == PX_OUT_CSV) {
		px_out_csv_header(f, o);
		px_row_csv(f, o->sep, &row);
	} else {
		px_format_value(num, sizeof(num), delta, msec, o->format);
		fprintf(f, "%12.6f %20s  %s\n", t, num, name);
	}
}
