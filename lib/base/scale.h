/* Estimating a multiplexed counter's full count from the time it ran. */
#ifndef PX_SCALE_H
#define PX_SCALE_H

#include "backend.h"

enum px_scale_state {
	PX_NOT_COUNTED,	/* never ran on the PMU: no estimate exists */
	PX_EXACT,	/* ran the whole time it was enabled */
	PX_SCALED,	/* ran part of the time: value is an estimate */
};

struct px_scaled {
	enum px_scale_state state;
	uint64_t raw;		/* what the counter holds */
	double value;		/* raw * enabled / running */
	double running_pct;	/* 100 * running / enabled */
};

void px_scale(const struct px_count *c, struct px_scaled *out);

#endif
