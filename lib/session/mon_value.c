/* The scale step of a session: each unit's counts, and their sum over
 * the units, scaled to the time measured, with the 95% interval of the
 * estimate (lib/base/scale.h). */
#include "monitor.h"

#include <math.h>
#include <string.h>

/* The time unit u's sets were enabled: the sum over sets of each one's
 * (exactly one set is enabled at a time). */
static uint64_t unit_sets_time(const struct px_monitor *m, const struct px_unit *u)
{
	uint64_t total = 0;

	for (size_t s = 0; s < m->opts.nsets; s++) {
		uint64_t best = 0;

		for (size_t i = 0; i < m->opts.sets[s].n; i++) {
			const struct px_count *c = &u->counts[px_monitor_index(m, s, i)];

			if (c->enabled > best)
				best = c->enabled;
		}
		total += best;
	}
	return total;
}

/* The time unit u ran between one set's stop and the next one's start,
 * from its clock, given its sets' total (the sets the tool switches:
 * two ioctls, each an interrupt to the task's CPU).  What happened then
 * counted in no set: from nothing (the switch's own interrupts) to the
 * sets' own rates (the program running on, or a cycle counter ticking
 * through the interrupts too). */
static uint64_t unit_gaps(const struct px_unit *u, uint64_t sets_total)
{
	return u->clock && u->clock_count.enabled > sets_total ?
	       u->clock_count.enabled - sets_total : 0;
}

/* The relative spread of the rates over unit u's activations, pooled over
 * every counter switched with sets (weighed by their degrees of
 * freedom).  A stall of the task (a virtual CPU the host does not run, a
 * burst of interrupts) slows whatever set is active: a set that saw none
 * in its own turns still has them in its unseen time, the other sets'
 * turns, where only the other sets' spreads show them. */
static double unit_rel_spread(const struct px_monitor *m, const struct px_unit *u)
{
	double sum = 0, weights = 0;

	for (size_t k = 0; u->acts && k < m->nevents_total; k++) {
		double w, r = px_activations_rel_spread(&u->acts[k], &w);

		sum += w * r;
		weights += w;
	}
	return weights > 0 ? sum / weights : 0;
}

/* The value of set s, event i in unit u, the variance of its estimate
 * (0 when counted whole, NAN when unknown) and the bound of its
 * systematic error; *total: the sets' time, which its active_pct is a
 * share of (the sets' shares add up to 100%).  The value stands for the
 * sets' time and half the gaps: the middle of what the gaps may have
 * held, nothing or as much as the set's rate, and half their share
 * bounds its error. */
static void unit_value(const struct px_monitor *m, const struct px_unit *u,
		       size_t s, size_t i, struct px_value *v, uint64_t *total,
		       double *variance, double *dof, double *bound)
{
	size_t k = px_monitor_index(m, s, i);
	uint64_t half_gaps;
	double stands_for;

	*total = unit_sets_time(m, u);
	half_gaps = unit_gaps(u, *total) / 2;
	stands_for = (double)*total + (double)half_gaps;
	*variance = NAN;
	*dof = INFINITY;
	*bound = 0;
	if (u->status[k]) {
		memset(v, 0, sizeof(*v));
		v->state = PX_NOT_SUPPORTED;
		v->ci95_pct = NAN;
		return;
	}
	/* multiplexed by the kernel inside the set as well: running < enabled */
	px_value_of(&u->counts[k], *total, v);
	if (v->state == PX_SCALED && half_gaps) {
		v->value *= stands_for / (double)*total;
		*bound = v->value * (double)half_gaps / stands_for;
	}
	if (v->state == PX_COUNTED)
		*variance = 0;
	else if (v->state == PX_SCALED && u->acts)
		*variance = px_activations_variance(&u->acts[k], *total + half_gaps,
						    unit_rel_spread(m, u), dof);
	px_value_set_ci(v, *variance, *dof);
	px_value_add_bound(v, *bound);
}

void px_mon_value(const struct px_monitor *m, const struct px_unit *u,
		  size_t s, size_t i, struct px_value *v)
{
	uint64_t total, sum_running = 0, sum_total = 0;
	double variance, sum_variance = 0, dof, min_dof = INFINITY;
	double bound, sum_bound = 0;
	bool any_supported = false;

	if (u) {
		unit_value(m, u, s, i, v, &total, &variance, &dof, &bound);
		return;
	}
	memset(v, 0, sizeof(*v));
	v->state = PX_NOT_COUNTED;
	for (size_t k = 0; k < m->nunits; k++) {
		struct px_value one;

		unit_value(m, &m->units[k], s, i, &one, &total, &variance, &dof, &bound);
		if (one.state != PX_NOT_SUPPORTED)
			any_supported = true;
		sum_total += total;
		if (one.state < PX_SCALED)
			continue;
		v->state = PX_COUNTED;
		v->raw += one.raw;
		v->value += one.value;
		sum_variance += variance;	/* the units' errors are independent */
		sum_bound += bound;		/* their biases may all lean one way */
		if (!(dof >= min_dof))
			min_dof = dof;		/* the least known one sets the t */
		sum_running += m->units[k].counts[px_monitor_index(m, s, i)].running;
	}
	if (!any_supported && m->nunits)
		v->state = PX_NOT_SUPPORTED;
	if (sum_total)
		v->active_pct = 100.0 * (double)sum_running / (double)sum_total;
	if (v->state == PX_COUNTED && v->active_pct < 99.995)
		v->state = PX_SCALED;
	v->ci95_pct = v->state == PX_COUNTED ? 0 : NAN;
	px_value_set_ci(v, sum_variance, min_dof);
	px_value_add_bound(v, sum_bound);
}
