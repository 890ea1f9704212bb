/* The one row of every CSV and JSON result (docs/schema.md): what
 * perfex and pfmon count, per thread, per CPU or in aggregate, their
 * derived metrics, elapsed time and intervals, the sampling summary, the
 * profiles and call graphs, written by one CSV writer under one header
 * and by one JSON writer with the same names, and read back by
 * pfmon-report under the same names. */
#ifndef PX_ROW_H
#define PX_ROW_H

#include <stdio.h>

#include "emit.h"
#include "scale.h"

/* The schema's version: a CSV file's "schema" column and a JSON
 * document's "schema" member.  2: one header for perfex and pfmon,
 * counting and sampling. */
#define PX_SCHEMA 3

struct px_row {
	/* count, metric, elapsed, interval, summary, samples, profile_size,
	 * profile, callgraph, callers, callees; pfmon-report: merged, input,
	 * share */
	const char *record;
	const char *unit;	/* count: thread, cpu or all; else NULL */
	long pid, tid, cpu, set;	/* < 0: none */
	const char *name;	/* the event, metric or "seconds" */
	int decimals;		/* of value, stddev, min and max */
	double value, raw, active_pct;	/* NAN: none */
	const char *status;	/* counted, scaled, not counted, ... */
	double ci95_pct;
	long runs;		/* < 0: none */
	double stddev, min, max;
	double seconds;		/* the session's time at this row */
	/* profiles and call graphs */
	double share_pct;	/* of the event's samples */
	double self, self_pct;	/* callgraph: samples in the function itself */
	long position;		/* in its table, from 1; profile_size: the
				 * last one listed */
	long rows;		/* profile_size: the whole profile's rows */
	long depth;		/* callers, callees: from the root, 0 */
	const char *symbol;	/* function, source line, process or CPU */
	const char *module;
	const char *process;
	const char *root;	/* callers, callees: the tree's function */
	/* pfmon-report: an event over the ranks */
	double mean, imbalance;	/* imbalance: max / mean */
	long min_rank, max_rank;
	long ranks;		/* ranks that counted it; merged: inputs */
	long cut_ranks;		/* profile_size: ranks whose profile was cut */
	/* pfmon-report --diff: a function's mean share in the base runs, its
	 * change to the new runs' (share_pct), in points, and the two-sided
	 * p of Welch's t test over the runs' shares */
	double base_pct, change_pct, p_value;
	/* the run the row is of: NULL for this process's; pfmon-report's
	 * rows name the job's (and an input's or a share's rank) */
	const struct px_runctx *run;
	/* JSON only, where set: the event's encoding and whether the
	 * kernel left user space only (perfex) */
	const char *encoding;
	int user_only;		/* < 0: none */
};

/* A row of the record with every field empty. */
struct px_row px_row_make(const char *record);
/* The last row of every CSV (a file without it was cut): the run's
 * elapsed seconds, one run. */
struct px_row px_row_elapsed(double seconds);
/* One reading of event `name` of set `set` in one run: its state, and
 * unless it was not counted (or cannot be here) its value as scaled,
 * raw count, share of the time active and the scaled value's 95%
 * interval.  The unit is the caller's to fill. */
struct px_row px_row_count(const char *name, long set, const struct px_value *v);

/* CSV: the header line (the schema's columns, the run's last), and one
 * row with its run's values. */
void px_row_csv_header(FILE *f, const char *sep);
/* The header once per output: the intervals and the final rows share it. */
void px_out_csv_header(FILE *f, struct px_out *o);
void px_row_csv(FILE *f, const char *sep, const struct px_row *r);

/* JSON: {"name":...} with the row's fields that are set (the record, unit
 * and run belong to the document around it). */
void px_row_json(FILE *f, const struct px_row *r);
/* A row on a line of its own (the intervals, before the document): with
 * the schema, the record and the run. */
void px_row_json_line(FILE *f, const struct px_row *r);

#endif
