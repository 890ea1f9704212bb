/* The lines of --print-interval, counting and sampling alike. */
#ifndef PX_INTERVAL_H
#define PX_INTERVAL_H

#include <stdio.h>

#include "emit.h"

/* At t seconds into the session, name grew by delta to value.  set >= 0:
 * a count of that event set, CSV in the columns of pfmon's count table
 * (its header is the caller's); set < 0: a sampling figure (samples,
 * lost), CSV as interval,SECONDS,NAME,DELTA,TOTAL. */
void px_interval_row(FILE *f, const struct px_out *o, double t, long set,
		     const char *name, double delta, double value);

#endif
