/* Read the monotonic clock in a loop for about MS milliseconds: the time
 * goes to the [vdso]'s clock_gettime.  Usage: clockloop [MS] (300). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long elapsed_ms(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000 + (b->tv_nsec - a->tv_nsec) / 1000000;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 300;
	struct timespec t0, t;

	if (ms < 0) {
		fprintf(stderr, "usage: clockloop [MS]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while (elapsed_ms(&t0, &t) < ms);
	return 0;
}
