/* The code regions' report: per thread and region, each event's sum over
 * the calls and its min, mean and max per call, as rows of the one schema
 * (record "region": tid, the event's name, symbol the region, runs the
 * calls) or as a text table. */
#include "regions.h"
#include "row.h"

#include <string.h>

static struct px_row region_row(const struct px_region_thread *t,
				const struct px_region_stat *s, unsigned i)
{
	struct px_row row = px_row_make("region");

	row.tid = t->tid;
	row.name = t->events[i];
	row.symbol = s->name;
	row.status = s->scaled ? "scaled" : "counted";
	row.runs = (long)s->calls;
	row.value = s->sum[i];
	row.min = s->min[i];
	row.max = s->max[i];
	row.mean = s->calls ? s->sum[i] / (double)s->calls : 0;
	return row;
}

static void text_report(FILE *f, const struct px_region_thread *t)
{
	for (; t; t = t->next) {
		if (!t->nstats)
			continue;
		fprintf(f, "# regions of thread %d\n%-24s %10s  %-28s %16s %16s %16s %16s\n",
			(int)t->tid, "region", "calls", "event", "sum", "min", "mean", "max");
		for (size_t r = 0; r < t->nstats; r++) {
			const struct px_region_stat *s = &t->stats[r];

			for (unsigned i = 0; i < t->nevents; i++)
				fprintf(f, "%-24s %10llu  %-28s %16.0f %16.0f %16.2f %16.0f%s\n",
					i ? "" : s->name, (unsigned long long)s->calls,
					t->events[i], s->sum[i], s->min[i],
					s->calls ? s->sum[i] / (double)s->calls : 0, s->max[i],
					s->scaled ? "  (scaled)" : "");
		}
	}
}

void px_region_report(FILE *f, const char *fmt, const char *sep, bool header,
		      const struct px_region_thread *threads)
{
	bool csv = !strcmp(fmt, "csv"), json = !strcmp(fmt, "json");

	if (!csv && !json) {
		text_report(f, threads);
		return;
	}
	if (csv && header)
		px_row_csv_header(f, sep);
	for (const struct px_region_thread *t = threads; t; t = t->next)
		for (size_t r = 0; r < t->nstats; r++)
			for (unsigned i = 0; i < t->nevents; i++) {
				struct px_row row = region_row(t, &t->stats[r], i);

				if (csv)
					px_row_csv(f, sep, &row);
				else
					px_row_json_line(f, &row);
			}
}
