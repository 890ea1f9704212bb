/* The statistics the region markers keep (lib/self/regions.c), and their
 * report when the program exits (lib/self/region_report.c). */
#ifndef PX_REGIONS_H
#define PX_REGIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "px_counters.h"

/* One region of one thread: its calls and, per event, the sum, smallest
 * and largest count of a call. */
#define PX_REGION_NAME_MAX 64	/* bytes of a name, its end included */

struct px_region_stat {
	char name[PX_REGION_NAME_MAX];
	uint64_t calls;
	bool scaled;		/* some call's counts were multiplexed */
	double sum[PX_COUNTERS_MAX], min[PX_COUNTERS_MAX], max[PX_COUNTERS_MAX];
};

/* A thread's regions, kept after it ends for the report. */
struct px_region_thread {
	pid_t tid;
	unsigned nevents;
	const char *events[PX_COUNTERS_MAX];	/* their names */
	struct px_region_stat *stats;
	size_t nstats;
	struct px_region_thread *next;
};

/* Write the threads' regions to f as fmt says: "text", "csv" (rows of the
 * one schema, after a header unless header is false, sep between
 * columns) or "json" (one schema-3 row a line). */
void px_region_report(FILE *f, const char *fmt, const char *sep, bool header,
		      const struct px_region_thread *threads);

#endif
