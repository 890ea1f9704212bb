/* Spend about 70% of the run in heavy_function and 30% in light_function:
 * the same loop, 7 and 3 times as many iterations per round.  Built
 * without PIE, so `nm -S` gives both functions' ranges.
 * Usage: split [ROUNDS] (default 2000, about a second)
 *        split -u MS: rounds until the process has had MS ms of user
 *        CPU time: a test sampling its user time at a period P then has
 *        MS / P user samples on any machine, however much its sampling
 *        interrupts cost there (the kernel time they take is not user
 *        time) */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

volatile unsigned long sink;

static void spin(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}

/* the loop is written out in each function so its samples land there */
__attribute__((noinline)) void heavy_function(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < 7 * n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}

__attribute__((noinline)) void light_function(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < 3 * n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}

static double user_ms(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3;
}

int main(int argc, char **argv)
{
	bool by_time = argc > 2 && !strcmp(argv[1], "-u");
	double ms = by_time ? atof(argv[2]) : 0;
	long rounds = by_time ? -1 : argc > 1 ? atol(argv[1]) : 2000;

	if ((!by_time && rounds < 0) || (by_time && ms <= 0)) {
		fprintf(stderr, "usage: split [ROUNDS] | split -u MS\n");
		return 2;
	}
	spin(10);
	for (long r = 0; by_time ? user_ms() < ms : r < rounds; r++) {
		heavy_function(20000);
		light_function(20000);
	}
	return 0;
}
