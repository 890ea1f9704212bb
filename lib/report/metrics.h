/* Derived metrics (IPC, CPI, miss ratios, ...), computed whenever every
 * input of a metric was counted. */
#ifndef PX_METRICS_H
#define PX_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events.h"

#define PX_METRICS_MAX 24

struct px_metric {
	const char *name;	/* e.g. "IPC" */
	const char *desc;	/* e.g. "instructions per cycle" */
	double value;
};

/* values[i] is the (scaled, or mean) count of evs[i]; counted[i] says
 * whether it exists.  elapsed_ns is the command's wall time.  Fills out[]
 * and returns how many metrics apply. */
size_t px_metrics_compute(const struct px_event *evs, const double *values,
			  const bool *counted, size_t n, uint64_t elapsed_ns,
			  struct px_metric *out);

/* The table-lookup key of an event: its libpfm4 event name without PMU
 * prefix and modifiers ("PERF_COUNT_HW_CPU_CYCLES", "INST_RETIRED"). */
void px_metric_key(const struct px_event *ev, char *key, size_t len);

#endif
