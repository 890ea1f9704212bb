/* Repeat statistics (px_stats) and multiplexing scale (px_scale, the
 * result model's state, value and share of time). */
#include "tap.h"

#include <math.h>
#include <string.h>

#include "report.h"
#include "scale.h"
#include "stats.h"

static void add_all(struct px_stats *s, const double *v, size_t n)
{
	px_stats_init(s);
	for (size_t i = 0; i < n; i++)
		px_stats_add(s, v[i]);
}

static void test_stats(void)
{
	struct px_stats s;
	const double one[] = { 42 };
	const double four[] = { 2, 4, 4, 5 };
	const double same[] = { 7, 7, 7 };
	/* counts near 2^53 / 4: a naive sum of squares loses everything */
	const double big[] = { 1e15 + 1, 1e15 + 2, 1e15 + 3 };
	const double order[] = { 5, 1, 9, 3 };

	px_stats_init(&s);
	is_int(s.n, 0, "empty: n = 0");
	is_num(px_stats_stddev(&s), 0, 0, "empty: stddev 0");

	add_all(&s, one, 1);
	is_int(s.n, 1, "n=1: n");
	is_num(s.mean, 42, 0, "n=1: mean is the value");
	is_num(px_stats_stddev(&s), 0, 0, "n=1: stddev 0");
	is_num(s.min, 42, 0, "n=1: min");
	is_num(s.max, 42, 0, "n=1: max");

	add_all(&s, four, 4);
	is_num(s.mean, 3.75, 1e-12, "2,4,4,5: mean");
	/* sample variance: (3.0625 + 0.0625*2 + 1.5625) / 3 = 1.583333 */
	is_num(px_stats_stddev(&s), 1.2583057392117916, 1e-12, "2,4,4,5: sample stddev");
	is_num(s.min, 2, 0, "2,4,4,5: min");
	is_num(s.max, 5, 0, "2,4,4,5: max");

	add_all(&s, same, 3);
	is_num(px_stats_stddev(&s), 0, 0, "equal values: stddev 0");

	add_all(&s, big, 3);
	is_num(s.mean, 1e15 + 2, 1e-3, "large values: mean exact");
	is_num(px_stats_stddev(&s), 1.0, 1e-6, "large values: stddev 1");
	is_num(s.min, 1e15 + 1, 0, "large values: min");
	is_num(s.max, 1e15 + 3, 0, "large values: max");

	add_all(&s, order, 4);
	is_num(s.min, 1, 0, "min found wherever it is");
	is_num(s.max, 9, 0, "max found wherever it is");
}

static const struct {
	int line;
	uint64_t value, enabled, running;
	enum px_state state;
	double scaled, pct;
} scale_rows[] = {
	/* never ran: no estimate, whatever the counter holds */
	{ ROW, 0, 0, 0, PX_NOT_COUNTED, 0, 0 },
	{ ROW, 0, 1000, 0, PX_NOT_COUNTED, 0, 0 },
	{ ROW, 123, 1000, 0, PX_NOT_COUNTED, 0, 0 },
	/* ran the whole time: exact, never scaled */
	{ ROW, 500, 1000, 1000, PX_COUNTED, 500, 100 },
	{ ROW, 0, 1000, 1000, PX_COUNTED, 0, 100 },
	{ ROW, 500, 1000, 1001, PX_COUNTED, 500, 100 },
	{ ROW, UINT64_MAX, 7, 7, PX_COUNTED, (double)UINT64_MAX, 100 },
	/* ran part of the time: value * enabled / running */
	{ ROW, 500, 1000, 500, PX_SCALED, 1000, 50 },
	{ ROW, 300, 1000, 250, PX_SCALED, 1200, 25 },
	{ ROW, 1, 3, 1, PX_SCALED, 3, 100.0 / 3 },
	{ ROW, 1000000, 8000000000ull, 5000000000ull, PX_SCALED, 1600000, 62.5 },
	{ ROW, 0, 1000, 1, PX_SCALED, 0, 0.1 },
	/* short of the whole by less than the printed 0.01%: counted, and
	 * still the estimate */
	{ ROW, 1000000, 100000, 99999, PX_COUNTED, 1000010.0001, 99.999 },
	{ ROW, 1000000, 100000, 99990, PX_SCALED, 1000100.01, 99.99 },
};

