/* A front end's side of the code-region markers (perfex --regions): the
 * command's environment that makes libpx measure its regions and write
 * them to a file of the front end's, and that file's rows put into the
 * front end's output, where its format wants them. */
#ifndef PX_REGION_RUN_H
#define PX_REGION_RUN_H

#include <stdio.h>

#include "emit.h"

struct px_region_run {
	char path[64];		/* the regions' file; "" when none */
};

/* Create the file and set PX_REGIONS_* in this process's environment
 * (the command inherits it): events (comma-separated, as -e takes
 * them) counted per region on the backend named ("perf" or "module":
 * PX_COUNTERS_BACKEND), rows in o's format.  0 or -errno with
 * px_last_error(). */
int px_region_run_prepare(struct px_region_run *rr, const char *events, const char *backend,
			  const struct px_out *o);

/* Write the regions the command reported to f: the CSV header first (o
 * notes it is out) and the rows; JSON rows a line each; a text table.
 * Returns the bytes of regions (0: the command marked none), or -errno. */
long px_region_run_print(struct px_region_run *rr, FILE *f, struct px_out *o);

/* Remove the file (every path, failed or not). */
void px_region_run_end(struct px_region_run *rr);

#endif
