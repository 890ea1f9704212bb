/* Summary statistics over repeated runs (Welford's running algorithm, so
 * large counts lose no precision to a naive sum of squares). */
#ifndef PX_STATS_H
#define PX_STATS_H

#include <stdint.h>

struct px_stats {
	uint64_t n;
	double mean;
	double m2;	/* sum of squared deviations from the mean */
	double min;
	double max;
};

void px_stats_init(struct px_stats *s);
void px_stats_add(struct px_stats *s, double x);
/* Sample standard deviation (n - 1); 0 with fewer than two values. */
double px_stats_stddev(const struct px_stats *s);

/* P(T > t) for Student's t with dof degrees of freedom (dof > 0, not
 * necessarily whole: Welch's), from the regularised incomplete beta
 * function. */
double px_student_t_sf(double t, double dof);

#endif