static void test_scale(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(scale_rows); i++) {
		struct px_count c = { scale_rows[i].value, scale_rows[i].enabled,
				      scale_rows[i].running };
		struct px_value out;
		int ln = scale_rows[i].line;

		px_scale(&c, &out);
		is_int_at(ln, out.state, scale_rows[i].state, "scale row %zu: state", i);
		is_int_at(ln, out.raw, scale_rows[i].value, "scale row %zu: raw kept", i);
		is_num_at(ln, out.value, scale_rows[i].scaled,
			  1e-9 * (scale_rows[i].scaled + 1), "scale row %zu: value", i);
		is_num_at(ln, out.active_pct, scale_rows[i].pct, 1e-9,
			  "scale row %zu: running ratio", i);
	}
}

/* The report keeps per-event statistics over runs and says which ones
 * were scaled or never counted. */
static void test_report_runs(void)
{
	struct px_event evs[3] = { { .name = "a" }, { .name = "b" }, { .name = "c" } };
	int status[3] = { 0, 0, -95 };
	struct px_report r;
	struct px_count run1[3] = { { 100, 10, 10 }, { 50, 10, 5 }, { 0 } };
	struct px_count run2[3] = { { 300, 10, 10 }, { 0, 10, 0 }, { 0 } };

	if (!is_int(px_report_init(&r, "perfex", NULL, "perf", evs, 3, status), 0,
		    "report init"))
		return;
	px_report_add_run(&r, run1, 1000, 0);
	px_report_add_run(&r, run2, 3000, 3);
	is_int(r.runs, 2, "two runs");
	is_int(r.exit_code, 3, "a failing run's exit code is kept");
	is_num(r.elapsed_ns.mean, 2000, 0, "elapsed mean");
	is_int(r.results[0].runs_counted, 2, "exact event counted twice");
	is_num(r.results[0].values.mean, 200, 0, "exact event mean");
	is_num(px_stats_stddev(&r.results[0].values), 141.42135623730951, 1e-9,
	       "exact event stddev");
	ok(!r.results[0].ever_scaled, "exact event never scaled");
	is_int(r.results[1].runs_counted, 1, "run where b never ran is left out");
	is_num(r.results[1].values.mean, 100, 0, "b scaled from 50 at 50%%");
	ok(r.results[1].ever_scaled, "b flagged as scaled");
	is_num(r.results[1].min_running_pct, 50, 0,
	       "b's lowest running ratio is over the runs that counted it");
	is_int(r.results[2].runs_counted, 0, "unsupported event never counted");
	px_report_free(&r);
}

/* The uncertainty of a scaled value from its set's activations, worked
 * out by hand: rate r = sum c / sum t, spread = sum(c^2/t) / sum t - r^2,
 * n_eff = (sum t)^2 / sum t^2, unseen U = total - sum t, variance =
 * U^2 spread / (n_eff - 1) + U sum t spread / n_eff. */
