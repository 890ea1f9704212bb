#include "scale.h"

#include <math.h>
#include <stdbool.h>

void px_value_of(const struct px_count *c, uint64_t total, struct px_value *v)
{
	v->raw = c->value;
	v->ci95_pct = NAN;
	if (c->running == 0 || total == 0) {
		/* enabled but never scheduled, or never enabled at all */
		v->state = PX_NOT_COUNTED;
		v->value = 0;
		v->active_pct = 0;
		return;
	}
	if (c->running >= total) {
		v->state = PX_COUNTED;
		v->value = (double)c->value;
		v->active_pct = 100.0;
		v->ci95_pct = 0;
		return;
	}
	v->value = (double)c->value * ((double)total / (double)c->running);
	v->active_pct = 100.0 * (double)c->running / (double)total;
	/* a count short of the whole by less than the printed precision
	 * (the enabled times of a set's counters differ by nanoseconds) */
	v->state = v->active_pct < 99.995 ? PX_SCALED : PX_COUNTED;
}

void px_scale(const struct px_count *c, struct px_value *v)
{
	px_value_of(c, c->enabled, v);
}

const char *px_state_name(enum px_state s)
{
	static const char *const names[] = {
		[PX_NOT_SUPPORTED] = "not-supported",
		[PX_NOT_COUNTED] = "not-counted",
		[PX_SCALED] = "scaled",
		[PX_COUNTED] = "counted",
	};

	return s <= PX_COUNTED ? names[s] : "?";
}

/* Student's t 97.5% quantile for dof degrees of freedom, from the
 * normal's by its Cornish-Fisher expansion (within 0.2% from 3 up). */
static double t975(double dof)
{
	const double z = 1.959964, z3 = z * z * z, z5 = z3 * z * z;

	if (!isfinite(dof))
		return z;
	return z + (z3 + z) / (4 * dof) + (5 * z5 + 16 * z3 + 3 * z) / (96 * dof * dof);
}

void px_value_set_ci(struct px_value *v, double variance, double dof)
{
	if (v->state != PX_SCALED || !isfinite(variance) || !(dof > 0))
		return;
	v->ci95_pct = v->value > 0 ? 100.0 * t975(dof) * sqrt(variance) / v->value :
		      variance > 0 ? INFINITY : 0;
}

void px_value_add_bound(struct px_value *v, double bound)
{
	if (v->state != PX_SCALED || !(bound > 0) || isnan(v->ci95_pct))
		return;
	v->ci95_pct += v->value > 0 ? 100.0 * bound / v->value : INFINITY;
}

void px_activations_add(struct px_activations *a, uint64_t c, uint64_t t)
{
	if (!t)
		return;		/* the set never ran on the task meanwhile */
	a->t += (double)t;
	a->t2 += (double)t * (double)t;
	a->c += (double)c;
	a->c2_t += (double)c * (double)c / (double)t;
}

/* The activations' time-weighted mean rate and the spread of their rates
 * about it; their number worth of independent ones in *n_eff (activations
 * of unequal length weigh unequally).  False with too few. */
static bool rate_spread(const struct px_activations *a, double *rate, double *spread,
			double *n_eff)
{
	if (a->t <= 0 || a->t2 <= 0)
		return false;
	*n_eff = a->t * a->t / a->t2;
	if (*n_eff < 1.5)
		return false;
	*rate = a->c / a->t;
	*spread = a->c2_t / a->t - *rate * *rate;
	if (*spread < 0)
		*spread = 0;	/* rounding of a steady rate */
	return true;
}

double px_activations_rel_spread(const struct px_activations *a, double *weight)
{
	double rate, spread, n_eff;

	*weight = 0;
	if (!rate_spread(a, &rate, &spread, &n_eff) || rate <= 0)
		return 0;
	*weight = n_eff - 1;
	return spread / (rate * rate);
}

double px_activations_variance(const struct px_activations *a, uint64_t total,
			       double min_rel_spread, double *dof)
{
	double unseen = (double)total - a->t, rate, spread, n_eff;

	*dof = NAN;
	if (!rate_spread(a, &rate, &spread, &n_eff))
		return NAN;
	*dof = n_eff - 1;
	if (unseen <= 0)
		return 0;
	if (spread < min_rel_spread * rate * rate)
		spread = min_rel_spread * rate * rate;
	/* the mean's own error, and that of the mean over the unseen time */
	return unseen * unseen * spread / (n_eff - 1) + unseen * a->t * spread / n_eff;
}
