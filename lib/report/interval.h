/* The lines of --print-interval, counting and sampling alike. */
#ifndef PX_INTERVAL_H
#define PX_INTERVAL_H

#include <stdio.h>

#include "emit.h"

/* At t seconds into the session, name grew by delta: a count of event
 * set `set`, or with set < 0 a sampling figure (samples, lost); msec: a
 * clock event's nanoseconds, in msec in text.  CSV and JSON: an interval
 * row of row.h, after the CSV header if none is out. */
void px_interval_row(FILE *f, struct px_out *o, double t, long set,
		     const char *name, bool msec, double delta);

#endif
