/* Spend about 70% of the run in heavy_function and 30% in light_function:
 * the same loop, 7 and 3 times as many iterations per round.  Built
 * without PIE, so `nm -S` gives both functions' ranges.
 * Usage: split [ROUNDS] (default 2000, about a second) */
#include <stdio.h>
#include <stdlib.h>

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

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 2000;

	if (rounds < 0) {
		fprintf(stderr, "usage: split [ROUNDS]\n");
		return 2;
	}
	spin(10);
	for (long r = 0; r < rounds; r++) {
		heavy_function(20000);
		light_function(20000);
	}
	return 0;
}