static void test_activations(void)
{
	struct px_activations a = { 0 };
	struct px_value v = { .state = PX_SCALED, .value = 1000 };
	double dof;

	px_activations_add(&a, 400, 1000);
	ok(isnan(px_activations_variance(&a, 4000, 0, &dof)) && isnan(dof),
	   "one activation: no variance");
	px_activations_add(&a, 600, 1000);
	px_activations_add(&a, 99, 0);	/* never ran: not an activation */
	ok(a.t == 2000 && a.c == 1000, "an activation that did not run is left out");
	is_num(px_activations_variance(&a, 4000, 0, &dof), 60000, 1e-6,
	       "rates 0.4 and 0.6 over 1000 ns each, 2000 ns unseen");
	is_num(px_activations_variance(&a, 4000, 0.01, &dof), 60000, 1e-6,
	       "a pool's smaller relative spread leaves it");
	is_num(px_activations_rel_spread(&a, &dof), 0.04, 1e-12,
	       "relative spread: 0.01 over rate 0.5 squared");
	is_num(dof, 1, 1e-12, "two equal activations: 1 degree of freedom");
	is_num(px_activations_variance(&a, 2000, 0, &dof), 0, 0,
	       "nothing unseen: no variance");
	memset(&a, 0, sizeof(a));
	for (int i = 0; i < 3; i++)
		px_activations_add(&a, 500, 1000);
	is_num(px_activations_variance(&a, 6000, 0, &dof), 0, 1e-9,
	       "a steady rate: no variance");
	/* rates 0.5: relative spread 0.04 is a spread of 0.01, 3000 ns
	 * unseen over 3 activations of 1000 ns: 3000^2 0.01 / 2 +
	 * 3000 3000 0.01 / 3 */
	is_num(px_activations_variance(&a, 6000, 0.04, &dof), 75000, 1e-6,
	       "a steady rate with the pool's relative spread 0.04: its variance");
	is_num(px_activations_rel_spread(&a, &dof), 0, 1e-12, "a steady rate: relative spread 0");
	is_num(dof, 2, 1e-12, "weighed by its 2 degrees of freedom");
	is_num(dof, 2, 1e-12, "three equal activations: 2 degrees of freedom");
	memset(&a, 0, sizeof(a));
	px_activations_add(&a, 100, 100);
	px_activations_add(&a, 1000, 1000);
	px_activations_add(&a, 1000, 1000);
	is_num(dof = a.t * a.t / a.t2, 2100.0 * 2100 / 2010000, 1e-12,
	       "unequal activations weigh less than their number");

	px_value_set_ci(&v, 2500, INFINITY);
	is_num(v.ci95_pct, 9.79982, 1e-4, "sd 50 of 1000, known variance: +- 9.80%%");
	v.ci95_pct = NAN;
	px_value_set_ci(&v, 2500, 27);
	is_num(v.ci95_pct, 10.2593, 2e-3, "27 degrees of freedom: Student's t, +- 10.26%%");
	v.state = PX_COUNTED;
	v.ci95_pct = 0;
	px_value_set_ci(&v, 2500, 27);
	is_num(v.ci95_pct, 0, 0, "a value counted whole keeps no interval");
	px_value_add_bound(&v, 30);
	is_num(v.ci95_pct, 0, 0, "nor gets one from a bound");

	v.state = PX_SCALED;
	v.ci95_pct = NAN;
	px_value_set_ci(&v, 2500, INFINITY);
	px_value_add_bound(&v, 30);
	is_num(v.ci95_pct, 9.79982 + 3, 1e-4, "a bound of 30 on 1000 widens +- 9.80%% by 3 points");
	v.ci95_pct = NAN;
	px_value_add_bound(&v, 30);
	ok(isnan(v.ci95_pct), "an unknown interval stays unknown with a bound");
	v.ci95_pct = 0;
	px_value_add_bound(&v, 30);
	is_num(v.ci95_pct, 3, 1e-12, "a scaled value with no spread: the bound alone");
}

/* Student's t tail against tables' values (two-sided 5%: 12.706 at 1
 * degree of freedom, 2.776 at 4, 2.228 at 10, 1.960 at infinity). */
static void test_student_t(void)
{
	is_num(px_student_t_sf(12.706, 1), 0.025, 1e-5, "t 12.706, 1 dof: 2.5%% above");
	is_num(px_student_t_sf(2.776, 4), 0.025, 1e-4, "t 2.776, 4 dof: 2.5%% above");
	is_num(px_student_t_sf(-2.228, 10), 0.975, 1e-4, "t -2.228, 10 dof: 97.5%% above");
	is_num(px_student_t_sf(1.96, 1e9), 0.025, 1e-4, "many dof: the normal's");
	is_num(px_student_t_sf(0, 3.5), 0.5, 1e-12, "t 0, any dof: a half");
	is_num(px_student_t_sf(40, 4), 1.16e-6, 1e-7, "far in the tail, Welch's fractional dof allowed");
	ok(isnan(px_student_t_sf(1, 0)), "no degrees of freedom: no answer");
}

int main(void)
{
	test_stats();
	test_student_t();
	test_scale();
	test_activations();
	test_report_runs();
	return done_testing();
}
