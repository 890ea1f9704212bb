/* The results of one measurement (one or more runs of a command), and the
 * text, CSV and JSON printers for it. */
#ifndef PX_REPORT_H
#define PX_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "backend.h"
#include "emit.h"
#include "events.h"
#include "scale.h"
#include "stats.h"

struct px_event_result {
	int status;		 /* 0, or -EOPNOTSUPP: cannot count here */
	struct px_value last;	 /* the last run's reading */
	struct px_stats values;	 /* scaled values of the runs that counted */
	struct px_stats raws;	 /* raw values of those runs */
	unsigned runs_counted;
	bool ever_scaled;
	double min_running_pct;	 /* lowest running ratio over the runs */
};

struct px_report {
	const char *tool;		/* "perfex" */
	char *const *argv;		/* the measured command */
	const char *backend;
	const struct px_event *events;
	size_t nevents;
	struct px_event_result *results;
	unsigned runs;
	struct px_stats elapsed_ns;
	int exit_code;			/* of the last run that failed, or 0 */
};

int px_report_init(struct px_report *r, const char *tool, char *const *argv,
		   const char *backend, const struct px_event *events,
		   size_t nevents, const int *status);
/* Record one run: counts[i] for every event and the run's wall time. */
void px_report_add_run(struct px_report *r, const struct px_count *counts,
		       uint64_t elapsed_ns, int exit_code);
void px_report_free(struct px_report *r);

/* In text, CSV or JSON as o says (README: "perfex output"). */
void px_report_print(FILE *f, const struct px_report *r, const struct px_out *o);

#endif
