/* The one result model of every printed count: its state, the raw
 * counter, the estimate of the full count and the share of the time it
 * was measured, from a counter's enabled and running times. */
#ifndef PX_SCALE_H
#define PX_SCALE_H

#include "backend.h"

/* In this order: a state >= PX_SCALED has a value. */
enum px_state {
	PX_NOT_SUPPORTED,	/* no counter: this machine cannot count it */
	PX_NOT_COUNTED,		/* never ran on the PMU: no estimate exists */
	PX_SCALED,		/* ran part of the time: value is an estimate */
	PX_COUNTED,		/* ran the whole time, to the printed 0.01% */
};

struct px_value {
	enum px_state state;
	uint64_t raw;		/* what the counter holds */
	double value;		/* raw * total / running */
	double active_pct;	/* 100 * running / total */
};

/* c's value over total ns: the time the count stands for (a counter's own
 * enabled time, or a unit's whole time when the tool rotates sets). */
void px_value_of(const struct px_count *c, uint64_t total, struct px_value *v);

/* The same over the counter's own enabled time. */
void px_scale(const struct px_count *c, struct px_value *v);

/* "not-supported", "not-counted", "scaled", "counted": the status column
 * of the CSV and JSON outputs. */
const char *px_state_name(enum px_state s);

#endif
