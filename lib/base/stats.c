#include "stats.h"

#include <math.h>

void px_stats_init(struct px_stats *s)
{
	s->n = 0;
	s->mean = 0;
	s->m2 = 0;
	s->min = 0;
	s->max = 0;
}

void px_stats_add(struct px_stats *s, double x)
{
	double delta = x - s->mean;

	s->n++;
	s->mean += delta / (double)s->n;
	s->m2 += delta * (x - s->mean);
	if (s->n == 1 || x < s->min)
		s->min = x;
	if (s->n == 1 || x > s->max)
		s->max = x;
}

double px_stats_stddev(const struct px_stats *s)
{
	if (s->n < 2)
		return 0;
	return sqrt(s->m2 / (double)(s->n - 1));
}
