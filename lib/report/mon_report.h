/* Printing a pfmon session: per thread or per CPU, or aggregated, with each
 * count's raw value, its scaled estimate and the time its set was active. */
#ifndef PX_MON_REPORT_H
#define PX_MON_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "emit.h"
#include "monitor.h"
#include "scale.h"

/* CSV has one header for the interval rows and the final rows:
 * unit,pid,tid,cpu,set,event,value,raw,active_pct,status,seconds,ci95_pct */
void px_mon_print(FILE *f, const struct px_monitor *m, struct px_out *o);

/* --print-interval: one line per event at each interval with the change
 * of its (aggregate, scaled) count since the previous line. */
struct px_mon_interval {
	FILE *f;
	struct px_out *out;
	double *prev;		/* [events over all sets] */
};
int px_mon_interval_init(struct px_mon_interval *iv, FILE *f,
			 struct px_out *o, size_t nevents);
void px_mon_interval_print(const struct px_monitor *m, void *iv);
void px_mon_interval_free(struct px_mon_interval *iv);

#endif
