/* The results of one measurement (one or more runs of a command): the
 * runs counted into them, and the text, CSV and JSON printers for them. */
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
	int signal;			/* that ended the last run, or 0 */
};

int px_report_init(struct px_report *r, const char *tool, char *const *argv,
		   const char *backend, const struct px_event *events,
		   size_t nevents, const int *status);
/* Record one run: counts[i] for every event and the run's wall time. */
void px_report_add_run(struct px_report *r, const struct px_count *counts,
		       uint64_t elapsed_ns, int exit_code);
void px_report_free(struct px_report *r);

struct px_child;

/* perfex's measurement: the command counted `repeat` times, its counters
 * inherited by what it starts. */
struct px_count_opts {
	const char *tool;
	const struct px_backend *backend;
	char *const *argv;
	struct px_event *events;
	size_t nevents;
	int repeat;
};

/* Count o->argv o->repeat times into r (initialised from the first run).
 * first is the first run's command, forked by px_child_fork() and held
 * (the caller had work to do while it started); the others are forked
 * here.  A run ended by a signal ends the repetition, and r holds the
 * runs so far.  0, or -errno with px_last_error(): *exec_errno is then
 * the errno of the command's failed exec, or 0 for any other failure. */
int px_report_count(const struct px_count_opts *o, struct px_child *first,
		    struct px_report *r, int *exec_errno);

/* In text, CSV or JSON as o says (docs/perfex.md, "Output"; docs/schema.md). */
void px_report_print(FILE *f, const struct px_report *r, struct px_out *o);

#endif
