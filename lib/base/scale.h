/* The one result model of every printed count: its state, the raw
 * counter, the estimate of the full count and the share of the time it
 * was measured, from a counter's enabled and running times. */
#ifndef PX_SCALE_H
#define PX_SCALE_H

#include <stdint.h>

/* One counter's reading: the 64-bit count and, for scaling, how long it
 * was enabled and how long it really ran on the PMU (nanoseconds).  What
 * every backend reads and this scales. */
struct px_count {
	uint64_t value;
	uint64_t enabled;
	uint64_t running;
};

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
	/* half the width of the value's 95% interval, in % of the value:
	 * 0 when counted the whole time, NAN when unknown */
	double ci95_pct;
};

/*
 * What a counter counted in each activation of its set (the tool
 * switching sets): the time it ran and its count in each, summed, so
 * that the spread of its rate over the activations tells how far its
 * scaled value may be off.
 */
struct px_activations {
	double t, t2;		/* sums of their times (ns) and squares */
	double c, c2_t;		/* sums of their counts and count^2 / time */
	uint64_t start_value, start_running;	/* at the last one's start */
};

/* Add one activation that ran t ns and counted c. */
void px_activations_add(struct px_activations *a, uint64_t c, uint64_t t);

/*
 * The variance of a value scaled to total ns from these activations:
 * the unobserved time (total - the time they ran) times a rate estimated
 * from them, so uncertain by the spread of their rates, both in the
 * estimate of the mean and in the mean over the unobserved stretches
 * (as many as fit, of the activations' mean length).  NAN with less
 * than 1.5 activations' worth of independent time.  *dof: the degrees of
 * freedom of that estimate (activations worth of independent time, less
 * one).  The spread is taken as at least min_rel_spread times the mean
 * rate squared: the relative spread the other counters of the task saw,
 * whose turns are this one's unseen time.  See docs/pfmon.md, "Event
 * sets and scaling".
 */
double px_activations_variance(const struct px_activations *a, uint64_t total,
			       double min_rel_spread, double *dof);

/* The spread of the activations' rates relative to their mean rate
 * squared, and in *weight its degrees of freedom (0: unknown, then 0 is
 * returned): what a pool of several counters' spreads is weighed by. */
double px_activations_rel_spread(const struct px_activations *a, double *weight);

/* c's value over total ns: the time the count stands for (a counter's own
 * enabled time, or a unit's whole time when the tool rotates sets); its
 * ci95_pct is 0 when counted whole, else NAN (see px_value_set_ci()). */
void px_value_of(const struct px_count *c, uint64_t total, struct px_value *v);

/* v's ci95_pct from the variance of its value, estimated with dof
 * degrees of freedom (Student's t; INFINITY: the normal 1.96). */
void px_value_set_ci(struct px_value *v, double variance, double dof);

/* Widen v's interval by a bound on a systematic error of its value:
 * the bound is added to the 95% half-width, so a bias anywhere within it
 * is covered.  An unknown interval (NAN) stays unknown. */
void px_value_add_bound(struct px_value *v, double bound);

/* The same over the counter's own enabled time. */
void px_scale(const struct px_count *c, struct px_value *v);

/* "not-supported", "not-counted", "scaled", "counted": the status column
 * of the CSV and JSON outputs. */
const char *px_state_name(enum px_state s);

#endif
